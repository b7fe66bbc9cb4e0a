import { describe, expect, it } from "vitest";
import { formatBytes, formatDuration } from "../../src/models/progress-text.ts";

describe("download progress text", () => {
  it("writes sizes in the largest fitting unit", () => {
    expect(formatBytes(812)).toBe("812 B");
    expect(formatBytes(3.4 * 1024 * 1024)).toBe("3.4 MB");
    expect(formatBytes(1_117_320_736)).toBe("1.0 GB");
  });

  it("writes an ETA as m:ss, rounded up", () => {
    expect(formatDuration(0.2)).toBe("0:01");
    expect(formatDuration(125)).toBe("2:05");
  });
});
