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

describe("README", () => {
  it("documents every config key exactly as the schema defines it (run npm run docs:config)", () => {
    const start = readme.indexOf("<!-- config-keys:start -->");
    const end = readme.indexOf("<!-- config-keys:end -->");
    const section = readme.slice(start, end);
    expect(section).toContain(configKeyTable());
    expect(section).toContain("`chat.quote.maxDepth`");
  });

  it("documents every config key in Chinese in the Chinese half's 配置项 section (run npm run docs:config)", () => {
    const chineseHalf = readme.slice(readme.indexOf("# 中文"));
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

  it("shows the two commands in English and Chinese", () => {
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm test");
    expect(readme).toContain("两条命令");
  });
});
