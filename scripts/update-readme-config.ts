// Regenerates the config key tables in README.md (English and Chinese) from the config schema:
// `npm run docs:config`.
import { readFileSync, writeFileSync } from "node:fs";
import { configKeyTable } from "../src/config/key-table.ts";

/** Replaces what lies between the two markers; throws when either is missing. */
function replaceBetween(text: string, start: string, end: string, content: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`README.md needs ${start} and ${end} markers`);
  return `${text.slice(0, from + start.length)}\n${content}\n${text.slice(to)}`;
}

// Both tables are built before anything is written, so a missing Chinese description leaves
// README.md untouched.
const english = configKeyTable("en");
const chinese = configKeyTable("zh");
const readme = readFileSync("README.md", "utf8");
const withEnglish = replaceBetween(readme, "<!-- config-keys:start -->", "<!-- config-keys:end -->", english);
writeFileSync(
  "README.md",
  replaceBetween(withEnglish, "<!-- config-keys-zh:start -->", "<!-- config-keys-zh:end -->", chinese),
);
