import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { keyDescriptionsZh } from "../../src/config/key-descriptions-zh.ts";
import {
  chineseDescriptionId,
  configKeyRows,
  configKeyTable,
  requireChineseDescriptions,
} from "../../src/config/key-table.ts";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const readmeZh = readFileSync(new URL("../../README.zh-CN.md", import.meta.url), "utf8");
/** The key tables, generated into docs/config.md by scripts/update-readme-config.ts. */
const keysDoc = readFileSync(new URL("../../docs/config.md", import.meta.url), "utf8");

describe("README and docs/config.md", () => {
  it("documents every config key exactly as the schema defines it (run npm run docs:config)", () => {
    const start = keysDoc.indexOf("<!-- config-keys:start -->");
    const end = keysDoc.indexOf("<!-- config-keys:end -->");
    const section = keysDoc.slice(start, end);
    expect(section).toContain(configKeyTable());
    expect(section).toContain("`chat.quote.maxDepth`");
  });

  it("documents every config key in Chinese in the Chinese half's 配置项 section (run npm run docs:config)", () => {
    const chineseHalf = keysDoc.slice(keysDoc.indexOf("# 中文"));
    const keysSection = chineseHalf.slice(
      chineseHalf.indexOf("## 配置项"),
      chineseHalf.indexOf("\n## ", chineseHalf.indexOf("## 配置项") + 1),
    );
    const start = keysSection.indexOf("<!-- config-keys-zh:start -->");
    const end = keysSection.indexOf("<!-- config-keys-zh:end -->");
    expect(start).toBeGreaterThan(-1);
    const table = keysSection.slice(start, end);
    expect(table).toContain(configKeyTable("zh"));
    expect(table).toContain("| `chat.quote.maxDepth` | `2` | 嵌套的合并转发最多展开几层 |");
    expect(table).toContain("（`mode` 为 `http` 时）");
  });

  it("has a Chinese description for every config key and none for keys that do not exist", () => {
    const rows = configKeyRows();
    for (const row of rows.filter((r) => !r.choices)) {
      expect(keyDescriptionsZh[chineseDescriptionId(row)], chineseDescriptionId(row)).toBeTruthy();
    }
    expect(() => requireChineseDescriptions(rows, keyDescriptionsZh)).not.toThrow();

    const { "chat.quote.maxDepth": _removed, ...withoutOne } = keyDescriptionsZh;
    const drifted = { ...withoutOne, "chat.quote.gone": "已删除的配置项" };
    expect(() => requireChineseDescriptions(rows, drifted)).toThrow(
      /without a Chinese description: chat\.quote\.maxDepth[\s\S]*do not exist: chat\.quote\.gone/,
    );
  });

  it("is a front door: a numbered quick start on the first screen, a Chinese twin, under 300 lines", () => {
    for (const [text, steps] of [
      [readme, ["npm install", "npm start", "console", "model", "NapCat", "@"]],
      [readmeZh, ["npm install", "npm start", "控制台", "模型", "NapCat", "@"]],
    ] as const) {
      const lines = text.split("\n");
      expect(lines.length).toBeLessThan(300);
      // The first screen: what it is, then the quick start's numbered steps in order.
      const firstScreen = lines.slice(0, 60).join("\n");
      const numbered = firstScreen.split("\n").filter((line) => /^\d+\. /.test(line));
      expect(numbered.length).toBeGreaterThanOrEqual(steps.length);
      let at = 0;
      for (const step of steps) {
        const found = numbered.findIndex((line, index) => index >= at && line.includes(step));
        expect(found, step).toBeGreaterThanOrEqual(at);
        at = found;
      }
      expect(text).toContain("npm test");
    }
    expect(readme.split("\n").slice(0, 5).join("\n")).toContain("(README.zh-CN.md)");
    expect(readmeZh.split("\n").slice(0, 5).join("\n")).toContain("(README.md)");
    expect(readme).toContain("(docs/config.md)");
    expect(readmeZh).toContain("(docs/config.md#中文)");
  });

  it("names the Node versions package.json's engines admits", () => {
    const { engines } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(engines.node).toBe("^20.19.0 || >=22.12.0");
    expect(readme).toContain("Node.js 20.19+ or 22.12+");
    expect(readmeZh).toContain("Node.js 20.19+ 或 22.12+");
  });
});
