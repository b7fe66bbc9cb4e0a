import { describe, expect, it } from "vitest";
import { ReplyAttachments, textGroup, toOutgoing } from "../../src/reply/reply-group.ts";
import type { ReplyMessage, ReplySegment } from "../../src/sdk/types.ts";
import { audioFormat } from "../../src/util/audio-format.ts";

const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/** The smallest WAV header a player accepts, with two samples. */
const WAV = (() => {
  const bytes = Buffer.alloc(48);
  bytes.write("RIFF", 0, "ascii");
  bytes.writeUInt32LE(40, 4);
  bytes.write("WAVEfmt ", 8, "ascii");
  bytes.writeUInt32LE(16, 16);
  bytes.writeUInt16LE(1, 20);
  bytes.writeUInt16LE(1, 22);
  bytes.writeUInt32LE(8000, 24);
  bytes.writeUInt32LE(16000, 28);
  bytes.writeUInt16LE(2, 32);
  bytes.writeUInt16LE(16, 34);
  bytes.write("data", 36, "ascii");
  bytes.writeUInt32LE(4, 40);
  return bytes.toString("base64");
})();

const one = (...segments: ReplySegment[]): ReplyMessage[] => [{ segments, quote_previous: false }];
const admitted = (group: ReplyMessage[]) => new ReplyAttachments().admit(group);
const problem = (group: ReplyMessage[]) => {
  try {
    admitted(group);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the group was admitted");
};

describe("the reply message group (reply extension payloads)", () => {
  it("maps every seed segment type to the OneBot segment QQ receives", () => {
    const group = admitted(
      one(
        { type: "text", data: "你好" },
        { type: "at", data: "30001" },
        { type: "reply", data: "-2147483000" },
        { type: "forward", data: "7400000000000000001" },
        { type: "image", data: "猫", binary_data_base64: PIXEL },
        { type: "emoji", data: "", binary_data_base64: PIXEL },
        { type: "voice", data: "你好", binary_data_base64: WAV },
        { type: "file", data: "notes.txt", binary_data_base64: "aGVsbG8=" },
        { type: "dict", data: { type: "poke", data: { type: "1", id: "-1" } } },
      ),
    );
    expect(toOutgoing(group)[0]!.segments).toEqual([
      { type: "text", data: { text: "你好" } },
      { type: "at", data: { qq: "30001" } },
      { type: "reply", data: { id: "-2147483000" } },
      { type: "forward", data: { id: "7400000000000000001" } },
      { type: "image", data: { file: `base64://${PIXEL}` } },
      { type: "image", data: { file: `base64://${PIXEL}`, sub_type: "1" } },
      { type: "record", data: { file: `base64://${WAV}` } },
      { type: "file", data: { file: "base64://aGVsbG8=", name: "notes.txt" } },
      { type: "poke", data: { type: "1", id: "-1" } },
    ]);
  });

  it("turns the replyer's chunks into unquoted text messages", () => {
    expect(textGroup(["一", "二"])).toEqual([
      { segments: [{ type: "text", data: "一" }], quote_previous: false },
      { segments: [{ type: "text", data: "二" }], quote_previous: false },
    ]);
  });

  it("lets an image already in the reply come back by hash, but not an unknown one", () => {
    const attachments = new ReplyAttachments();
    const [first] = attachments.admit(one({ type: "image", data: "", binary_data_base64: PIXEL }));
    const hash = (first!.segments[0] as { hash: string }).hash;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const [again] = attachments.admit(one({ type: "emoji", data: "", hash }));
    expect(toOutgoing([again!])[0]!.segments).toEqual([
      { type: "image", data: { file: `base64://${PIXEL}`, sub_type: "1" } },
    ]);
    expect(() => new ReplyAttachments().admit(one({ type: "image", data: "", hash }))).toThrow(
      `hash ${hash} is not an attachment of this reply`,
    );
  });

  it("refuses what cannot be sent, saying which message and segment", () => {
    expect(problem([])).toBe("returned an empty message group");
    expect(problem([{ segments: [], quote_previous: true }])).toBe("message 1 has no segments");
    expect(problem(one({ type: "text", data: "" }))).toContain(
      "message 1, segment 1 (text): data must be text",
    );
    expect(problem(one({ type: "image", data: "" }))).toContain("a new attachment needs binary_data_base64");
    expect(problem(one({ type: "voice", data: "你好", binary_data_base64: "" }))).toContain(
      "binary_data_base64 must not be empty",
    );
    expect(problem(one({ type: "voice", data: "你好", binary_data_base64: "not base64!" }))).toContain(
      "binary_data_base64 is not valid Base64",
    );
    expect(problem(one({ type: "voice", data: "你好", binary_data_base64: PIXEL }))).toContain(
      "binary_data_base64 is not audio",
    );
    expect(
      problem([
        ...one({ type: "text", data: "ok" }),
        ...one({
          type: "dict",
          data: { type: "face" } as unknown as { type: string; data: Record<string, unknown> },
        }),
      ]),
    ).toContain("message 2, segment 1 (dict): data must be a OneBot segment");
  });

  it("takes a voice message of several megabytes", () => {
    const header = Buffer.from(WAV, "base64").subarray(0, 44);
    const long = Buffer.concat([header, Buffer.alloc(6 * 1024 * 1024, 7)]).toString("base64");
    const [voice] = admitted(one({ type: "voice", data: "很长的一段话", binary_data_base64: long }));
    expect(toOutgoing([voice!])[0]!.segments).toEqual([
      { type: "record", data: { file: `base64://${long}` } },
    ]);
    expect(problem(one({ type: "voice", data: "", binary_data_base64: long.slice(1) }))).toContain(
      "is not valid Base64",
    );
  });

  it("recognises the audio containers QQ implementations convert", () => {
    const starts = (text: string, offset = 0) =>
      Buffer.concat([Buffer.alloc(offset), Buffer.from(text, "latin1"), Buffer.alloc(8)]);
    expect(audioFormat(Buffer.from(WAV, "base64"))).toBe("wav");
    expect(audioFormat(starts("OggS"))).toBe("ogg");
    expect(audioFormat(starts("ID3"))).toBe("mp3");
    expect(audioFormat(Buffer.from([0xff, 0xfb, 0x90, 0x00]))).toBe("mp3");
    expect(audioFormat(starts("#!AMR\n"))).toBe("amr");
    expect(audioFormat(starts("\x02#!SILK_V3"))).toBe("silk");
    expect(audioFormat(starts("fLaC"))).toBe("flac");
    expect(audioFormat(starts("ftypM4A ", 4))).toBe("m4a");
    expect(audioFormat(Buffer.from(PIXEL, "base64"))).toBeUndefined();
  });
});
