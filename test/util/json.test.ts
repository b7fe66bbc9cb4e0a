import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonLossless } from "../../src/util/json.ts";

/** A JSON tree whose integers may be bigints, so they can be written beyond 2^53. */
type Tree = null | boolean | number | bigint | string | Tree[] | { [key: string]: Tree };

const trickyString = fc.oneof(
  fc.string({ unit: "binary" }),
  fc
    .array(fc.constantFrom("1", "9", "0", "-", '"', "\\", ",", ":", "[", "{", "e", " "), { maxLength: 40 })
    .map((chars) => chars.join("")),
  fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map((n) => `${n}`),
);

const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small" },
    fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    trickyString,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("tree"), { maxLength: 5 }),
    fc.dictionary(trickyString, tie("tree"), { maxKeys: 5 }),
  ),
}));

function serialize(value: Tree, separator: string): string {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value))
    return `[${value.map((item) => serialize(item, separator)).join(`,${separator}`)}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(
      ([key, item]) => `${JSON.stringify(key)}:${separator}${serialize(item, separator)}`,
    );
    return `{${separator}${members.join(`,${separator}`)}${separator}}`;
  }
  return JSON.stringify(value);
}

/** What a reader of the text must get: every unsafe integer literal as its exact digits. */
function expected(value: Tree): unknown {
  if (Array.isArray(value)) return value.map(expected);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expected(item)]));
  }
  const literal = serialize(value, "");
  const unsafeInteger = /^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal));
  return unsafeInteger ? literal : JSON.parse(literal);
}

describe("parseJsonLossless", () => {
  it("keeps a 19-digit forward id sent as a JSON number exactly", () => {
    const frame = '{"type":"forward","data":{"id":7321873298371293187}}';
    expect(parseJsonLossless(frame)).toEqual({ type: "forward", data: { id: "7321873298371293187" } });
    // What plain JSON.parse would have handed on: a different forward.
    expect(String((JSON.parse(frame) as { data: { id: number } }).data.id)).not.toBe("7321873298371293187");
  });

  it("keeps negative big ids exactly and leaves safe integers as numbers", () => {
    const text =
      "[-9223372036854775808, 9007199254740991, -9007199254740991, 9007199254740992, 1000000000000000]";
    expect(parseJsonLossless(text)).toEqual([
      "-9223372036854775808",
      9007199254740991,
      -9007199254740991,
      "9007199254740992",
      1000000000000000,
    ]);
  });

  it("leaves digits inside strings alone, across escaped quotes and backslashes", () => {
    const text = String.raw`{"a":"x\"12345678901234567890\" y","b":"\\","n":12345678901234567890,"c":"\\\"99999999999999999999"}`;
    expect(parseJsonLossless(text)).toEqual({
      a: 'x"12345678901234567890" y',
      b: "\\",
      n: "12345678901234567890",
      c: '\\"99999999999999999999',
    });
  });

  it("leaves floats and exponents as numbers", () => {
    const text =
      "[12345678901234567890.5, 12345678901234567890e3, 1.2345678901234567890E+30, -12345678901234567890e-2]";
    expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
  });

  it("throws a SyntaxError for malformed JSON, including big numbers where no value may stand", () => {
    for (const text of [
      "",
      '{"a":12345678901234567890',
      "{12345678901234567890:1}",
      '{"a":1,12345678901234567890:1}',
      "012345678901234567890",
      "[-012345678901234567890]",
      "[12345678901234567890 12345678901234567890]",
      '"12345678901234567890',
    ]) {
      expect(() => parseJsonLossless(text), text).toThrow(SyntaxError);
    }
  });

  it("reads any JSON text with exact big integers, whatever its spacing", () => {
    fc.assert(
      fc.property(tree, fc.constantFrom("", " ", "\n\t"), (value, separator) => {
        expect(parseJsonLossless(serialize(value, separator))).toEqual(expected(value));
      }),
      { numRuns: 500 },
    );
  });

  it("rejects exactly the texts JSON.parse rejects", () => {
    const jsonish = fc
      .array(
        fc.constantFrom(
          "1",
          "0",
          "-",
          ".",
          "e",
          '"',
          "\\",
          ",",
          ":",
          "[",
          "]",
          "{",
          "}",
          " ",
          "12345678901234567890",
        ),
        { maxLength: 30 },
      )
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(
        fc.oneof(
          jsonish,
          tree.map((value) => serialize(value, "")),
        ),
        (text) => {
          let standardThrew = false;
          try {
            JSON.parse(text);
          } catch {
            standardThrew = true;
          }
          if (standardThrew) expect(() => parseJsonLossless(text)).toThrow(SyntaxError);
          else expect(() => parseJsonLossless(text)).not.toThrow();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("parses 20,000 event frames holding a big id in well under a second", () => {
    const frame = JSON.stringify({
      post_type: "message",
      message_type: "group",
      group_id: 123456789,
      user_id: 1234567890,
      message_id: -2147483000,
      raw_message: "看看这个[CQ:forward,id=7321873298371293187]",
      message: [{ type: "forward", data: { id: "FORWARD_ID" } }],
    }).replace('"FORWARD_ID"', "7321873298371293187");
    const started = performance.now();
    for (let i = 0; i < 20_000; i++) parseJsonLossless(frame);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(parseJsonLossless(frame)).toMatchObject({ message: [{ data: { id: "7321873298371293187" } }] });
  });
});
