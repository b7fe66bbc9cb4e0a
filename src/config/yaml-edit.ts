// The config file stays as its owner wrote it: a change made through the `yaml` Document API
// (a console save, the first-run set-up, a group's talk value) rewrites only the lines it
// changes. The library prints a whole document in its own style (flow maps padded, sequences
// indented, long strings folded, one space before a comment); here both the original and the
// edited document are printed in one style close to the file's, the two printouts compared line
// by line, and every line the edit left alone is taken back from the original text as written.
import { type Document, parseDocument, type ToStringOptions } from "yaml";

/**
 * `edited` (a document parsed from `original` and then changed) as text: `original`'s own
 * lines wherever the change did not reach, the library's print of the rest.
 */
export function printEdited(edited: Document, original: string): string {
  const options = styleOf(original);
  const printed = edited.toString(options);
  const before = parseDocument(original);
  if (before.errors.length > 0) return printed;
  const reprinted = before.toString(options);
  const originalLines = splitLines(original);
  const reprintedLines = splitLines(reprinted);
  // Only when the library's print keeps the file's lines one for one can lines be taken back.
  if (originalLines.length !== reprintedLines.length) return printed;
  const printedLines = splitLines(printed);
  // The comparison is quadratic: a file of thousands of lines is printed as the library does.
  if (reprintedLines.length * printedLines.length > MAX_COMPARED_CELLS) return printed;
  const merged = mergeLines(reprintedLines, printedLines, originalLines);
  const text = merged.join("\n");
  // Taken-back lines must mean what the edit means; if not (an unusual layout), the print is right.
  return sameDocument(text, printed) ? text : printed;
}

/** Lines × lines compared at most (~16 MB): a config of about 2,000 lines. */
const MAX_COMPARED_CELLS = 4_000_000;

/** The printing style the file itself uses, as far as the library lets it be chosen. */
function styleOf(text: string): ToStringOptions {
  return {
    // Never fold a long line: a line the user wrote stays one line.
    lineWidth: 0,
    // `{a: 1}` stays unpadded where the file writes flow collections unpadded.
    flowCollectionPadding: !/[{[][^\s\]}]/.test(text) || /[{[] \S/.test(text),
    // `- item` at the indentation of its key, as `key:\n- item`, where the file does so.
    indentSeq: !/^( *)[^\s#-][^\n]*:\n\1- /m.test(text),
  };
}

function splitLines(text: string): string[] {
  return text.split("\n");
}

/**
 * The edited lines, each line that also stands unchanged in the original's print (by a longest
 * common subsequence, in order) replaced with the original's line at that place.
 */
function mergeLines(reprinted: string[], printed: string[], original: string[]): string[] {
  const rows = reprinted.length;
  const columns = printed.length;
  // common[i][j]: the longest common subsequence of reprinted[i…] and printed[j…].
  const common = Array.from({ length: rows + 1 }, () => new Uint32Array(columns + 1));
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = columns - 1; j >= 0; j--) {
      common[i]![j] =
        reprinted[i] === printed[j]
          ? common[i + 1]![j + 1]! + 1
          : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const merged: string[] = [];
  let i = 0;
  let j = 0;
  while (j < columns || i < rows) {
    if (i < rows && j < columns && reprinted[i] === printed[j]) {
      merged.push(original[i]!);
      i++;
      j++;
      continue;
    }
    // A run of changed lines up to the next common one: the original's lines it replaces, the new ones.
    const replacedFrom = i;
    const addedFrom = j;
    while (i < rows || j < columns) {
      if (i < rows && j < columns && reprinted[i] === printed[j]) break;
      if (i < rows && (j >= columns || common[i + 1]![j]! >= common[i]![j + 1]!)) i++;
      else j++;
    }
    const replaced = original.slice(replacedFrom, i);
    const added = printed.slice(addedFrom, j);
    // One line changed for one: its comment keeps the spacing the file gave it.
    merged.push(
      ...(replaced.length === added.length
        ? added.map((line, index) => withCommentSpacingOf(line, replaced[index]!))
        : added),
    );
  }
  return merged;
}

/** `line` with its trailing comment spaced as `written` spaces the same comment. */
function withCommentSpacingOf(line: string, written: string): string {
  for (let at = line.indexOf(" #"); at !== -1; at = line.indexOf(" #", at + 1)) {
    const comment = line.slice(at + 1);
    if (!written.endsWith(comment)) continue;
    const spacing = /\s+$/.exec(written.slice(0, -comment.length))?.[0];
    return spacing === undefined ? line : `${line.slice(0, at)}${spacing}${comment}`;
  }
  return line;
}

/** Whether two texts hold the same values and the same comments. */
function sameDocument(a: string, b: string): boolean {
  const left = parseDocument(a);
  const right = parseDocument(b);
  if (left.errors.length > 0 || right.errors.length > 0) return false;
  const options = { lineWidth: 0 };
  return (
    JSON.stringify(left.toJS()) === JSON.stringify(right.toJS()) &&
    left.toString(options) === right.toString(options)
  );
}
