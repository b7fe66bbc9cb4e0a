import { describe, expect, it } from "vitest";
import { OneBotActionError } from "../../src/adapters/onebot/action-error.ts";
import { clockText } from "../../src/context/clock-text.ts";
import type { QuoteSettings } from "../../src/context/config.ts";
import { formatQuoteContext } from "../../src/context/quote-format.ts";
import { type QuoteSource, resolveQuote } from "../../src/context/quote-resolver.ts";
import type { QuoteFetcher, ResolvedQuote } from "../../src/context/quote-types.ts";
import { createLogger } from "../../src/log/logger.ts";

const DEFAULTS: QuoteSettings = {
  enabled: true,
  resolveForward: true,
  maxDepth: 2,
  maxNodes: 20,
  maxChars: 4000,
  timeoutMs: 10_000,
};
const shanghai = clockText("Asia/Shanghai");
/** Unix seconds of 2024-06-01 at this wall-clock time in Shanghai. */
const at = (hh: number, mm: number, ss: number) => Date.UTC(2024, 5, 1, hh - 8, mm, ss) / 1000;

type Wire = Record<string, unknown>;
const text = (value: string): Wire => ({ type: "text", data: { text: value } });
const forward = (id: string): Wire => ({ type: "forward", data: { id } });

/** A NapCat/SnowLuma style full message object. */
function napcat(userId: number, name: string, message: Wire[], time?: number): Wire {
  return {
    message_id: 1,
    time,
    user_id: userId,
    sender: { user_id: userId, nickname: name, card: "" },
    message,
  };
}

/** Answers from maps, the way an implementation would; records every call. */
class MemoryFetcher implements QuoteFetcher {
  readonly calls: string[] = [];
  constructor(
    readonly messages: Record<string, unknown> = {},
    readonly forwards: Record<string, unknown> = {},
  ) {}

  async getMessage(id: string, timeoutMs: number): Promise<unknown> {
    this.calls.push(`get_msg ${id} ${timeoutMs}`);
    const answer = this.messages[id];
    if (answer instanceof Error) throw answer;
    if (answer === undefined) throw failed("get_msg");
    return answer;
  }

  async getForward(id: string, timeoutMs: number): Promise<unknown> {
    this.calls.push(
      timeoutMs === DEFAULTS.timeoutMs ? `get_forward_msg ${id}` : `get_forward_msg ${id} ${timeoutMs}`,
    );
    const answer = this.forwards[id];
    if (answer instanceof Error) throw answer;
    if (answer === undefined) throw failed("get_forward_msg");
    return answer;
  }
}

function failed(action: string): OneBotActionError {
  return new OneBotActionError({
    kind: "failed",
    action,
    retcode: 1200,
    message: `${action} failed (retcode 1200)`,
  });
}

const silent = createLogger({ level: "silent" });

function resolve(source: QuoteSource, fetcher: QuoteFetcher, settings: Partial<QuoteSettings> = {}) {
  return resolveQuote(source, { fetcher, settings: { ...DEFAULTS, ...settings }, logger: silent });
}

const render = (quote: ResolvedQuote | undefined) => formatQuoteContext(quote!, shanghai);

/** F0 → F1 → … → F<levels-1>: each forward holds one message "level i" that forwards the next. */
function chain(levels: number): Record<string, unknown> {
  const forwards: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) {
    const content = i + 1 < levels ? [text(`level ${i}`), forward(`F${i + 1}`)] : [text(`level ${i}`)];
    forwards[`F${i}`] = { messages: [napcat(20_000 + i, `u${i}`, content, at(10, 0, i))] };
  }
  return forwards;
}

