/**
 * Prompt caches: one busy QQ group, 50 consecutive replied turns with three
 * messages from other members between the bot's mentions, through the whole bot (OneBot
 * stand-in, scripted model recording every request).
 *
 * Two scenes: that busy group, and a conversation where every message mentions the bot.
 * - Shared prefix: consecutive planner requests serialised as the provider sends them (JSON of
 *   the `messages` array), their common prefix in characters, as a share of the later request
 *   (what the provider can serve from its cache) and of the earlier one (how much of a prompt
 *   the next turn keeps); also with the tool declarations in front, as Anthropic and OpenAI
 *   cache a prompt.
 * - Tokens per replied turn (planner request with its tools + planner answer + replyer request
 *   + replyer answer) on the first turn, whose window holds 24 history messages (maxMessages), and
 *   on average. Estimated with `estimateTokens` for both calls alike.
 * - The planner prompt (issue 49): the first planner request with its tool declarations, and
 *   each tool's share of them.
 *
 * Baselines in the same run: `chat.history.dropFraction: 0` with `growth: 1` (the window slides
 * by one message per turn, as before), and, when TSUMUGI_BENCH_BASELINE names another checkout
 * (e.g. the commit before the change), that checkout's bot with its own defaults.
 */
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { OneBotStandIn } from "../test/support/onebot-standin.ts";
import { type RecordedLlmRequest, ScriptedLlmServer } from "../test/support/scripted-llm-server.ts";
import { type Goal, median, round } from "./child.ts";

const THIS_CHECKOUT = fileURLToPath(new URL("..", import.meta.url));
const TURNS = 50;
/**
 * The scenes: a busy group (3 members' messages before each mention: five new messages per
 * turn with the mention and the reply), a conversation with the bot (every message a mention:
 * two per turn), and a busy group the bot reads along and mostly leaves alone (every message
 * names the bot, the planner answers no_reply: one new message per turn, the window moving by
 * one message per turn); and a group where the bot is talkative, answering every few messages
 * while five members chat.
 */
const SCENES = {
  busyGroup: { chatterPerTurn: 3, replies: true, turns: TURNS },
  conversation: { chatterPerTurn: 0, replies: true, turns: TURNS },
  readingAlong: { chatterPerTurn: 0, replies: false, turns: TURNS },
  /** Five members chatting, the bot answering every fifth message: 30 consecutive replied turns. */
  talkativeGroup: { chatterPerTurn: 4, replies: true, turns: 30 },
} as const;
type Scene = (typeof SCENES)[keyof typeof SCENES];
const HISTORY_MESSAGES = 24;
/** Messages in the group before the first mention, so the first window is full. */
const PREFILL = 30;
/** The stand-in's account: the harness's default. */
const SELF = "10000";
const GROUP = "20000";
const MEMBERS = ["张三", "李四", "王五", "赵六", "小明"];
const CHATTER = [
  "今天晚上谁有空一起打游戏",
  "我刚下班，地铁上人好多",
  "有人看了昨天那场比赛吗，最后十分钟太刺激了",
  "周末去爬山吗？天气预报说是晴天",
  "这家店的奶茶真的好喝，推荐一下",
  "哈哈哈笑死我了",
  "明天早上的会改到十点了，大家注意一下",
  "有没有人知道怎么把照片转成 PDF",
  "我家猫又把杯子推下桌了",
  "新出的那部电影评分怎么样",
];

type StartBot = (options: { llm: ScriptedLlmServer; config: Record<string, unknown> }) => Promise<{
  wsUrl: string;
  turnFinished(count: number, timeoutMs: number): Promise<unknown>;
  dispose(): Promise<void>;
}>;

interface SceneFigures {
  sharedOfNextMean: number;
  sharedOfNextMin: number;
  sharedOfPreviousMean: number;
  sharedOfPreviousMin: number;
  /** A typical turn: with steps every few turns, one between two steps. */
  sharedOfPreviousMedian: number;
  toolsFirstSharedOfNextMean: number;
  tokensFirstTurn: number;
  tokensPerTurnMean: number;
  historyMessagesFirstTurn: number;
  /** The window grows and steps back: what a turn shows on average. */
  historyMessagesMean: number;
  /**
   * Planner tokens a provider caching prefixes (tools first) cannot serve from its cache, per
   * turn: each request's tokens times the share it does not have in common with the one before.
   */
  plannerTokensNotCachedMean: number;
  /** The first planner request (24 history messages), its tool declarations included. */
  plannerPromptTokensFirstTurn: number;
  /** Of which its tool declarations. */
  plannerToolTokensFirstTurn: number;
  /** Each declared tool's share, by name, in the order declared. */
  plannerToolTokensByName: Record<string, number>;
}

