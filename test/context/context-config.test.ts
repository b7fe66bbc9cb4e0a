import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/validate.ts";

const validate = validateConfig;

describe("chat.timezone and chat.summary", () => {
  it("default to the system zone and the default summary command", () => {
    const result = validate({});
    if (!result.ok) throw new Error(result.problems.join("; "));
    expect(result.config.chat.timezone).toBe("");
    expect(result.config.chat.summary).toEqual({
      commands: ["/summary", "/总结"],
      count: 100,
      maxCount: 200,
      maxTranscriptChars: 20_000,
    });
  });

  it("accepts an IANA zone and names a bad one", () => {
    expect(validate({ chat: { timezone: "Asia/Shanghai" } }).ok).toBe(true);
    const bad = validate({ chat: { timezone: "Mars/Olympus" } });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems).toEqual(['chat.timezone: must be an IANA time zone such as "Asia/Shanghai"']);
  });
});
