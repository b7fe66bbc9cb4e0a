#!/usr/bin/env python3
"""A Tsumugi stdio plugin in Python (see docs/stdio-plugins.md).

One JSON object per line on stdin (requests) and stdout (answers); logs go to stderr, which
the bot writes to its log under the plugin id. Standard library only.
"""
import ast
import json
import operator
import sys

config = {}

OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def calculate(expression):
    """Evaluates + - * / // % ** and parentheses on numbers; anything else is refused."""

    def evaluate(node):
        if isinstance(node, ast.Expression):
            return evaluate(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
            left, right = evaluate(node.left), evaluate(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 1000:
                raise ValueError("exponent too large")
            return OPERATORS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and type(node.op) in OPERATORS:
            return OPERATORS[type(node.op)](evaluate(node.operand))
        raise ValueError("only numbers and + - * / // % ** ( ) are allowed")

    return evaluate(ast.parse(expression, mode="eval"))


def activate(params):
    config.update(params.get("config") or {})
    return {
        "tools": [
            {
                "name": "calculate",
                "description": "Evaluate an arithmetic expression, e.g. (3 + 4) * 12 / 7.",
                "parameters": [
                    {"name": "expression", "type": "string", "description": "The expression", "required": True}
                ],
            }
        ],
        "hooks": [{"event": "PreToolUse"}],
        "enrichers": [{"name": "notes"}],
    }


def execute_tool(params):
    # The arguments arrive as one JSON string.
    args = json.loads(params.get("input") or "{}")
    if params.get("toolName") != "calculate":
        return {"error": f"unknown tool: {params.get('toolName')}"}
    try:
        return {"result": f"{args['expression']} = {calculate(args['expression'])}"}
    except (ValueError, SyntaxError, ZeroDivisionError, OverflowError) as error:
        return {"error": f"cannot calculate {args.get('expression')!r}: {error}"}


def hook(params):
    if params.get("event") == "PreToolUse" and params.get("toolName") in config.get("deny_tools", []):
        return {"hook_result": {"decision": "deny", "message": f"{params['toolName']} is switched off here"}}
    return {"hook_result": {"decision": "allow"}}


def enrich(params):
    return {"result": config.get("notes", "")}


def config_changed(params):
    config.clear()
    config.update(params.get("config") or {})
    print(f"config changed: {sorted(config)}", file=sys.stderr, flush=True)
    return {"result": "ok"}


HANDLERS = {
    "activate": activate,
    "execute_tool": execute_tool,
    "hook": hook,
    "enrich": enrich,
    "config_changed": config_changed,
    "deactivate": lambda params: {"result": "ok"},
}


def main():
    for line in sys.stdin:
        try:
            request = json.loads(line)
            handler = HANDLERS.get(request.get("method"))
            if handler is None:
                answer = {"error": f"unknown method: {request.get('method')}"}
            else:
                answer = handler(request.get("params") or {})
        except Exception as error:  # one bad request never ends the plugin
            answer = {"error": str(error)}
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
