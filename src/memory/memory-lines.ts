import type { ZonedClock } from "../context/clock-text.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { MemoryEntry } from "./types.ts";
import { userIdOf } from "./visibility.ts";

/** One memory as the models read it: `- [#12] 张三(10001)：下周二要去成都出差（2026-11-30）`. */
export function memoryLine(entry: MemoryEntry, prompts: PromptTemplates, clock: ZonedClock): string {
  const userId = userIdOf(entry.subject);
  return prompts.render("memory_line", {
    id: String(entry.id),
    about: userId === undefined ? prompts.render("memory_about_group") : `${entry.subjectName}(${userId})`,
    content: entry.content,
    date: clock.date(entry.confirmedAt),
  });
}

/**
 * The entries' lines in order while they fit `maxChars` (a line that does not fit is skipped,
 * a shorter one after it may still fit), at most `maxLines`.
 */
export function linesWithin(
  entries: MemoryEntry[],
  render: (entry: MemoryEntry) => string,
  maxLines: number,
  maxChars: number,
): { lines: string[]; shown: MemoryEntry[] } {
  const lines: string[] = [];
  const shown: MemoryEntry[] = [];
  let chars = 0;
  for (const entry of entries) {
    if (lines.length >= maxLines) break;
    const line = render(entry);
    if (chars + line.length > maxChars) continue;
    chars += line.length + 1;
    lines.push(line);
    shown.push(entry);
  }
  return { lines, shown };
}
