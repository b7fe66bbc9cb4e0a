/**
 * One declared parameter of a function, read from its source: a plain name (with or
 * without a default), or a destructuring pattern / rest parameter, which has no one name.
 */
export type DeclaredParameter = { kind: "name"; name: string } | { kind: "pattern" } | { kind: "rest" };

const PLAIN_ARROW = /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*/;
const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/**
 * The parameters a function declares, from `fn.toString()` (plugin code is plain JavaScript
 * by then: tsx strips the types). Handles function declarations and expressions, methods,
 * async and arrow functions, defaults holding calls, strings or templates, and comments.
 * Native or bound functions show no list and yield none.
 */
export function declaredParameters(fn: (...args: never[]) => unknown): DeclaredParameter[] {
  const source = fn.toString();
  const arrow = PLAIN_ARROW.exec(source);
  if (arrow) return [{ kind: "name", name: arrow[1]! }];
  const open = source.indexOf("(");
  if (open === -1) return [];
  return splitTopLevel(source, open + 1).map(classify);
}

/** The comma-separated pieces from `start` to the `)` closing the list, comments dropped. */
function splitTopLevel(source: string, start: number): string[] {
  const pieces: string[] = [];
  const closers: string[] = [];
  let piece = "";
  for (let index = start; index < source.length; index++) {
    const char = source[index]!;
    const next = source[index + 1];
    if (char === "/" && (next === "/" || next === "*")) {
      const end = next === "/" ? source.indexOf("\n", index) : source.indexOf("*/", index + 2) + 1;
      index = end <= 0 ? source.length : end;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") {
      const end = closingQuote(source, index);
      piece += source.slice(index, end + 1);
      index = end;
      continue;
    }
    if (OPENERS[char]) closers.push(OPENERS[char]);
    else if (closers.length > 0 && char === closers.at(-1)) closers.pop();
    else if (closers.length === 0 && (char === ")" || char === ",")) {
      if (piece.trim()) pieces.push(piece.trim());
      piece = "";
      if (char === ")") break;
      continue;
    }
    piece += char;
  }
  return pieces;
}

/** The index of the quote closing the string that opens at `start` (a template nested in a template is not followed). */
function closingQuote(source: string, start: number): number {
  const quote = source[start];
  for (let index = start + 1; index < source.length; index++) {
    if (source[index] === "\\") index++;
    else if (source[index] === quote) return index;
  }
  return source.length;
}

function classify(piece: string): DeclaredParameter {
  if (piece.startsWith("...")) return { kind: "rest" };
  const name = IDENTIFIER.exec(piece);
  return name ? { kind: "name", name: name[0] } : { kind: "pattern" };
}
