/**
 * Replays every frame of test/fixtures/onebot/ (real shapes from NapCat, LLOneBot, Lagrange,
 * go-cqhttp and SnowLuma, see its README) through a running bot and checks what the planner is
 * shown. One bot serves all of them: each frame is a member's message, then another member
 * replies to it with an @ of the bot, so the frame is read twice, as a history line (the event
 * as it came) and as the quote block (the stand-in's get_msg answer, forwards expanded).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOB, SELF } from "../support/messages.ts";
import type { ActionFailure, OneBotStandIn } from "../support/onebot-standin.ts";
import { type Scene, startScene } from "../support/scene.ts";

const FIXTURES = join(import.meta.dirname, "../fixtures/onebot");
const REPLY = [{ toolCalls: [{ name: "reply", arguments: {} }] }, { text: "嗯" }];

/** One replayed frame: what the implementation sends, what it answers, what the planner must show. */
interface FixtureCase {
  about: string;
  frame: Record<string, unknown>;
  /** `get_forward_msg` answers by forward id. */
  forwards?: Record<string, unknown>;
  /** `get_group_member_info` answers. */
  members?: Array<{ groupId: string; userId: string; nickname: string; card: string }>;
  /** Failed answers, by action, in call order. */
  failures?: Record<string, ActionFailure[]>;
  /** The frame addresses the bot itself: it is answered as it is, nobody quotes it. */
  triggers?: boolean;
  /** Each must appear in the quote block or the frame's own line of the planner's prompt. */
  shows: string[];
  /** None may appear there. */
  hides?: string[];
}

interface FixtureFile {
  implementation: string;
  /** The source files, in the implementation's repository, the shapes are copied from. */
  follows: string[];
  /** How the cases are replayed; "quoted-message" is the only one this test drives. */
  replay: string;
  cases: FixtureCase[];
}

/** A notice or an action answer: one frame, pushed by the notice tests (notice-fixtures.ts). */
interface SingleFrameFile {
  source: string;
  frame: Record<string, unknown>;
}

function fixtureFiles(): Array<{ path: string; file: FixtureFile | SingleFrameFile }> {
  return readdirSync(FIXTURES, { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".json"))
    .sort()
    .map((path) => ({ path, file: JSON.parse(readFileSync(join(FIXTURES, path), "utf8")) }));
}

const everyFile = fixtureFiles();
const files = everyFile.flatMap(({ path, file }) => ("cases" in file ? [{ path, file }] : []));
const singleFrames = everyFile.flatMap(({ path, file }) => ("frame" in file ? [{ path, file }] : []));
const messageFiles = files.filter(({ file }) => file.replay === "quoted-message");

let scene: Scene;
let qq: OneBotStandIn;

beforeAll(async () => {
  scene = await startScene({ config: { chat: { timezone: "Asia/Shanghai" } } });
  qq = scene.qq;
}, 30_000);

afterAll(async () => {
  await scene?.close();
});

/** The quote block and the frame's history line, as the planner read them for this turn. */
async function replay(fixture: FixtureCase): Promise<string> {
  for (const [id, answer] of Object.entries(fixture.forwards ?? {})) qq.setForward(id, answer);
  for (const member of fixture.members ?? []) qq.setGroupMember({ ...member, role: "member" });
  for (const [action, failures] of Object.entries(fixture.failures ?? {})) {
    for (const failure of failures) qq.failNext(action, failure);
  }
  const messageId = String(fixture.frame.message_id);
  qq.rememberMessage(fixture.frame);
  qq.pushRaw(JSON.stringify(fixture.frame));
  const answered = qq.sent.length;
  scene.llm.enqueue(...REPLY);
  if (!fixture.triggers) {
    qq.pushGroupMessage({
      groupId: String(fixture.frame.group_id),
      userId: BOB,
      nickname: "Bob",
      message: [
        { type: "reply", data: { id: messageId } },
        { type: "at", data: { qq: SELF } },
        { type: "text", data: { text: " 这是什么" } },
      ],
    });
  }
  await qq.waitForSent(() => qq.sent.length > answered, 10_000);
  const prompt = scene.llm.lastRequestWithTool("reply")!.promptText;
  const block = prompt.split("## 新消息\n")[1]?.split("\n[msg_id=")[0] ?? "";
  const line = prompt.split("\n").find((text) => text.startsWith(`[msg_id=${messageId}] `)) ?? "";
  return `${block}\n${line}`;
}

describe("the fixture corpus", () => {
  it("names the source of every shape, and every frame has its own message id", () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.length + singleFrames.length).toBe(everyFile.length);
    for (const { path, file } of singleFrames) expect(file.source.length, path).toBeGreaterThan(0);
    const ids = new Set<string>();
    for (const { path, file } of files) {
      expect(file.follows.length, path).toBeGreaterThan(0);
      for (const fixture of file.cases) {
        const id = `${fixture.frame.message_id}`;
        expect(ids.has(id), `${path}: ${fixture.about}`).toBe(false);
        ids.add(id);
      }
    }
  });
});

describe.each(messageFiles)("$file.implementation: $path", ({ file }) => {
  it.each(file.cases)("$about", async (fixture) => {
    const seen = await replay(fixture);
    for (const text of fixture.shows) expect(seen, `shows ${text}`).toContain(text);
    for (const text of fixture.hides ?? []) expect(seen, `hides ${text}`).not.toContain(text);
  });
});
