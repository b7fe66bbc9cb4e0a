import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { chatScenes } from "../support/chat-scene.ts";
import { PluginPackages } from "../support/plugin-packages.ts";

const TOKEN = "install-token";
/** npm starts slowly (seconds on a busy machine), and each test packs and installs more than once. */
const NPM_TEST_TIMEOUT_MS = 180_000;
const GREETER_V2 = `import { Command, type CommandContext, Plugin } from "tsumugi/sdk";

export default class GreeterPlugin extends Plugin {
  @Command("greet", { description: "打招呼", prefix: ["/greet"] })
  greet(context: CommandContext): string {
    return \`你好呀，\${context.rest}（第二版）\`;
  }
}
`;

describe("plugins installed from npm packages through the console API", () => {
  const packages = new PluginPackages();
  const start = chatScenes();
  const folders: string[] = [];
  afterAll(() => {
    packages.remove();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  async function startWithPluginFolder() {
    const pluginsDir = mkdtempSync(join(tmpdir(), "tsumugi-installed-"));
    folders.push(pluginsDir);
    const scene = await start({ config: { server: { token: TOKEN }, plugins: { dirs: [pluginsDir] } } });
    return { ...scene, pluginsDir, api: apiClient(scene.bot.baseUrl, TOKEN) };
  }

  it(
    "shows the manifest, installs without running scripts, answers over the wire, uninstalls",
    async () => {
      const { api, ask, expectReply, expectNoReply, pluginsDir } = await startWithPluginFolder();
      const tarball = packages.pack("greeter");

      const preview = await api.post("/api/plugins/install/preview", { spec: tarball });
      expect(preview.status).toBe(200);
      expect(preview.body.preview).toMatchObject({
        id: "greeter",
        name: "Greeter",
        version: "1.0.0",
        runtime: "node",
        launch: "in-process",
        packageName: "tsumugi-plugin-greeter",
        installScripts: ["postinstall"],
        env: [],
      });
      expect(readdirSync(pluginsDir)).toEqual([]);

      const installed = await api.post("/api/plugins/install", {
        spec: tarball,
        expect: { id: "greeter", version: "1.0.0" },
      });
      expect(installed.status).toBe(200);
      expect(installed.body.plugin).toMatchObject({ id: "greeter", state: "enabled" });
      expect(existsSync(join(pluginsDir, "greeter", "plugin.json"))).toBe(true);
      // npm install ran with --ignore-scripts: the package's postinstall left no mark.
      expect(existsSync(join(pluginsDir, "greeter", "postinstall-ran.txt"))).toBe(false);

      ask("/greet 世界", { mention: false });
      await expectReply("你好，世界");

      const listed = await api.get("/api/plugins/installed");
      expect(listed.body.plugins).toMatchObject([
        {
          id: "greeter",
          version: "1.0.0",
          installed: { packageName: "tsumugi-plugin-greeter", scriptsAllowed: false },
        },
      ]);

      const uninstalled = await api.post("/api/plugins/greeter/uninstall", {});
      expect(uninstalled.status).toBe(200);
      expect(readdirSync(pluginsDir)).toEqual([]);
      expect(
        (await api.get("/api/plugins")).body.plugins.map((plugin: { id: string }) => plugin.id),
      ).not.toContain("greeter");
      ask("/greet 世界", { mention: false });
      await expectNoReply();
    },
    NPM_TEST_TIMEOUT_MS,
  );

  it(
    "updates a running plugin to a new version, and runs install scripts only when allowed",
    async () => {
      const { api, ask, expectReply, pluginsDir } = await startWithPluginFolder();
      const first = await api.post("/api/plugins/install", {
        spec: packages.pack("greeter"),
        allowScripts: true,
      });
      expect(first.status).toBe(200);
      expect(existsSync(join(pluginsDir, "greeter", "postinstall-ran.txt"))).toBe(true);

      const second = packages.pack("greeter", { version: "1.1.0", files: { "index.ts": GREETER_V2 } });
      const updated = await api.post("/api/plugins/greeter/update", { spec: second });
      expect(updated.status).toBe(200);
      expect(updated.body.plugin).toMatchObject({ id: "greeter", version: "1.1.0", state: "enabled" });
      expect(existsSync(join(pluginsDir, "greeter", "postinstall-ran.txt"))).toBe(false);
      expect(readdirSync(pluginsDir)).toEqual(["greeter"]);

      ask("/greet 世界", { mention: false });
      await expectReply("你好呀，世界（第二版）");
    },
    NPM_TEST_TIMEOUT_MS,
  );

  it(
    "refuses what is not a plugin, a broken manifest, an id taken, a missing file and a caller without the token",
    async () => {
      const { api, bot, pluginsDir } = await startWithPluginFolder();
      const refused = async (spec: string) => (await api.post("/api/plugins/install", { spec })).body;

      expect(await refused(packages.pack("greeter", { without: ["plugin.json"] }))).toMatchObject({
        error: "no_manifest",
        message: expect.stringContaining("has no plugin.json"),
      });
      expect(await refused(packages.pack("greeter", { manifest: { id: "Bad.Id" } }))).toMatchObject({
        error: "invalid_manifest",
        message: expect.stringContaining('id "Bad.Id" must match'),
      });
      expect(await refused(join(packages.root, "no-such-plugin.tgz"))).toMatchObject({
        error: "pack_failed",
        message: expect.stringContaining("npm pack"),
      });

      const tarball = packages.pack("greeter");
      expect((await api.post("/api/plugins/install", { spec: tarball })).status).toBe(200);
      const again = await api.post("/api/plugins/install", { spec: tarball });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({
        error: "id_clash",
        message: expect.stringContaining("update it instead"),
      });
      expect(readdirSync(pluginsDir)).toEqual(["greeter"]);

      const stranger = apiClient(bot.baseUrl);
      expect((await stranger.post("/api/plugins/install", { spec: tarball })).status).toBe(401);
      expect((await stranger.post("/api/plugins/greeter/uninstall", {})).status).toBe(401);
      expect(readdirSync(pluginsDir)).toEqual(["greeter"]);
    },
    NPM_TEST_TIMEOUT_MS,
  );
});