describe("quote resolution", () => {
  it("fetches the quoted message and its forward and renders the reference example", async () => {
    const fetcher = new MemoryFetcher(
      { "555": napcat(10001, "张三", [text("今天天气怎么样")], at(9, 59, 59)) },
      {
        F: {
          messages: [napcat(10002, "李四", [text("北京今天晴，最高温度 28 度"), forward("G")], at(10, 0, 5))],
        },
        G: { messages: [napcat(10003, "王五", [text("记得防晒")], at(10, 0, 10))] },
      },
    );
    const quote = await resolve({ replyId: "555", forwardIds: ["F"] }, fetcher);
    // The nested forward's node renders under its parent; the parent's own text shows the placeholder.
    expect(render(quote)).toBe(
      [
        "[引用 张三(10001) 于 09:59:59 的消息：今天天气怎么样",
        "  - 李四(10002) 10:00:05：北京今天晴，最高温度 28 度[合并转发]",
        "    - 王五(10003) 10:00:10：记得防晒",
        "]",
      ].join("\n"),
    );
    expect(fetcher.calls).toEqual(["get_msg 555 10000", "get_forward_msg F", "get_forward_msg G"]);
  });

  it("prefers the group card to the nickname", async () => {
    const answer = {
      sender: { user_id: 10001, nickname: "zhang", card: "张三（群名片）" },
      message: "hi",
      time: at(9, 0, 0),
    };
    const quote = await resolve({ replyId: "1", forwardIds: [] }, new MemoryFetcher({ "1": answer }));
    expect(render(quote)).toBe("[引用 张三（群名片）(10001) 于 09:00:00 的消息：hi\n]");
  });

  it("expands forwards found inside the quoted message after the message's own", async () => {
    const fetcher = new MemoryFetcher(
      { "7": napcat(10001, "张三", [forward("INSIDE")]) },
      {
        OWN: { messages: [napcat(1, "a", [text("own")])] },
        INSIDE: { messages: [napcat(2, "b", [text("inside")])] },
      },
    );
    const quote = await resolve({ replyId: "7", forwardIds: ["OWN"] }, fetcher);
    expect(quote!.text).toBe("[合并转发]");
    expect(quote!.nodes.map((n) => n.text)).toEqual(["own", "inside"]);
  });

  it("resolves nothing when quote.enabled is false", async () => {
    const fetcher = new MemoryFetcher({ "1": napcat(1, "a", [text("x")]) });
    expect(await resolve({ replyId: "1", forwardIds: ["F"] }, fetcher, { enabled: false })).toBeUndefined();
    expect(fetcher.calls).toEqual([]);
  });

  it("leaves forwards unexpanded when resolveForward is false", async () => {
    const fetcher = new MemoryFetcher({ "1": napcat(1, "a", [text("看这个"), forward("F")]) }, chain(1));
    const quote = await resolve({ replyId: "1", forwardIds: ["F0"] }, fetcher, { resolveForward: false });
    expect(render(quote)).toBe("[引用 a(1) 的消息：看这个[合并转发]\n]");
    expect(fetcher.calls).toEqual(["get_msg 1 10000"]);
  });

  it("gives a forward-only message no block at all when resolveForward is false", async () => {
    const fetcher = new MemoryFetcher({}, chain(1));
    expect(await resolve({ forwardIds: ["F0"] }, fetcher, { resolveForward: false })).toBeUndefined();
    expect(fetcher.calls).toEqual([]);
  });

  it("passes quote.timeoutMs to every get_msg and get_forward_msg", async () => {
    const fetcher = new MemoryFetcher({ "1": napcat(1, "a", [text("x"), forward("F1")]) }, chain(2));
    await resolve({ replyId: "1", forwardIds: ["F0"] }, fetcher, { timeoutMs: 1234 });
    expect(fetcher.calls).toEqual(["get_msg 1 1234", "get_forward_msg F0 1234", "get_forward_msg F1 1234"]);
  });
});

describe("depth budget", () => {
  const levelsOf = (quote: ResolvedQuote | undefined) => quote!.nodes.map((n) => `${n.depth}:${n.text}`);

  it("renders depths 0, 1 and 2 by default; deeper forwards stay a placeholder", async () => {
    const fetcher = new MemoryFetcher({}, chain(4));
    const quote = await resolve({ forwardIds: ["F0"] }, fetcher);
    expect(levelsOf(quote)).toEqual(["0:level 0[合并转发]", "1:level 1[合并转发]", "2:level 2[合并转发]"]);
    expect(fetcher.calls).toEqual(["get_forward_msg F0", "get_forward_msg F1", "get_forward_msg F2"]);
    expect(quote!.truncated).toBe(false);
    expect(render(quote)).toBe(
      [
        "[引用消息：",
        "  - u0(20000) 10:00:00：level 0[合并转发]",
        "    - u1(20001) 10:00:01：level 1[合并转发]",
        "      - u2(20002) 10:00:02：level 2[合并转发]",
        "]",
      ].join("\n"),
    );
  });

  it.each([
    [0, ["0:level 0[合并转发]"]],
    [1, ["0:level 0[合并转发]", "1:level 1[合并转发]"]],
    [3, ["0:level 0[合并转发]", "1:level 1[合并转发]", "2:level 2[合并转发]", "3:level 3"]],
  ])("maxDepth %i renders only the levels it allows", async (maxDepth, expected) => {
    const fetcher = new MemoryFetcher({}, chain(4));
    const quote = await resolve({ forwardIds: ["F0"] }, fetcher, { maxDepth });
    expect(levelsOf(quote)).toEqual(expected);
    expect(fetcher.calls).toHaveLength(expected.length);
  });
});