export async function benchPromptCache(): Promise<Record<string, unknown>> {
  const baselineDir = process.env.TSUMUGI_BENCH_BASELINE;
  const scenes: Record<string, unknown> = {};
  for (const [name, scene] of Object.entries(SCENES)) {
    const stepped = await runScene(THIS_CHECKOUT, { dropFraction: 0.5 }, scene);
    const sliding = await runScene(THIS_CHECKOUT, { dropFraction: 0, growth: 1 }, scene);
    const previousCommit = baselineDir ? await runScene(baselineDir, {}, scene) : undefined;
    scenes[name] = {
      turns: scene.turns,
      messagesBetweenMentions: scene.chatterPerTurn,
      botReplies: scene.replies,
      stepped,
      slidingBaseline: sliding,
      ...(previousCommit && { previousCommitBaseline: previousCommit }),
    };
  }
  const busy = (scenes.busyGroup as { stepped: SceneFigures }).stepped;
  const talkative = (scenes.talkativeGroup as { stepped: SceneFigures }).stepped;
  const goals: Goal[] = [
    {
      goal: "planner prompt with its tools (24 history messages)",
      target: "≤ 1,500",
      figure: busy.plannerPromptTokensFirstTurn,
      measured: `busy group's first planner request, the bot's own tools (plugins.dirs: []; ${busy.plannerToolTokensFirstTurn} of them the tool declarations), estimated tokens`,
      met: busy.plannerPromptTokensFirstTurn <= 1_500,
    },
    {
      goal: "mean prefix reuse over 30 turns in a busy group",
      target: "≥ 0.9",
      figure: talkative.toolsFirstSharedOfNextMean,
      measured:
        "talkative group (five members, the bot answering every fifth message), 30 replied turns: share of each planner request (tools first) identical to the one before",
      met: talkative.toolsFirstSharedOfNextMean >= 0.9,
    },
    {
      goal: "tokens per replied turn (24 history messages)",
      target: "≤ 2,500",
      figure: busy.tokensFirstTurn,
      // Token counts do not depend on the process, so the test harness's bot is enough here.
      measured: "busy group's first turn, the bot's own tools (plugins.dirs: []), estimated tokens",
      met: busy.tokensFirstTurn <= 2_500,
    },
  ];
  return {
    historyMaxMessages: HISTORY_MESSAGES,
    tokenEstimate: "1 per CJK character + 1 per 4 other characters, +4 per message",
    ...scenes,
    targetSharedPrefixMean: 0.9,
    targetTokensPerTurnWith24History: 2_500,
    targetPlannerPromptTokensWith24History: 1_500,
    goals,
  };
}

/** The scene with these `chat.history` settings and chatter, run by the test harness of `checkout`. */
async function runScene(
  checkout: string,
  history: Record<string, number>,
  { chatterPerTurn, replies, turns }: Scene,
): Promise<SceneFigures> {
  const harness = pathToFileURL(resolve(checkout, "test/support/bot-harness.ts")).href;
  const { startBot } = (await import(harness)) as { startBot: StartBot };
  const llm = await ScriptedLlmServer.start();
  const bot = await startBot({
    llm,
    config: {
      chat: { history: { maxMessages: HISTORY_MESSAGES, ...history } },
      // The bot's own prompts and tools: the example plugins' tools stay out.
      plugins: { dirs: [] },
      log: { level: "warn" },
    },
  });
  const qq = new OneBotStandIn({ selfId: SELF, nickname: "紬" });
  await qq.connectReverse(bot.wsUrl);
  let said = 0;
  const chatter = (count: number) => {
    for (let i = 0; i < count; i++, said++) {
      const member = said % MEMBERS.length;
      qq.pushGroupMessage({
        groupId: GROUP,
        userId: String(30_001 + member),
        card: MEMBERS[member],
        message: [{ type: "text", data: { text: CHATTER[said % CHATTER.length]! } }],
      });
    }
  };
  chatter(PREFILL);
  for (let turn = 0; turn < turns; turn++) {
    if (turn > 0) chatter(chatterPerTurn);
    if (replies) {
      llm.enqueue({ toolCalls: [{ name: "reply", arguments: {} }] }, { text: answerText(turn) });
      qq.pushGroupMessage({
        groupId: GROUP,
        userId: "30009",
        card: "小红",
        message: [
          { type: "at", data: { qq: SELF } },
          { type: "text", data: { text: ` 紬，你觉得呢？这是第${turn}个问题` } },
        ],
      });
    } else {
      // Named in passing (a keyword trigger); the planner leaves it alone.
      llm.enqueue({ toolCalls: [{ name: "no_reply", arguments: { reason: "不是在问我" } }] });
      const member = turn % MEMBERS.length;
      qq.pushGroupMessage({
        groupId: GROUP,
        userId: String(30_001 + member),
        card: MEMBERS[member],
        message: [
          { type: "text", data: { text: `${CHATTER[turn % CHATTER.length]}，紬你说是吧（${turn}）` } },
        ],
      });
    }
    // The turn's end: its reply is stored, so the group talks on after it, as people do.
    await bot.turnFinished(turn + 1, 10_000);
  }
  await qq.close();
  await bot.dispose();
  await llm.close();
  return figures(llm.requests, replies);
}

