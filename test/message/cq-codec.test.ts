import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCq, encodeCq } from "../../src/message/cq-codec.ts";
import type { Segment } from "../../src/message/segment.ts";
import { cqHostileString, segmentList } from "./segment-arbitrary.ts";

describe("encodeCq", () => {
  it("escapes text and parameter values as OneBot v11 specifies", () => {
    const segments: Segment[] = [
      { type: "text", data: { text: "a&[b],c" } },
      { type: "image", data: { file: "x,y[1]&.jpg" } },
    ];
    expect(encodeCq(segments)).toBe("a&amp;&#91;b&#93;,c[CQ:image,file=x&#44;y&#91;1&#93;&amp;.jpg]");
  });

  it("nests node content as escaped CQ text", () => {
    const segments: Segment[] = [
      { type: "node", data: { user_id: "10001", content: [{ type: "face", data: { id: "14" } }] } },
    ];
    expect(encodeCq(segments)).toBe("[CQ:node,user_id=10001,content=&#91;CQ:face&#44;id=14&#93;]");
  });
});

describe("decodeCq", () => {
  it("splits text and codes and unescapes both", () => {
    expect(decodeCq("&#91;hi&#93; &amp;[CQ:at,qq=10001,name=a&#44;b] bye")).toEqual([
      { type: "text", data: { text: "[hi] &" } },
      { type: "at", data: { qq: "10001", name: "a,b" } },
      { type: "text", data: { text: " bye" } },
    ]);
  });

  it("yields an UnknownSegment for a code of a type we do not model", () => {
    expect(decodeCq("[CQ:shake][CQ:music,type=qq,id=123]")).toEqual([
      { type: "shake", data: {}, unknown: true },
      { type: "music", data: { type: "qq", id: "123" }, unknown: true },
    ]);
  });

  it("keeps a known type that lacks a required field as unknown, so it is not lost", () => {
    expect(decodeCq("[CQ:reply]")).toEqual([{ type: "reply", data: {}, unknown: true }]);
  });

  it("reads malformed codes as text instead of failing", () => {
    expect(decodeCq("a[CQ:]b[CQ:image,file=x")).toEqual([
      { type: "text", data: { text: "a[CQ:]b[CQ:image,file=x" } },
    ]);
    expect(decodeCq("")).toEqual([]);
  });

  it("merges text around text codes into one segment", () => {
    expect(decodeCq("a[CQ:text,text=b]c")).toEqual([{ type: "text", data: { text: "abc" } }]);
  });

  it("decodes what it encoded, for any segment list", () => {
    fc.assert(
      fc.property(segmentList, (segments) => {
        expect(decodeCq(encodeCq(segments))).toEqual(segments);
      }),
      { numRuns: 1000 },
    );
  });

  it("decodes anything, and re-encoding what it decoded reads back the same", () => {
    const cqLike = fc
      .array(
        fc.constantFrom(
          "[CQ:",
          "]",
          ",",
          "=",
          "image",
          "file",
          "node",
          "content",
          "text",
          "at",
          "qq",
          "&#44;",
          "&amp;",
          "[",
          "x",
          "&#91;CQ:face&#44;id=1&#93;",
        ),
        { maxLength: 20 },
      )
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.oneof(cqLike, cqHostileString), (text) => {
        const segments = decodeCq(text);
        expect(decodeCq(encodeCq(segments))).toEqual(segments);
      }),
      { numRuns: 1000 },
    );
  });

  it("decodes node content 32 levels deep and keeps deeper content as CQ text", () => {
    let segments: Segment[] = [{ type: "face", data: { id: "1" } }];
    for (let level = 0; level < 40; level++) segments = [{ type: "node", data: { content: segments } }];
    let levels = 0;
    let [node] = decodeCq(encodeCq(segments));
    while (node?.type === "node" && Array.isArray(node.data.content)) {
      levels++;
      [node] = node.data.content as Segment[];
    }
    expect(levels).toBe(32);
    expect(node).toMatchObject({
      type: "node",
      unknown: true,
      data: { content: expect.stringMatching(/^\[CQ:node,/) },
    });
  });
});
