/**
 * Installing a stranger's plugin package must not let it write outside its own folder or run
 * code before the operator has seen it (docs/plugin-install.md, docs/security.md): the
 * attacks of issue 51 on the installer. The packages are `.tgz` files as `npm pack` makes them
 * (a `package/` folder, gzipped tar), built here by hand with GNU tar so they can hold what
 * npm itself would never pack: links, devices, an `.npmrc`. They are installed with the
 * bot's own PluginInstaller and the real npm, as root where the tests run as root (CI).
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  INSTALL_RECORD,
  PluginInstaller,
  writeInstallRecord,
} from "../../src/plugins/install/plugin-installer.ts";
import { LogCapture } from "../support/log-capture.ts";

/** npm starts slowly on a busy machine, and a case packs and installs. */
const NPM_TIMEOUT_MS = 120_000;

/** A file of a package: its text, or a link to make in its place. */
type Entry = string | { symlink: string } | { hardlink: string } | { fifo: true };

describe("installing a plugin package", () => {
  const root = mkdtempSync(join(tmpdir(), "tsumugi-install-attacks-"));
  let count = 0;
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A stdio plugin package with `files` over its plugin.json, package.json and plugin.cjs; returns the `.tgz`. */
  const tarball = (files: Record<string, Entry> = {}, packageJson: Record<string, unknown> = {}): string => {
    const dir = join(root, `build-${++count}`);
    const pkg = join(dir, "package");
    const all: Record<string, Entry> = {
      "plugin.json": JSON.stringify({
        id: "stranger",
        name: "Stranger",
        version: "1.0.0",
        runtime: "stdio",
        entry: "node plugin.cjs",
        sdk: "^1.0.0",
      }),
      "package.json": JSON.stringify({ name: "tsumugi-plugin-stranger", version: "1.0.0", ...packageJson }),
      "plugin.cjs": "process.stdin.resume();\n",
      ...files,
    };
    for (const [name, entry] of Object.entries(all)) {
      const path = join(pkg, name);
      mkdirSync(dirname(path), { recursive: true });
      if (typeof entry === "string") writeFileSync(path, entry);
      else if ("symlink" in entry) symlinkSync(entry.symlink, path);
      else if ("hardlink" in entry) execFileSync("ln", [join(pkg, entry.hardlink), path]);
      else execFileSync("mkfifo", [path]);
    }
    const file = join(dir, "stranger-1.0.0.tgz");
    execFileSync("tar", ["-czf", file, "-C", dir, "package"]);
    return file;
  };
  const freshInstaller = () => {
    const pluginsDir = mkdtempSync(join(root, "plugins-"));
    const logs = new LogCapture();
    const installer = new PluginInstaller({
      settings: () => ({ dirs: [pluginsDir], sandbox: "auto", trusted: [] }),
      cwd: root,
      logger: logs.logger(),
    });
    return { installer, pluginsDir, logs };
  };

  it(
    "writes the install record in place of a link the package shipped, never through it",
    async () => {
      const victim = join(root, "victim-record.txt");
      const { installer, pluginsDir } = freshInstaller();
      await installer.install(tarball({ [INSTALL_RECORD]: { symlink: victim } }), {}).catch(() => {});
      expect(existsSync(victim)).toBe(false);
      // Wherever the package was unpacked, the record replaces a link rather than writing through it.
      const dir = mkdtempSync(join(root, "record-"));
      symlinkSync(victim, join(dir, INSTALL_RECORD));
      const record = {
        spec: "x",
        packageName: "y",
        version: "1.0.0",
        installedAt: "now",
        scriptsAllowed: false,
      };
      await writeInstallRecord(dir, record);
      expect(existsSync(victim)).toBe(false);
      expect(lstatSync(join(dir, INSTALL_RECORD)).isFile()).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, INSTALL_RECORD), "utf8"))).toEqual(record);
      expect(readdirSync(pluginsDir).filter((name) => !name.startsWith("."))).not.toContain("victim");
    },
    NPM_TIMEOUT_MS,
  );

  it(
    "refuses a package name that is not npm's (terminal escapes, slashes, spaces)",
    async () => {
      const { installer, pluginsDir } = freshInstaller();
      const spec = tarball({}, { name: "evil\u001b[2J\nname" });
      await expect(installer.preview(spec)).rejects.toMatchObject({
        code: "invalid_manifest",
        message: expect.stringContaining("is not a valid npm package name"),
      });
      await expect(installer.install(spec)).rejects.toMatchObject({ code: "invalid_manifest" });
      expect(readdirSync(pluginsDir)).toEqual([]);
    },
    NPM_TIMEOUT_MS,
  );

  it.each([
    ["a symbolic link", { "lib/config": { symlink: "/etc" } }, "lib/config (SymbolicLink)"],
    ["a hard link", { "copy.cjs": { hardlink: "plugin.cjs" } }, "copy.cjs (Link)"],
    ["a FIFO", { pipe: { fifo: true } }, "pipe (FIFO)"],
  ] as const)(
    "refuses a package holding %s, and unpacks nothing of it",
    async (_, files, named) => {
      const { installer, pluginsDir } = freshInstaller();
      const spec = tarball(files as Record<string, Entry>);
      await expect(installer.install(spec)).rejects.toMatchObject({
        code: "unsafe_package",
        message: expect.stringContaining(
          `holds package/${named}: a plugin package may hold only regular files and folders`,
        ),
      });
      expect(readdirSync(pluginsDir)).toEqual([]);
    },
    NPM_TIMEOUT_MS,
  );

  it(
    "gives npm none of the package's settings: its .npmrc cannot run a script as git, its node_modules are left out",
    async () => {
      // A dependency npm has to fetch with git: a repository on this machine.
      const repo = join(root, "dependency-repo");
      mkdirSync(repo);
      writeFileSync(
        join(repo, "package.json"),
        JSON.stringify({ name: "plain-dependency", version: "1.0.0" }),
      );
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo });
      git("init", "-q");
      git("add", ".");
      git("commit", "-qm", "dependency");
      // What the attack's .npmrc named as git: a script that leaves a mark.
      const mark = join(root, "git-script-ran");
      const script = join(root, "fake-git.sh");
      writeFileSync(script, `#!/bin/sh\ntouch ${mark}\nexec git "$@"\n`, { mode: 0o755 });
      const spec = tarball(
        {
          ".npmrc": `git=${script}\n`,
          ".yarnrc.yml": "yarnPath: evil.cjs\n",
          "node_modules/plain-dependency/index.js": "module.exports = 'shipped';\n",
          "bin/tool.sh": "#!/bin/sh\n",
        },
        { dependencies: { "plain-dependency": `git+file://${repo}` } },
      );
      execFileSync("chmod", ["6755", join(dirname(spec), "package", "bin", "tool.sh")]);
      execFileSync("tar", ["-czf", spec, "-C", dirname(spec), "package"]);
      const { installer, pluginsDir } = freshInstaller();
      await installer.install(spec);
      expect(existsSync(mark)).toBe(false);
      const dir = join(pluginsDir, "stranger");
      expect(existsSync(join(dir, ".npmrc"))).toBe(false);
      expect(existsSync(join(dir, ".yarnrc.yml"))).toBe(false);
      // The dependency came from its repository, not from the package's own node_modules.
      expect(existsSync(join(dir, "node_modules", "plain-dependency", "package.json"))).toBe(true);
      expect(existsSync(join(dir, "node_modules", "plain-dependency", "index.js"))).toBe(false);
      expect(lstatSync(join(dir, "bin", "tool.sh")).mode & 0o7777).toBe(0o755);
    },
    NPM_TIMEOUT_MS,
  );

  it(
    "installs exactly what was previewed: a git repository changed between the two clicks is refused",
    async () => {
      const repo = join(root, "plugin-repo");
      const files = (manifest: Record<string, unknown>) => {
        writeFileSync(
          join(repo, "plugin.json"),
          JSON.stringify({ id: "moving", name: "Moving", version: "1.0.0", sdk: "^1.0.0", ...manifest }),
        );
        writeFileSync(
          join(repo, "package.json"),
          JSON.stringify({ name: "tsumugi-plugin-moving", version: "1.0.0" }),
        );
        writeFileSync(join(repo, "plugin.cjs"), "process.stdin.resume();\n");
        writeFileSync(join(repo, "index.ts"), "export default {};\n");
      };
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo });
      mkdirSync(repo);
      files({ runtime: "stdio", entry: "node plugin.cjs" });
      git("init", "-q");
      git("add", ".");
      git("commit", "-qm", "a harmless stdio plugin");
      const spec = `git+file://${repo}`;
      const { installer, pluginsDir } = freshInstaller();
      const shown = await installer.preview(spec);
      expect(shown).toMatchObject({
        runtime: "stdio",
        launch: "sandboxed",
        integrity: expect.stringMatching(/^sha512-/),
      });

      // Same id and version, now in the bot's process and asking for its API key.
      files({ runtime: "node", entry: "index.ts", env: ["OPENAI_API_KEY"] });
      git("commit", "-qam", "the same version, in-process");
      await expect(installer.install(spec, { expect: shown })).rejects.toMatchObject({
        code: "changed",
        message: expect.stringContaining("changed since it was previewed"),
      });
      expect(readdirSync(pluginsDir)).toEqual([]);

      const again = await installer.preview(spec);
      expect(again).toMatchObject({ runtime: "node", env: ["OPENAI_API_KEY"] });
      expect(await installer.install(spec, { expect: again })).toMatchObject({ runtime: "node" });
      expect(JSON.parse(readFileSync(join(pluginsDir, "moving", INSTALL_RECORD), "utf8"))).toMatchObject({
        integrity: again.integrity,
      });
    },
    NPM_TIMEOUT_MS,
  );

  it(
    "never shows or logs the token of a git+https://user:TOKEN@… spec",
    async () => {
      const token = "ghp_installTokenOfTheOperator51";
      const { installer, pluginsDir, logs } = freshInstaller();
      // Nothing listens on port 9: npm fails, and says so with the URL.
      const spec = `git+https://me:${token}@127.0.0.1:9/me/plugin.git`;
      const failure = await installer.preview(spec).catch((error: Error) => error);
      expect(failure).toMatchObject({
        code: "pack_failed",
        message: expect.stringContaining("git+https://***@127.0.0.1:9"),
      });
      expect((failure as Error).message).not.toContain(token);

      // Installed from such a spec: listed (console, npm run plugin -- list) and logged without it.
      const tarballSpec = tarball();
      await installer.install(tarballSpec);
      const dir = join(pluginsDir, "stranger");
      const record = JSON.parse(readFileSync(join(dir, INSTALL_RECORD), "utf8"));
      await writeInstallRecord(dir, { ...record, spec });
      const [listed] = await installer.list();
      expect(listed?.installed?.spec).toBe("git+https://***@127.0.0.1:9/me/plugin.git");
      expect(await installer.installedFrom("stranger")).toBe(spec);
      expect(JSON.stringify(logs.lines)).not.toContain(token);
      // The record itself is the bot's user's only.
      expect(lstatSync(join(dir, INSTALL_RECORD)).mode & 0o777).toBe(0o600);
    },
    NPM_TIMEOUT_MS,
  );
});
