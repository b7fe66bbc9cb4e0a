import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TEMPLATE_NAMES, TEMPLATE_PLACEHOLDERS } from "../../src/prompts/catalogue.ts";

const doc = readFileSync(new URL("../../docs/prompts.md", import.meta.url), "utf8");

/** The template rows of one half's table: template name → the placeholders cell as written. */
function templateRows(half: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const match of half.matchAll(/^\| `([a-z_]+)` \| ([^|]+) \|/gm)) rows.set(match[1]!, match[2]!.trim());
  return rows;
}

describe("docs/prompts.md", () => {
  const chineseStart = doc.indexOf("\n# 中文");
  const halves = { English: doc.slice(0, chineseStart), 中文: doc.slice(chineseStart) };

  for (const [language, half] of Object.entries(halves)) {
    it(`lists every template with exactly its placeholders (${language})`, () => {
      const expected = new Map(
        TEMPLATE_NAMES.map((name) => {
          const placeholders: readonly string[] = TEMPLATE_PLACEHOLDERS[name];
          return [name, placeholders.length > 0 ? placeholders.map((p) => `\`${p}\``).join(", ") : "—"];
        }),
      );
      expect(templateRows(half)).toEqual(expected);
    });
  }
});
