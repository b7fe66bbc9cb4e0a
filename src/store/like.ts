/** A LIKE pattern matching `text` literally (with `ESCAPE '\'`): its `%`, `_` and `\` escaped. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
