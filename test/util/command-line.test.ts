import { describe, expect, it } from "vitest";
import { CONFIG_OPTION, parseCommandLine, UsageError } from "../../src/util/command-line.ts";

const BACKUP = {
  usage: "usage: backup [FILE]",
  options: { ...CONFIG_OPTION, yes: { type: "boolean" } },
  positionals: { max: 1 },
} as const;
const PLUGIN = {
  usage: "usage: plugin install <spec> | list",
  options: CONFIG_OPTION,
  commands: { install: [1, 1], list: [0, 0] },
} as const;

function refusal(argv: string[], spec: Parameters<typeof parseCommandLine>[1] = BACKUP): string {
  try {
    parseCommandLine(argv, spec);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`${argv.join(" ")} was accepted`);
}

describe("parseCommandLine", () => {
  it("reads --config FILE, --config=FILE, flags and positional words", () => {
    expect(parseCommandLine(["--config", "a.yaml", "out.db"], BACKUP)).toMatchObject({
      values: { config: "a.yaml" },
      positionals: ["out.db"],
    });
    expect(parseCommandLine(["--config=b.yaml", "--yes"], BACKUP)).toMatchObject({
      values: { config: "b.yaml", yes: true },
    });
    expect(parseCommandLine(["install", "pkg"], PLUGIN)).toMatchObject({ positionals: ["install", "pkg"] });
  });

  it("names the argument it does not understand, in a line of its own words", () => {
    expect(refusal(["--confg", "a.yaml"])).toBe('unknown option "--confg"');
    expect(refusal(["-c", "a.yaml"])).toBe('unknown option "-c"');
    expect(refusal(["--config"])).toBe("--config needs a value");
    expect(refusal(["--config="])).toBe("--config needs a value");
    expect(refusal(["--config", "--yes"])).toBe("--config needs a value");
    expect(refusal(["--yes=no"])).toBe("--yes takes no value");
    expect(refusal(["a.db", "b.db"])).toBe('unexpected argument "b.db"');
    expect(refusal(["x.yaml", "y.yaml"])).toBe(
      'unexpected argument "y.yaml" (a config file is given with --config y.yaml)',
    );
  });

  it("checks sub-commands and the words each takes", () => {
    expect(refusal([], PLUGIN)).toBe("missing command");
    expect(refusal(["instal", "pkg"], PLUGIN)).toBe('unknown command "instal"');
    expect(refusal(["install"], PLUGIN)).toBe("install: missing argument");
    expect(refusal(["list", "all"], PLUGIN)).toBe('unexpected argument "all"');
    expect(refusal(["toString"], PLUGIN)).toBe('unknown command "toString"');
  });

  it("answers help for --help and -h wherever they stand", () => {
    expect(parseCommandLine(["--help"], BACKUP)).toBe("help");
    expect(parseCommandLine(["install", "-h"], PLUGIN)).toBe("help");
  });
});
