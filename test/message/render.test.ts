import { describe, expect, it } from "vitest";
import { extractForwardIds } from "../../src/message/forward-refs.ts";
import { findReplyId, renderSegments } from "../../src/message/render.ts";
import type { Segment } from "../../src/message/segment.ts";

const multimsgCard = JSON.stringify({
  app: "com.tencent.multimsg",
  desc: "[聊天记录]",
  meta: {
    detail: {
      news: [{ text: "小明: 你好" }],
      resid: "Hx9k2/resid+1",
      source: "群聊的聊天记录",
      summary: "查看2条转发消息",
    },
  },
  prompt: "[聊天记录]",
});

const names: Record<string, string> = { "10001": "小明" };
const nameOf = (userId: string): string | undefined => names[userId];

describe("renderSegments", () => {
  it("reads a message the way a group member sees it", () => {
    const segments: Segment[] = [
      { type: "reply", data: { id: "555" } },
      { type: "at", data: { qq: "10001" } },
      { type: "text", data: { text: " 看这个 " } },
      { type: "image", data: { file: "a.jpg" } },
      { type: "face", data: { id: "14" } },
    ];
    expect(renderSegments(segments, { nameOf })).toBe("@小明 看这个 [图片][表情]");
  });

  it("names mentions from the segment, then the lookup, then the id; all members specially", () => {
    const mention = (qq: string, name?: string): Segment => ({
      type: "at",
      data: name === undefined ? { qq } : { qq, name },
    });
    expect(renderSegments([mention("10002", "小红")], { nameOf })).toBe("@小红");
    expect(renderSegments([mention("10002", "@小红")], { nameOf })).toBe("@小红");
    expect(renderSegments([mention("10001", "")], { nameOf })).toBe("@小明");
    expect(renderSegments([mention("10003")], { nameOf })).toBe("@10003");
    expect(renderSegments([mention("10003")])).toBe("@10003");
    expect(renderSegments([mention("all")], { nameOf })).toBe("@全体成员");
    expect(renderSegments([mention("10001")], { nameOf, selfId: "10001" })).toBe("@你");
  });

  it("shows every other kind of segment as a short placeholder", () => {
    const cases: [Segment, string][] = [
      [{ type: "image", data: { file: "a.gif", summary: "[动画表情]" } }, "[动画表情]"],
      [{ type: "image", data: { file: "a.gif", summary: "" } }, "[图片]"],
      [{ type: "record", data: { file: "a.amr" } }, "[语音]"],
      [{ type: "video", data: { file: "a.mp4" } }, "[视频]"],
      [{ type: "forward", data: { id: "7321873298371293187" } }, "[合并转发]"],
      [{ type: "node", data: { user_id: "1", content: [] } }, "[合并转发]"],
      [{ type: "file", data: { file: "x", name: "报告.pdf" } }, "[文件：报告.pdf]"],
      [
        { type: "file", data: { file: "报告.pdf", file_id: "f", file_size: "1258291" } },
        "[文件：报告.pdf (1.2 MB)]",
      ],
      [
        { type: "file", data: { path: "/a", name: "a.zip", size: "930", busid: "102" } },
        "[文件：a.zip (930 B)]",
      ],
      [
        { type: "file", data: { file_name: "b.txt", file_hash: "h", file_id: "i", url: "u" } },
        "[文件：b.txt]",
      ],
      [{ type: "file", data: {} }, "[文件]"],
      [{ type: "json", data: { data: '{"app":"com.tencent.miniapp"}' } }, "[卡片]"],
      [
        {
          type: "json",
          data: {
            data: JSON.stringify({
              app: "com.tencent.miniapp_01",
              prompt: "[QQ小程序]哔哩哔哩",
              meta: { detail_1: { title: "哔哩哔哩", desc: "猫猫  合集", qqdocurl: "https://b23.tv/x" } },
            }),
          },
        },
        "[卡片：哔哩哔哩 - 猫猫 合集 https://b23.tv/x]",
      ],
      [{ type: "json", data: { data: '{"prompt":"[分享]知乎"}' } }, "[卡片：[分享]知乎]"],
      [{ type: "json", data: { data: `{"prompt":"${"长".repeat(70_000)}"}` } }, "[卡片]"],
      [{ type: "json", data: { data: "not json at all" } }, "[卡片]"],
      [{ type: "json", data: { data: multimsgCard } }, "[合并转发]"],
      [{ type: "json", data: { data: '{"app":"com.tencent.multimsg"}' } }, "[合并转发]"],
      [{ type: "xml", data: { data: "<msg/>" } }, "[卡片]"],
      [
        {
          type: "xml",
          data: {
            data: '<msg brief="[分享]标题" url="https://x.cn/?a=1&amp;b=2"><title>标题</title><summary>摘要</summary></msg>',
          },
        },
        "[卡片：标题 - 摘要 https://x.cn/?a=1&b=2]",
      ],
      [{ type: "xml", data: { data: '<msg brief="[聊天记录]"/>' } }, "[卡片：[聊天记录]]"],
      [{ type: "poke", data: { type: "1", id: "1" } }, "[戳一戳]"],
      [{ type: "poke", data: { type: "2" } }, "[戳一戳]"],
      [{ type: "face", data: { id: "344", raw: { faceText: "/大怨种" } } }, "[表情：大怨种]"],
      [{ type: "mface", data: { summary: "[开心]" } }, "[开心]"],
      [{ type: "mface", data: { summary: "开心" } }, "[开心]"],
      [{ type: "mface", data: {} }, "[表情包]"],
      [{ type: "markdown", data: { content: "**粗体** 正文" } }, "**粗体** 正文"],
      [{ type: "dice", data: { result: "6" } }, "[骰子：6]"],
      [{ type: "dice", data: { value: "3" } }, "[骰子：3]"],
      [{ type: "rps", data: {} }, "[猜拳]"],
      [{ type: "music", data: { type: "qq", id: "1" }, unknown: true }, "[音乐]"],
      [{ type: "music", data: { type: "custom", title: "晴天" }, unknown: true }, "[音乐：晴天]"],
      [
        {
          type: "location",
          data: { lat: "1", lon: "2", title: "公司", content: "某路 1 号" },
          unknown: true,
        },
        "[位置：公司 某路 1 号]",
      ],
      [{ type: "contact", data: { type: "group", id: "123" }, unknown: true }, "[推荐群：123]"],
      [
        { type: "onlinefile", data: { fileName: "a.mp4", fileSize: "2048", isDir: false }, unknown: true },
        "[在线文件：a.mp4 (2.0 KB)]",
      ],
      [{ type: "flash_file", data: { title: "照片" }, unknown: true }, "[QQ闪传：照片]"],
      [{ type: "gift", data: { name: "小花" }, unknown: true }, "[gift：小花]"],
      [{ type: "at", data: { qq: { uin: 1 } }, unknown: true }, "[at]"],
    ];
    for (const [segment, expected] of cases)
      expect(renderSegments([segment]), JSON.stringify(segment)).toBe(expected);
  });

  it("puts a card's fields on one line and cuts each to 200 characters", () => {
    const card = JSON.stringify({
      prompt: "x",
      meta: { news: { title: `标\n题${"长".repeat(300)}`, jumpUrl: "u" } },
    });
    expect(renderSegments([{ type: "json", data: { data: card } }])).toBe(
      `[卡片：标 题${"长".repeat(197)}… u]`,
    );
  });

  it("renders nothing for a message that is only a reply", () => {
    expect(renderSegments([{ type: "reply", data: { id: "1" } }])).toBe("");
  });
});

