import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SDK = fileURLToPath(new URL("../../sdk/python", import.meta.url));
/** A module written for a newer Python, to show the check finds what it looks for. */
const FIXTURE = fileURLToPath(new URL("./sdk-compat-fixture", import.meta.url));

/**
 * The SDK promises Python ≥ 3.9 and the standard library only (docs/python-plugins.md), but
 * this machine runs a newer Python: every SDK file is parsed with 3.9's grammar, and what 3.9
 * parses but fails on when run is looked for (`X | None` in annotations, which 3.9 evaluates
 * at definition), as are imports outside the standard library.
 */
const CHECK = String.raw`
import ast, pathlib, sys
problems = []
stdlib = set(sys.stdlib_module_names) | {"tsumugi_sdk", "maibot_sdk"}
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    source = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source, feature_version=(3, 9))
    except SyntaxError as error:
        problems.append(f"{path}: not 3.9 syntax: {error}")
        continue
    future = any(isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations" for a in n.names) for n in tree.body)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                if name.split(".")[0] not in stdlib:
                    problems.append(f"{path}:{node.lineno}: imports {name}, not in the standard library")
        annotations = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            annotations = [a.annotation for a in node.args.args + node.args.kwonlyargs if a.annotation] + ([node.returns] if node.returns else [])
        elif isinstance(node, ast.AnnAssign):
            annotations = [node.annotation]
        for annotation in annotations if not future else []:
            for part in ast.walk(annotation):
                if isinstance(part, ast.BinOp) and isinstance(part.op, ast.BitOr):
                    problems.append(f"{path}:{part.lineno}: X | Y in an annotation needs 3.10")
print("\n".join(problems))
`;

describe("the Python SDK on Python 3.9", () => {
  it("parses with 3.9's grammar, annotates without 3.10 forms and imports only the standard library", () => {
    const run = spawnSync("python3", ["-c", CHECK, SDK], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("");
  });

  it("finds a 3.10 annotation when there is one (the check can fail)", () => {
    const run = spawnSync("python3", ["-c", CHECK, FIXTURE], { encoding: "utf8" });
    expect(run.stdout).toContain("X | Y in an annotation needs 3.10");
    expect(run.stdout).toContain("imports requests, not in the standard library");
  });
});
