import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configKeyTable } from "../../src/config/key-table.ts";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("README", () => {
  it("documents every config key exactly as the schema defines it (run npm run docs:config)", () => {
    const start = readme.indexOf("<!-- config-keys:start -->");
    const end = readme.indexOf("<!-- config-keys:end -->");
    const section = readme.slice(start, end);
    expect(section).toContain(configKeyTable());
    expect(section).toContain("`chat.quote.maxDepth`");
  });

  it("shows the two commands in English and Chinese", () => {
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm test");
    expect(readme).toContain("两条命令");
  });
});