describe("extractForwardIds", () => {
  it("finds forward segment ids and the resid of merged-forward cards, each once, in order", () => {
    const segments: Segment[] = [
      { type: "forward", data: { id: "7321873298371293187" } },
      { type: "json", data: { data: multimsgCard } },
      { type: "json", data: { data: '{"app":"com.tencent.miniapp","meta":{"detail":{"resid":"nope"}}}' } },
      { type: "json", data: { data: '{"app":"com.tencent.multimsg","meta":{"detail":"weird"}}' } },
      { type: "json", data: { data: "{broken" } },
      { type: "forward", data: { id: "7321873298371293187" } },
      { type: "text", data: { text: "[CQ:forward,id=1]" } },
    ];
    expect(extractForwardIds(segments)).toEqual(["7321873298371293187", "Hx9k2/resid+1"]);
  });

  it("finds none in a plain message", () => {
    expect(extractForwardIds([{ type: "text", data: { text: "hi" } }])).toEqual([]);
  });
});

describe("findReplyId", () => {
  it("finds the quoted message id, or nothing", () => {
    const reply: Segment[] = [
      { type: "reply", data: { id: "-12345" } },
      { type: "at", data: { qq: "10001" } },
      { type: "text", data: { text: " 对" } },
    ];
    expect(findReplyId(reply)).toBe("-12345");
    expect(findReplyId([{ type: "text", data: { text: "hi" } }])).toBeUndefined();
    expect(findReplyId([{ type: "reply", data: {}, unknown: true }])).toBeUndefined();
  });
});
