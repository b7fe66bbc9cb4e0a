import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeSegments } from "../../src/message/normalize.ts";
import { isKnownSegment, type Segment } from "../../src/message/segment.ts";
import { parseJsonLossless } from "../../src/util/json.ts";

/** One message holding every segment type, ids as numbers the way implementations send them. */
const everyTypeArray = [
  { type: "text", data: { text: "看[这]个, & " } },
  { type: "face", data: { id: 14 } },
  {
    type: "image",
    data: {
      file: "abc.jpg",
      url: "https://example.com/a?b=1&c=2",
      summary: "[动画表情]",
      sub_type: 1,
      file_size: 2048,
    },
  },
  { type: "record", data: { file: "voice.amr" } },
  { type: "video", data: { file: "clip.mp4", url: "https://example.com/v" } },
  { type: "at", data: { qq: 10001, name: "小明" } },
  { type: "reply", data: { id: -2147483000 } },
  { type: "forward", data: { id: "7321873298371293187" } },
  {
    type: "node",
    data: {
      user_id: 10002,
      nickname: "小红",
      content: [
        { type: "text", data: { text: "内层" } },
        { type: "face", data: { id: 1 } },
      ],
    },
  },
  { type: "file", data: { file: "report.pdf", name: "report.pdf", file_size: 123456 } },
  { type: "json", data: { data: '{"app":"com.tencent.miniapp","desc":"a,b"}' } },
  { type: "xml", data: { data: '<msg a="1"/>' } },
  { type: "poke", data: { type: 126, id: 2003 } },
  { type: "mface", data: { emoji_id: "e1", emoji_package_id: 10, key: "k", summary: "[开心]" } },
  { type: "markdown", data: { content: "**粗体**" } },
  { type: "dice", data: { result: 6 } },
  { type: "rps", data: { result: 2 } },
  { type: "shake", data: {} },
];

const everyTypeCq =
  "看&#91;这&#93;个, &amp; [CQ:face,id=14]" +
  "[CQ:image,file=abc.jpg,url=https://example.com/a?b=1&amp;c=2,summary=&#91;动画表情&#93;,sub_type=1,file_size=2048]" +
  "[CQ:record,file=voice.amr][CQ:video,file=clip.mp4,url=https://example.com/v][CQ:at,qq=10001,name=小明]" +
  "[CQ:reply,id=-2147483000][CQ:forward,id=7321873298371293187]" +
  "[CQ:node,user_id=10002,nickname=小红,content=内层&#91;CQ:face&#44;id=1&#93;]" +
  "[CQ:file,file=report.pdf,name=report.pdf,file_size=123456]" +
  '[CQ:json,data={"app":"com.tencent.miniapp"&#44;"desc":"a&#44;b"}][CQ:xml,data=<msg a="1"/>]' +
  "[CQ:poke,type=126,id=2003][CQ:mface,emoji_id=e1,emoji_package_id=10,key=k,summary=&#91;开心&#93;]" +
  "[CQ:markdown,content=**粗体**][CQ:dice,result=6][CQ:rps,result=2][CQ:shake]";

const everyTypeSegments: Segment[] = [
  { type: "text", data: { text: "看[这]个, & " } },
  { type: "face", data: { id: "14" } },
  {
    type: "image",
    data: {
      file: "abc.jpg",
      url: "https://example.com/a?b=1&c=2",
      summary: "[动画表情]",
      sub_type: "1",
      file_size: "2048",
    },
  },
  { type: "record", data: { file: "voice.amr" } },
  { type: "video", data: { file: "clip.mp4", url: "https://example.com/v" } },
  { type: "at", data: { qq: "10001", name: "小明" } },
  { type: "reply", data: { id: "-2147483000" } },
  { type: "forward", data: { id: "7321873298371293187" } },
  {
    type: "node",
    data: {
      user_id: "10002",
      nickname: "小红",
      content: [
        { type: "text", data: { text: "内层" } },
        { type: "face", data: { id: "1" } },
      ],
    },
  },
  { type: "file", data: { file: "report.pdf", name: "report.pdf", file_size: "123456" } },
  { type: "json", data: { data: '{"app":"com.tencent.miniapp","desc":"a,b"}' } },
  { type: "xml", data: { data: '<msg a="1"/>' } },
  { type: "poke", data: { type: "126", id: "2003" } },
  { type: "mface", data: { emoji_id: "e1", emoji_package_id: "10", key: "k", summary: "[开心]" } },
  { type: "markdown", data: { content: "**粗体**" } },
  { type: "dice", data: { result: "6" } },
  { type: "rps", data: { result: "2" } },
  { type: "shake", data: {}, unknown: true },
];

