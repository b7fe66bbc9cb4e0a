// Regenerates the config key table in README.md from the config schema: `npm run docs:config`.
import { readFileSync, writeFileSync } from "node:fs";
import { configKeyTable } from "../src/config/key-table.ts";

const START = "<!-- config-keys:start -->";
const END = "<!-- config-keys:end -->";
const readme = readFileSync("README.md", "utf8");
const start = readme.indexOf(START);
const end = readme.indexOf(END);
if (start === -1 || end === -1) throw new Error(`README.md needs ${START} and ${END} markers`);
writeFileSync(
  "README.md",
  `${readme.slice(0, start + START.length)}\n${configKeyTable()}\n${readme.slice(end)}`,
);