describe("node budget and cycles", () => {
  /** TOP holds A1..A3; each Ai forwards Ni, which holds three messages. */
  function wideTree(): Record<string, unknown> {
    const forwards: Record<string, unknown> = {
      TOP: { messages: [1, 2, 3].map((i) => napcat(i, `A${i}`, [text(`A${i}`), forward(`N${i}`)])) },
      OTHER: { messages: [napcat(9, "other", [text("other")])] },
    };
    for (const i of [1, 2, 3]) {
      forwards[`N${i}`] = {
        messages: [1, 2, 3].map((j) => napcat(10 * i + j, `B${i}${j}`, [text(`B${i}${j}`)])),
      };
    }
    return forwards;
  }

  it("shares maxNodes across nested branches and marks the block truncated", async () => {
    const fetcher = new MemoryFetcher({}, wideTree());
    const quote = await resolve({ forwardIds: ["TOP", "OTHER"] }, fetcher, { maxNodes: 6 });
    expect(quote!.nodes.map((n) => n.senderName)).toEqual(["A1", "B11", "B12", "B13", "A2", "B21"]);
    expect(quote!.truncated).toBe(true);
    expect(render(quote).endsWith("\n（已截断）]")).toBe(true);
    // Once the budget is spent nothing more is fetched.
    expect(fetcher.calls).toEqual(["get_forward_msg TOP", "get_forward_msg N1", "get_forward_msg N2"]);
  });

  it("renders everything untruncated when the budget suffices", async () => {
    const quote = await resolve({ forwardIds: ["TOP", "OTHER"] }, new MemoryFetcher({}, wideTree()));
    expect(quote!.nodes).toHaveLength(13);
    expect(quote!.truncated).toBe(false);
  });

  it("skips a forward seen before (A → B → A) without spending budget or marking truncation", async () => {
    const fetcher = new MemoryFetcher(
      {},
      {
        A: { messages: [napcat(1, "a", [text("in A"), forward("B")])] },
        B: { messages: [napcat(2, "b", [text("in B"), forward("A")])] },
      },
    );
    const quote = await resolve({ forwardIds: ["A", "A"] }, fetcher, { maxDepth: 10, maxNodes: 2 });
    expect(quote!.nodes.map((n) => `${n.depth}:${n.text}`)).toEqual(["0:in A[合并转发]", "1:in B[合并转发]"]);
    expect(quote!.truncated).toBe(false);
    expect(fetcher.calls).toEqual(["get_forward_msg A", "get_forward_msg B"]);
  });

  it("turns a failed get_forward_msg into one failure node that spends one node", async () => {
    const fetcher = new MemoryFetcher({}, { OK: { messages: [napcat(1, "a", [text("fine")])] } });
    const quote = await resolve({ forwardIds: ["GONE", "OK", "LATER"] }, fetcher, { maxNodes: 2 });
    expect(quote!.nodes).toEqual([
      { text: "[引用消息获取失败]", depth: 0 },
      { senderId: "1", senderName: "a", time: undefined, text: "fine", depth: 0 },
    ]);
    expect(quote!.truncated).toBe(true);
    expect(render(quote)).toBe("[引用消息：\n  - 未知：[引用消息获取失败]\n  - a(1)：fine\n（已截断）]");
  });
});

describe("character budget", () => {
  it("cuts a quoted text longer than maxChars and drops every node", async () => {
    const fetcher = new MemoryFetcher(
      { "1": napcat(1, "a", [text("0123456789abcdef")]) },
      { F: { messages: [napcat(2, "b", [text("node")])] } },
    );
    const quote = await resolve({ replyId: "1", forwardIds: ["F"] }, fetcher, { maxChars: 10 });
    expect(quote!.text).toBe("0123456789");
    expect(quote!.nodes).toEqual([]);
    expect(render(quote)).toBe("[引用 a(1) 的消息：0123456789\n（已截断）]");
  });

  it("gives the rest to the nodes in order: the one that does not fit is cut, later ones dropped", async () => {
    const fetcher = new MemoryFetcher(
      { "1": napcat(1, "a", [text("12345")]) },
      { F: { messages: ["abc", "defgh", "ijk"].map((t, i) => napcat(i + 2, "n", [text(t)])) } },
    );
    const quote = await resolve({ replyId: "1", forwardIds: ["F"] }, fetcher, { maxChars: 10 });
    expect(quote!.nodes.map((n) => n.text)).toEqual(["abc", "de"]);
    expect(quote!.truncated).toBe(true);
  });

  it("does not mark a block that fits exactly", async () => {
    const fetcher = new MemoryFetcher(
      { "1": napcat(1, "a", [text("12345")]) },
      { F: { messages: [napcat(2, "n", [text("abcde")])] } },
    );
    const quote = await resolve({ replyId: "1", forwardIds: ["F"] }, fetcher, { maxChars: 10 });
    expect(quote!.truncated).toBe(false);
  });

  it("never cuts an emoji in half", async () => {
    const fetcher = new MemoryFetcher({ "1": napcat(1, "a", [text("ab😀cd")]) });
    const quote = await resolve({ replyId: "1", forwardIds: [] }, fetcher, { maxChars: 3 });
    expect(quote!.text).toBe("ab");
  });
});