describe("normalizeSegments", () => {
  it("gives the same segments for a message in array form and in CQ-string form", () => {
    expect(normalizeSegments(everyTypeArray)).toEqual(everyTypeSegments);
    expect(normalizeSegments(everyTypeCq)).toEqual(everyTypeSegments);
  });

  it("keeps a 19-digit forward id sent as a raw JSON number exact", () => {
    const frame = '{"post_type":"message","message":[{"type":"forward","data":{"id":7321873298371293187}}]}';
    const event = parseJsonLossless(frame) as { message: unknown };
    expect(normalizeSegments(event.message)).toEqual([
      { type: "forward", data: { id: "7321873298371293187" } },
    ]);
  });

  it("keeps extra fields, drops null ones, and takes node content given as CQ text", () => {
    const raw = [
      { type: "image", data: { file: "a.jpg", url: null, file_unique: "u1", meta: { w: 10 } } },
      { type: "node", data: { id: 123, content: "hi[CQ:at,qq=10001]" } },
    ];
    expect(normalizeSegments(raw)).toEqual([
      { type: "image", data: { file: "a.jpg", file_unique: "u1", meta: { w: 10 } } },
      {
        type: "node",
        data: {
          id: "123",
          content: [
            { type: "text", data: { text: "hi" } },
            { type: "at", data: { qq: "10001" } },
          ],
        },
      },
    ]);
  });

  it("carries unknown segments and known ones that do not fit the model untouched", () => {
    const music = { type: "music", data: { type: "custom", id: 42, nested: { a: [1, 2] } } };
    const brokenAt = { type: "at", data: { qq: { uin: 1 } } };
    const [first, second] = normalizeSegments([music, brokenAt]);
    expect(first).toEqual({ ...music, unknown: true });
    expect(first?.data).toBe(music.data);
    expect(second).toEqual({ ...brokenAt, unknown: true });
  });

  it("stores a json card handed over as an object as its JSON text", () => {
    const card = { app: "com.tencent.multimsg", meta: { detail: { resid: "r1" } } };
    expect(normalizeSegments([{ type: "json", data: { data: card } }])).toEqual([
      { type: "json", data: { data: JSON.stringify(card) } },
    ]);
  });

  it("takes a lone segment object where a list belongs", () => {
    expect(normalizeSegments({ type: "text", data: { text: "hi" } })).toEqual([
      { type: "text", data: { text: "hi" } },
    ]);
  });

  it("drops malformed entries and keeps the rest", () => {
    const raw = [
      1,
      null,
      "x",
      [],
      {},
      { type: 5 },
      { type: "" },
      { type: "text", data: "str" },
      { type: "text", data: { text: "ok" } },
    ];
    expect(normalizeSegments(raw)).toEqual([{ type: "text", data: { text: "ok" } }]);
    expect(normalizeSegments(undefined)).toEqual([]);
    expect(normalizeSegments(42)).toEqual([]);
  });

  it("survives node content nested far deeper than any real forward", () => {
    let message: unknown = [{ type: "text", data: { text: "bottom" } }];
    for (let depth = 0; depth < 20_000; depth++) message = [{ type: "node", data: { content: message } }];
    const [outer] = normalizeSegments(message);
    expect(outer?.type).toBe("node");
  });

  it("never throws on junk, and every known segment it returns fits the model", () => {
    const segmentLike = fc.record({
      type: fc.constantFrom("text", "at", "reply", "forward", "node", "json", "image", "poke", "weird"),
      data: fc.oneof(
        fc.dictionary(
          fc.constantFrom("text", "qq", "id", "data", "content", "file", "type", "__proto__"),
          fc.jsonValue(),
        ),
        fc.jsonValue(),
      ),
    });
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.jsonValue(), fc.array(fc.oneof(segmentLike, fc.jsonValue())), fc.string()),
        (raw) => {
          for (const segment of normalizeSegments(raw)) {
            expect(typeof segment.type).toBe("string");
            expect(typeof segment.data).toBe("object");
            if (isKnownSegment(segment) && segment.type === "text")
              expect(typeof segment.data.text).toBe("string");
            if (isKnownSegment(segment) && segment.type === "at")
              expect(typeof segment.data.qq).toBe("string");
            if (isKnownSegment(segment) && segment.type === "reply")
              expect(typeof segment.data.id).toBe("string");
            if (isKnownSegment(segment) && segment.type === "json")
              expect(typeof segment.data.data).toBe("string");
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
