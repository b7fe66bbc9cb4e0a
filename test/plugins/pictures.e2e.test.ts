import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { extensionPlugin } from "../reply/extension-fixtures.ts";
import { ALICE, GROUP, mention } from "../support/messages.ts";
import { imageSegment, pictureScenes, toolResultAbout } from "../support/picture-scene.ts";
import { JPEG_2X2, PNG_1X1 } from "../support/pictures.ts";
import { type Scene, startScene } from "../support/scene.ts";
import { PluginSandbox } from "./plugin-fixtures.ts";

/**
 * A tool that fetches the first picture of the message it was called for, and a guard that
 * fetches it too and refuses PNGs: both answers reach the model, so the test reads them there.
 */
const LOOKER = `import { Hook, Plugin, Tool } from "tsumugi/sdk";
import type { HookContext, ToolContext } from "tsumugi/sdk";

export default class Looker extends Plugin {
  @Tool("inspect_picture", { description: "看看消息里的图", parameters: {} })
  async inspect(_args: unknown, context: ToolContext) {
    const [picture] = context.pictures;
    if (!picture) return { pictures: 0 };
    try {
      const { mime, bytes, sha256 } = await picture.fetch();
      return { kind: picture.kind, fileId: picture.fileId, description: picture.description ?? null, mime, size: bytes.length, sha256 };
    } catch (error) {
      return { kind: picture.kind, error: (error as Error).message };
    }
  }

  @Hook("png_guard", { event: "PreToolUse", matcher: "inspect_picture" })
  async guard(_input: unknown, context: HookContext) {
    const [picture] = context.pictures;
    if (!picture) return undefined;
    // One that cannot be fetched is the tool's to report.
    const fetched = await picture.fetch().catch(() => undefined);
    if (fetched?.mime !== "image/png") return undefined;
    return { decision: "deny", message: \`不看 PNG（\${fetched.bytes.length} 字节）\` };
  }
}
`;

/** The function-declaration style: the function's `event` carries the pictures. */
const SIZES = {
  "index.ts": `export const functionDeclarations = [{ name: "picture_size", description: "图有多大" }];
export const dynamicImports = { "./size.ts": ["picture_size"] };`,
  "size.ts": `import type { PluginEvent, ToolContext } from "tsumugi/sdk";
export async function picture_size(_bot: unknown, event: PluginEvent & Pick<ToolContext, "pictures">) {
  return { size: (await event.pictures[0]!.fetch()).bytes.length, user: event.user_id };
}`,
};

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("plugins see the pictures of the message they were called for", () => {
  let sandbox: PluginSandbox;
  const startWithPictures = pictureScenes();

  afterEach(() => sandbox.remove());

  const start = (
    llm: Record<string, unknown> = {},
    media: Record<string, unknown> = { allowPrivateNetworks: true },
  ) => {
    sandbox = new PluginSandbox();
    sandbox.add("looker", { "index.ts": LOOKER });
    sandbox.add("sizes", SIZES);
    return startWithPictures({ plugins: { dirs: [sandbox.root] }, llm, media });
  };

  it("a tool reads the picture's kind, file id and description and fetches its bytes; the guard fetches it too", async () => {
    const scene = await start({ models: { vision: ["main/scripted-model"] } });
    const url = scene.pictures.serve("/cat.jpg", { body: JPEG_2X2 });
    const result = await toolResultAbout(scene, "inspect_picture", imageSegment("cat.jpg", url), [
      { text: "一只猫" },
    ]);
    expect(JSON.parse(result)).toEqual({
      kind: "image",
      fileId: "cat.jpg",
      description: "一只猫",
      mime: "image/jpeg",
      size: JPEG_2X2.length,
      sha256: sha256(JPEG_2X2),
    });
    // Described once (the vision call), then fetched by the guard and the tool through the bot.
    expect(scene.pictures.requests).toEqual(["/cat.jpg", "/cat.jpg", "/cat.jpg"]);
  });

  it("a PreToolUse guard fetches the picture and denies with what it saw", async () => {
    const scene = await start();
    const url = scene.pictures.serve("/shot.png", { body: PNG_1X1 });
    const result = await toolResultAbout(scene, "inspect_picture", imageSegment("shot.png", url));
    expect(result).toBe(`调用被拒绝：不看 PNG（${PNG_1X1.length} 字节）`);
  });

  it("function-declaration style: a function reads event.pictures", async () => {
    const scene = await start();
    const url = scene.pictures.serve("/cat.jpg", { body: JPEG_2X2 });
    const result = await toolResultAbout(scene, "picture_size", imageSegment("cat.jpg", url));
    expect(JSON.parse(result)).toEqual({ size: JPEG_2X2.length, user: ALICE });
  });

  it("a fetch that fails rejects with the fetcher's reason", async () => {
    const scene = await start();
    const url = `${scene.pictures.baseUrl}/gone.png`;
    const result = await toolResultAbout(scene, "inspect_picture", imageSegment("gone.png", url));
    expect(JSON.parse(result).error).toBe("the picture could not be fetched: HTTP 404");
  });

  it("never fetches from a loopback address for a plugin unless media.allowPrivateNetworks", async () => {
    const scene = await start({}, {});
    const url = scene.pictures.serve("/shot.jpg", { body: JPEG_2X2 });
    const result = await toolResultAbout(scene, "inspect_picture", imageSegment("shot.jpg", url));
    expect(JSON.parse(result)).toMatchObject({
      kind: "image",
      error: expect.stringMatching(/^the picture could not be fetched: /),
    });
    expect(scene.pictures.requests).toEqual([]);
  });
});

describe("a reply extension sends pictures it made", () => {
  let sandbox: PluginSandbox;
  let scene: Scene | undefined;

  afterEach(async () => {
    await scene?.close();
    scene = undefined;
    sandbox.remove();
  });

  it("sends an Image made from bytes and a base64:// image segment after the reply text", async () => {
    const pixel = PNG_1X1.toString("base64");
    sandbox = new PluginSandbox();
    sandbox.add("painter", {
      "index.ts": extensionPlugin({
        name: "paint",
        options: `{ parameters: {}, description: "配一张图" }`,
        body: `if (payload.phase === "prepare") return {};
    const made = Buffer.from("${pixel}", "base64");
    return {
      messages: [
        ...payload.messages,
        { segments: [{ type: "image", data: "一个像素", binary_data_base64: made.toString("base64") }], quote_previous: false },
        { segments: [{ type: "dict", data: { type: "image", data: { file: "base64://${pixel}" } } }], quote_previous: false },
      ],
    };`,
      }),
    });
    scene = await startScene({ config: { plugins: { dirs: [sandbox.root] } } });
    scene.llm.enqueue(
      { toolCalls: [{ name: "reply", arguments: { plugin_options: { "painter.paint": {} } } }] },
      { text: "给你画了" },
    );
    scene.qq.pushGroupMessage({
      groupId: GROUP,
      userId: ALICE,
      nickname: "Alice",
      message: mention("画一个"),
    });
    await scene.bot.turnFinished(1, 8_000);
    expect(scene.qq.sent.map((message) => message.message)).toEqual([
      [{ type: "text", data: { text: "给你画了" } }],
      [{ type: "image", data: { file: `base64://${pixel}` } }],
      [{ type: "image", data: { file: `base64://${pixel}` } }],
    ]);
  });
});