describe("failures and odd answers", () => {
  it.each([
    [
      "a timeout",
      new OneBotActionError({ kind: "timeout", action: "get_msg", message: "no answer within 50 ms" }),
    ],
    ["a retcode failure", failed("get_msg")],
    [
      "a dropped connection",
      new OneBotActionError({ kind: "disconnected", action: "get_msg", message: "closed" }),
    ],
  ])("shows [引用消息获取失败] after %s of get_msg and still expands forwards", async (_what, error) => {
    const fetcher = new MemoryFetcher(
      { "1": error },
      { F: { messages: [napcat(2, "b", [text("still here")])] } },
    );
    const quote = await resolve({ replyId: "1", forwardIds: ["F"] }, fetcher);
    expect(quote!.senderId).toBeUndefined();
    expect(quote!.time).toBeUndefined();
    expect(render(quote)).toBe("[引用消息：[引用消息获取失败]\n  - b(2)：still here\n]");
  });

  it.each([
    ["null", null, "[引用消息：\n]"],
    ["a string", "garbage", "[引用消息：\n]"],
    [
      "odd field types",
      { sender: { user_id: "10001", nickname: 5 }, time: "soon", message: "hello" },
      "[引用 10001 的消息：hello\n]",
    ],
    [
      "raw_message only",
      { user_id: 10001, time: String(at(9, 0, 0)), raw_message: "[CQ:face,id=1]hi&#91;1&#93;" },
      "[引用 10001 于 09:00:00 的消息：[表情]hi[1]\n]",
    ],
    ["sender not an object", { sender: [1, 2], message: [text("x")] }, "[引用消息：x\n]"],
  ])("reads a get_msg answer with %s without throwing", async (_what, answer, expected) => {
    const quote = await resolve({ replyId: "1", forwardIds: [] }, new MemoryFetcher({ "1": answer }));
    expect(render(quote)).toBe(expected);
  });

  it("reads a get_forward_msg answer without a message list as no nodes", async () => {
    const fetcher = new MemoryFetcher(
      {},
      { F: { foo: 1 }, G: "nope", H: { messages: [null, 42, { sender: [] }] } },
    );
    const quote = await resolve({ forwardIds: ["F", "G", "H"] }, fetcher);
    expect(render(quote)).toBe("[引用消息：\n  - 未知：\n  - 未知：\n  - 未知：\n]");
  });
});

describe("get_forward_msg answer shapes", () => {
  const expected = "[引用消息：\n  - 李四(10002) 10:00:05：北京晴[合并转发]\n    - 王五(10003)：记得防晒\n]";
  const nested = {
    message: [{ type: "node", data: { user_id: 10003, nickname: "王五", content: [text("记得防晒")] } }],
  };

  it.each([
    [
      "spec / Lagrange {message: [node segments]}",
      {
        message: [
          {
            type: "node",
            data: {
              user_id: "10002",
              nickname: "李四",
              time: at(10, 0, 5),
              content: [text("北京晴"), forward("N")],
            },
          },
        ],
      },
    ],
    [
      "go-cqhttp / LLOneBot {messages: [{content, sender, time}]}",
      {
        messages: [
          {
            content: "北京晴[CQ:forward,id=N]",
            sender: { user_id: 10002, nickname: "李四" },
            time: at(10, 0, 5),
          },
        ],
      },
    ],
    [
      "NapCat / SnowLuma {messages: [full message objects]}",
      { messages: [napcat(10002, "李四", [text("北京晴"), forward("N")], at(10, 0, 5))] },
    ],
    ["a bare array", [napcat(10002, "李四", [text("北京晴"), forward("N")], at(10, 0, 5))]],
  ])("understands %s", async (_shape, answer) => {
    const quote = await resolve({ forwardIds: ["F"] }, new MemoryFetcher({}, { F: answer, N: nested }));
    expect(render(quote)).toBe(expected);
  });
});
