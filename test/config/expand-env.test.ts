// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${VAR} references in config text.
import { describe, expect, it } from "vitest";
import { expandEnv, expandEnvInString } from "../../src/config/expand-env.ts";

describe("expandEnvInString", () => {
  const env = { HOST: "example.org", EMPTY: "" };

  it("replaces ${VAR} with its value and an unset VAR with nothing", () => {
    expect(expandEnvInString("https://${HOST}/v1", env)).toBe("https://example.org/v1");
    expect(expandEnvInString("key=${MISSING}", env)).toBe("key=");
  });

  it("uses the default of ${VAR:-default} when VAR is unset or empty, like a shell", () => {
    expect(expandEnvInString("${MISSING:-x}", env)).toBe("x");
    expect(expandEnvInString("${EMPTY:-fallback value}", env)).toBe("fallback value");
    expect(expandEnvInString("${HOST:-x}", env)).toBe("example.org");
    expect(expandEnvInString("${MISSING:-}", env)).toBe("");
  });

  it("keeps $${VAR} and text that is not a reference as written", () => {
    expect(expandEnvInString("$${HOST}", env)).toBe("${HOST}");
    expect(expandEnvInString("costs $5, ${not valid}, ${1X}", env)).toBe("costs $5, ${not valid}, ${1X}");
  });
});

describe("expandEnv", () => {
  it("expands string values in nested objects and arrays but never keys", () => {
    const parsed = {
      "${KEY}": "${KEY}",
      list: ["${KEY:-a}", 3, true, null, { deep: "${KEY}" }],
    };
    expect(expandEnv(parsed, { KEY: "v" })).toEqual({
      "${KEY}": "v",
      list: ["v", 3, true, null, { deep: "v" }],
    });
  });
});
