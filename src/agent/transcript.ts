/**
 * The newest history lines that fit: at most `maxMessages` messages and `maxChars`
 * characters, dropping the oldest first. Returned oldest first.
 */
export function boundedHistory(lines: string[], maxMessages: number, maxChars: number): string[] {
  const kept: string[] = [];
  let chars = 0;
  for (let i = lines.length - 1; i >= 0 && kept.length < maxMessages; i--) {
    const line = lines[i]!;
    if (chars + line.length > maxChars) break;
    chars += line.length + 1;
    kept.push(line);
  }
  return kept.reverse();
}
