import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { imageSegment, pictureScenes, toolResultAbout } from "../support/picture-scene.ts";
import { JPEG_2X2 } from "../support/pictures.ts";
import { nodeStdioPlugin, PluginSandbox } from "./stdio-fixtures.ts";

/**
 * The raw protocol, no SDK: `picture_info` asks for picture 0, a picture the message does not
 * have and a picture of a call that is not in flight, waits for the bot's three `picture`
 * lines and answers with them. Its PreToolUse hook tries to send into the chat (a hook's call
 * cannot) and allows, after recording the pictures it was given.
 */
const PICTURES = `
const readline = require("node:readline");
const write = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
const waiting = new Map();
let hookSaw = null;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params = {} } = JSON.parse(line);
  if (method === "picture") return waiting.get(params.requestId)?.(params);
  if (method === "activate") {
    return write({
      tools: [{ name: "picture_info", description: "图片信息", parameters: [] }],
      hooks: [{ event: "PreToolUse", matcher: "picture_info" }],
    });
  }
  if (method === "hook") {
    hookSaw = { pictures: params.pictures, hasCallId: typeof params.callId === "string" };
    write({ method: "send_message", params: { callId: params.callId, message: "钩子不能发消息" } });
    return write({ hook_result: { decision: "allow" } });
  }
  if (method === "execute_tool") {
    const ask = (requestId, callId, index) =>
      new Promise((resolve) => {
        waiting.set(requestId, resolve);
        write({ method: "fetch_picture", params: { callId, index, requestId } });
      });
    return Promise.all([ask("a", params.callId, 0), ask("b", params.callId, 5), ask("c", "gone:call", 0)]).then(
      ([a, b, c]) => {
        const bytes = Buffer.from(a.base64, "base64");
        write({ result: JSON.stringify({
          pictures: params.pictures, hookSaw,
          a: { mime: a.mime, size: bytes.length, sha256: a.sha256 }, b: b.error, c: c.error,
        }) });
      },
    );
  }
  write({ result: "ok" });
});
`;

describe("stdio plugins fetch the pictures of a call's message (fetch_picture → picture)", () => {
  const startWithPictures = pictureScenes();

  it("answers each fetch_picture with a picture line: the bytes in base64, or why not; a hook may fetch but not send", async () => {
    const sandbox = new PluginSandbox();
    try {
      nodeStdioPlugin(sandbox, "pictures", PICTURES);
      const scene = await startWithPictures({
        plugins: { dirs: [sandbox.root] },
        media: { allowPrivateNetworks: true },
      });
      const url = scene.pictures.serve("/cat.jpg", { body: JPEG_2X2 });
      const result = JSON.parse(await toolResultAbout(scene, "picture_info", imageSegment("cat.jpg", url)));
      const listed = [{ index: 0, kind: "image", fileId: "cat.jpg" }];
      expect(result).toEqual({
        pictures: listed,
        hookSaw: { pictures: listed, hasCallId: true },
        a: {
          mime: "image/jpeg",
          size: JPEG_2X2.length,
          sha256: createHash("sha256").update(JPEG_2X2).digest("hex"),
        },
        b: "the message has no picture 5",
        c: "the call is not in flight",
      });
      // Only the reply: the hook's send_message was skipped.
      expect(scene.qq.sent.map((message) => message.text)).toEqual(["看过了"]);
    } finally {
      sandbox.remove();
    }
  });
});
