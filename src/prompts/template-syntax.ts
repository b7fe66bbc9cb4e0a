/**
 * The template syntax: `{{name}}` is replaced by the value of `name`, nothing else is
 * special. A line holding only a placeholder whose value is empty is left out with its line
 * break, so an optional part (a quote, extra requirements) leaves no blank line behind.
 */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const LONE_PLACEHOLDER = /^\{\{([^{}]*)\}\}$/;

/** The names a template text uses, each once, in order of first use. */
export function placeholdersIn(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(PLACEHOLDER), (match) => match[1]!))];
}

/** One line of a template, split once into literal text and placeholder names. */
interface TemplateLine {
  /** The placeholder the line holds alone: the line is left out when its value is empty. */
  lone: string | undefined;
  /** Literal text at even indexes, placeholder names at odd ones. */
  pieces: string[];
}

/** A template parsed once, rendered many times (prompts are rendered several times per turn). */
export type CompiledTemplate = (values: Readonly<Record<string, string>>) => string;

export function compileTemplate(text: string): CompiledTemplate {
  const lines: TemplateLine[] = text.split("\n").map((line) => ({
    lone: LONE_PLACEHOLDER.exec(line)?.[1],
    // split with a capturing group alternates text and the captured names.
    pieces: line.split(PLACEHOLDER),
  }));
  return (values) => {
    let rendered = "";
    let first = true;
    for (const { lone, pieces } of lines) {
      if (lone !== undefined && values[lone] === "") continue;
      let line = pieces[0]!;
      for (let i = 1; i < pieces.length; i += 2) line += (values[pieces[i]!] ?? "") + pieces[i + 1]!;
      rendered += first ? line : `\n${line}`;
      first = false;
    }
    return rendered;
  };
}

/** A template as written in a file or the config: line breaks as `\n`, the final one not part of the text. */
export function templateText(written: string): string {
  return written.replace(/\r\n/g, "\n").replace(/\n$/, "");
}