function figures(requests: RecordedLlmRequest[], replies: boolean): SceneFigures {
  const planners = requests.filter((request) => request.toolNames.includes("reply"));
  const replyers = requests.filter((request) => !request.toolNames.includes("reply"));
  const { ofNext, ofPrevious } = sharedShares(
    planners.map((request) => JSON.stringify(request.body.messages)),
  );
  // As Anthropic and OpenAI cache a prompt: the tool declarations first, then the messages.
  const toolsFirst = sharedShares(
    planners.map(
      (request) => JSON.stringify(request.body.tools ?? []) + JSON.stringify(request.body.messages),
    ),
  );
  // A silent turn is its planner call alone.
  const turnTokens = planners.map(
    (planner, i) =>
      requestTokens(planner) +
      plannerAnswerTokens() +
      (replies ? requestTokens(replyers[i]!) + estimateTokens(answerText(i)) : 0),
  );
  const firstTools = planners[0]!.body.tools ?? [];
  return {
    sharedOfNextMean: round(mean(ofNext), 3),
    sharedOfNextMin: round(Math.min(...ofNext), 3),
    sharedOfPreviousMean: round(mean(ofPrevious), 3),
    sharedOfPreviousMin: round(Math.min(...ofPrevious), 3),
    sharedOfPreviousMedian: round(median(ofPrevious), 3),
    toolsFirstSharedOfNextMean: round(mean(toolsFirst.ofNext), 3),
    tokensFirstTurn: turnTokens[0]!,
    tokensPerTurnMean: Math.round(mean(turnTokens)),
    historyMessagesFirstTurn: timedLines(planners[0]!) - 1,
    historyMessagesMean: round(mean(planners.map((planner) => timedLines(planner) - 1)), 1),
    plannerTokensNotCachedMean: Math.round(
      mean(
        planners.map((planner, i) => requestTokens(planner) * (i === 0 ? 1 : 1 - toolsFirst.ofNext[i - 1]!)),
      ),
    ),
    plannerPromptTokensFirstTurn: requestTokens(planners[0]!),
    plannerToolTokensFirstTurn: estimateTokens(JSON.stringify(firstTools)),
    plannerToolTokensByName: Object.fromEntries(
      firstTools.map((tool) => [tool.function.name, estimateTokens(JSON.stringify(tool))]),
    ),
  };
}

/**
 * Rough tokens of a text as current tokenizers cut Chinese chat: one per CJK character (Han,
 * kana, full-width punctuation), one per four other characters. The same for every request.
 */
export function estimateTokens(text: string): number {
  const cjk = text.match(/[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/gu)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

/** Every message's text plus a few tokens of chat markup each, and the declared tools. */
export function requestTokens(request: RecordedLlmRequest): number {
  const messages = request.body.messages.reduce(
    (sum, message) => sum + 4 + estimateTokens(contentOf(message.content)),
    0,
  );
  return messages + (request.body.tools ? estimateTokens(JSON.stringify(request.body.tools)) : 0);
}

/** The scripted planner answer: a `reply` call without arguments (about as long as a no_reply). */
function plannerAnswerTokens(): number {
  return estimateTokens(JSON.stringify({ name: "reply", arguments: "{}" }));
}

function answerText(turn: number): string {
  return `好呀，第${turn}次听你说这个了，我记下啦。`;
}

function contentOf(content: RecordedLlmRequest["body"]["messages"][number]["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("");
}

/** Chat lines (`[HH:mm:ss] name(id): …`, labelled or not) in the request: history plus the mention. */
function timedLines(request: RecordedLlmRequest): number {
  return request.promptText
    .split("\n")
    .filter((line) => /^(\[msg_id=[^\]]+\] )?\[\d\d:\d\d:\d\d\] /.test(line)).length;
}

/** For each request after the first, the prefix it shares with the one before, as a share of each. */
function sharedShares(serialised: string[]): { ofNext: number[]; ofPrevious: number[] } {
  const ofNext: number[] = [];
  const ofPrevious: number[] = [];
  for (let i = 1; i < serialised.length; i++) {
    const shared = commonPrefix(serialised[i - 1]!, serialised[i]!);
    ofNext.push(shared / serialised[i]!.length);
    ofPrevious.push(shared / serialised[i - 1]!.length);
  }
  return { ofNext, ofPrevious };
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}
