/** Scenes with a picture server beside them (the picture tests), and asking the bot about a picture. */
import { afterEach } from "vitest";
import { ALICE, GROUP, mention } from "./messages.ts";
import type { WireSegment } from "./onebot-standin.ts";
import { type PictureServer, startPictureServer } from "./picture-server.ts";
import { type Scene, startScene } from "./scene.ts";
import type { ScriptedStep } from "./scripted-llm-server.ts";

export type PictureScene = Scene & { pictures: PictureServer };

/**
 * Starts a scene with this config and a picture server; both are closed after each test of
 * the calling file (registered here, once per describe block that calls it).
 */
export function pictureScenes(): (config: Record<string, unknown>) => Promise<PictureScene> {
  let scene: Scene | undefined;
  let pictures: PictureServer | undefined;
  afterEach(async () => {
    await scene?.close();
    await pictures?.close();
    scene = undefined;
    pictures = undefined;
  });
  return async (config) => {
    pictures = await startPictureServer();
    scene = await startScene({ config });
    return { ...scene, pictures };
  };
}

/** Alice @-mentions the bot with `text` and these segments after it; returns the message id. */
export function askWithPictures(scene: Scene<unknown>, text: string, ...segments: WireSegment[]): string {
  return scene.qq.pushGroupMessage({
    groupId: GROUP,
    userId: ALICE,
    nickname: "Alice",
    message: [...mention(text), ...segments],
  });
}

/**
 * Alice asks about `picture`; after the `before` steps (a vision call) the planner calls
 * `tool`, then replies. Resolves with the tool's result as the planner saw it.
 */
export async function toolResultAbout(
  scene: Scene,
  tool: string,
  picture: WireSegment,
  before: ScriptedStep[] = [],
): Promise<string> {
  scene.llm.enqueue(
    ...before,
    { toolCalls: [{ name: tool, arguments: {} }] },
    { toolCalls: [{ name: "reply", arguments: {} }] },
    { text: "看过了" },
  );
  askWithPictures(scene, "帮我看看这张图", picture);
  await scene.qq.waitForSent(undefined, 10_000);
  const planner = scene.llm.lastRequestWithTool("reply")!;
  return String(planner.body.messages.find((message) => message.role === "tool")?.content);
}

/** An image segment as the OneBot implementation sends it. */
export function imageSegment(file: string, url: string): WireSegment {
  return { type: "image", data: { file, url } };
}
