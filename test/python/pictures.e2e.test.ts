import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { imageSegment, pictureScenes, toolResultAbout } from "../support/picture-scene.ts";
import { JPEG_2X2, PNG_1X1 } from "../support/pictures.ts";
import { PluginSandbox, pythonPlugin } from "./python-fixtures.ts";

/**
 * Class style: a tool fetching `event.pictures[0]` and a guard fetching its `pictures`,
 * refusing PNGs. Function-declaration style: a function reading `event.pictures` the same way.
 */
const LOOKER = `
import hashlib

from maibot_sdk import Hook, MaiBotPlugin, PictureError, Tool


class Looker(MaiBotPlugin):
    @Tool("inspect_picture", "看看消息里的图", {})
    async def inspect_picture(self, event):
        picture = event.pictures[0]
        try:
            fetched = await picture.fetch()
        except PictureError as error:
            return {"kind": picture.kind, "error": str(error)}
        return {"kind": picture.kind, "file_id": picture.file_id, "description": picture.description,
                "mime": fetched.mime, "size": len(fetched.bytes), "sha256": fetched.sha256,
                "checked": hashlib.sha256(fetched.bytes).hexdigest() == fetched.sha256}

    @Hook("png_guard", event="PreToolUse", matcher="inspect_picture")
    async def png_guard(self, pictures):
        if not pictures:
            return None
        try:
            fetched = await pictures[0].fetch()
        except PictureError:
            return None
        if fetched.mime == "image/png":
            return {"decision": "deny", "message": f"不看 PNG（{len(fetched.bytes)} 字节）"}
        return None


def create_plugin():
    return Looker()
`;

const FUNCTIONS = `
plugin_description = "看图"
dynamic_imports = {"looker_functions.look": ["picture_size"]}
function_declarations = [{"name": "picture_size", "description": "图有多大"}]
`;

const LOOK = `
async def picture_size(bot, event, config):
    fetched = await event.pictures[0].fetch()
    return {"size": len(fetched.bytes), "pictures": len(event.pictures)}
`;

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("Python plugins see the pictures of the message they were called for", () => {
  let sandbox: PluginSandbox;
  const startWithPictures = pictureScenes();

  afterEach(() => sandbox.remove());

  const start = (llm: Record<string, unknown> = {}) => {
    sandbox = new PluginSandbox();
    pythonPlugin(sandbox, "looker", { "plugin.py": LOOKER });
    pythonPlugin(sandbox, "looker_functions", { "__init__.py": FUNCTIONS, "look.py": LOOK }, { entry: "." });
    return startWithPictures({
      plugins: { dirs: [sandbox.root] },
      llm,
      media: { allowPrivateNetworks: true },
    });
  };

  it("class style: await event.pictures[0].fetch() gets the bytes through the bot, with the description", async () => {
    const scene = await start({ models: { vision: ["main/scripted-model"] } });
    const url = scene.pictures.serve("/cat.jpg", { body: JPEG_2X2 });
    const result = await toolResultAbout(scene, "inspect_picture", imageSegment("cat.jpg", url), [
      { text: "一只猫" },
    ]);
    expect(JSON.parse(result)).toEqual({
      kind: "image",
      file_id: "cat.jpg",
      description: "一只猫",
      mime: "image/jpeg",
      size: JPEG_2X2.length,
      sha256: sha256(JPEG_2X2),
      checked: true,
    });
  });

  it("class style: a PreToolUse hook gets pictures, fetches one and denies with what it saw", async () => {
    const scene = await start();
    const url = scene.pictures.serve("/shot.png", { body: PNG_1X1 });
    const result = await toolResultAbout(scene, "inspect_picture", imageSegment("shot.png", url));
    expect(result).toBe(`调用被拒绝：不看 PNG（${PNG_1X1.length} 字节）`);
  });

  it("a fetch that fails raises PictureError with the fetcher's reason", async () => {
    const scene = await start();
    const url = `${scene.pictures.baseUrl}/gone.jpg`;
    const result = await toolResultAbout(scene, "inspect_picture", imageSegment("gone.jpg", url));
    expect(JSON.parse(result)).toEqual({
      kind: "image",
      error: "the picture could not be fetched: HTTP 404",
    });
  });

  it("function-declaration style: a function reads event.pictures too", async () => {
    const scene = await start();
    const url = scene.pictures.serve("/cat.jpg", { body: JPEG_2X2 });
    const result = await toolResultAbout(scene, "picture_size", imageSegment("cat.jpg", url));
    expect(JSON.parse(result)).toEqual({ size: JPEG_2X2.length, pictures: 1 });
  });
});
