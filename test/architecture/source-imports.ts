import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Reading src/ as a graph of files and their relative imports, for the architecture tests. */

export const repo = fileURLToPath(new URL("../../", import.meta.url));

/** Every source file under src/, by its path relative to src/ (posix separators). */
export function sourceFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(ts|mts|mjs)$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(root, path).split("\\").join("/"), readFileSync(path, "utf8"));
  }
  return files;
}

/** Relative specifiers of `import`, `import type`, `export … from`, `import("…")` and `import("…").Type`. */
export function importsOf(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push(argument.text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((specifier) => specifier.startsWith("."));
}

/** The files a file imports, as paths relative to src/ like the file's own. */
export function importedFiles(path: string, text: string): string[] {
  return importsOf(path, text).map((specifier) => posix.normalize(posix.join(dirname(path), specifier)));
}
