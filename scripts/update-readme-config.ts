// Regenerates the config key tables in docs/config.md (English and Chinese) from the config
// schema: `npm run docs:config`. (The README links there; it once held the tables itself.)
import { readFileSync, writeFileSync } from "node:fs";
import { configKeyTable } from "../src/config/key-table.ts";

const KEYS_DOC = "docs/config.md";

/** Replaces what lies between the two markers; throws when either is missing. */
function replaceBetween(text: string, start: string, end: string, content: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`${KEYS_DOC} needs ${start} and ${end} markers`);
  return `${text.slice(0, from + start.length)}\n${content}\n${text.slice(to)}`;
}

// Both tables are built before anything is written, so a missing Chinese description leaves
// the file untouched.
const english = configKeyTable("en");
const chinese = configKeyTable("zh");
const doc = readFileSync(KEYS_DOC, "utf8");
const withEnglish = replaceBetween(doc, "<!-- config-keys:start -->", "<!-- config-keys:end -->", english);
writeFileSync(
  KEYS_DOC,
  replaceBetween(withEnglish, "<!-- config-keys-zh:start -->", "<!-- config-keys-zh:end -->", chinese),
);
