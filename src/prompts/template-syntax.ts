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

export function renderTemplate(text: string, values: Readonly<Record<string, string>>): string {
  return text
    .split("\n")
    .filter((line) => {
      const alone = LONE_PLACEHOLDER.exec(line);
      return alone === null || values[alone[1]!] !== "";
    })
    .map((line) => line.replace(PLACEHOLDER, (_whole, name: string) => values[name] ?? ""))
    .join("\n");
}

/** A template as written in a file or the config: line breaks as `\n`, the final one not part of the text. */
export function templateText(written: string): string {
  return written.replace(/\r\n/g, "\n").replace(/\n$/, "");
}
