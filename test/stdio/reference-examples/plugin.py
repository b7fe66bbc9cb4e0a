#!/usr/bin/env python3
import json
import sys

def handle_request(req):
    method = req.get("method")
    params = req.get("params", {})

    if method == "activate":
        return {
            "tools": [{
                "name": "greet",
                "description": "Greet someone",
                "parameters": [
                    {"name": "name", "type": "string", "description": "Name to greet", "required": True}
                ]
            }],
            "hooks": [
                {"event": "PostToolUse", "matcher": "Shell"}
            ]
        }
    elif method == "execute_tool":
        tool = params.get("toolName")
        if tool == "greet":
            return {"result": f"Hello, {params.get('input', 'World')}!"}
        return {"error": f"unknown tool: {tool}"}
    elif method == "hook":
        event = params.get("event")
        if event == "PostToolUse":
            # 记录工具使用
            return {"hook_result": {"decision": "allow"}}
        return {"hook_result": {"decision": "allow"}}
    elif method == "deactivate":
        return {"result": "ok"}

    return {"error": f"unknown method: {method}"}

for line in sys.stdin:
    try:
        req = json.loads(line)
        resp = handle_request(req)
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()
    except Exception as e:
        sys.stdout.write(json.dumps({"error": str(e)}) + "\n")
        sys.stdout.flush()
