import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { currentLang } from "../i18n.ts";

/** What the server shows of a package before it is installed (src/plugins/install/plugin-installer.ts). */
interface PluginPreview {
  spec: string;
  packageName: string;
  id: string;
  name: string;
  version: string;
  description: string;
  runtime: string;
  entry: string;
  sdk?: string;
  env: string[];
  network: boolean;
  launch: "in-process" | "sandboxed" | "not-sandboxed";
  installScripts: string[];
  /** The tarball's digest: the install is refused if the package changed since this preview. */
  integrity: string;
  dependencies: string[];
  installedVersion?: string;
}

interface InstalledPlugin {
  id: string;
  version: string;
  installed?: { spec: string; packageName: string; scriptsAllowed: boolean };
}

// This panel's own texts, [Chinese, English] like the rest of the console's.
const TEXT = {
  title: ["安装插件", "Install a plugin"],
  specLabel: ["npm 包名、git 地址或本机 .tgz 路径", "npm package name, git URL or a local .tgz path"],
  preview: ["查看", "Preview"],
  install: ["安装", "Install"],
  working: ["处理中…", "Working…"],
  allowScripts: [
    "允许运行安装脚本（默认以 --ignore-scripts 安装）",
    "Allow install scripts (installed with --ignore-scripts otherwise)",
  ],
  runtime: ["运行方式", "Runtime"],
  runs: ["运行于", "Runs"],
  env: ["请求的环境变量", "Environment asked for"],
  network: ["网络", "Network"],
  dependencies: ["依赖", "Dependencies"],
  scripts: ["安装脚本", "Install scripts"],
  none: ["无", "none"],
  yes: ["可以联网", "yes"],
  no: ["不能联网", "no"],
  asBot: ["与机器人相同", "as the bot"],
  "in-process": ["机器人进程内（不隔离）", "inside the bot's process (not isolated)"],
  sandboxed: ["隔离的进程（沙箱）", "a sandboxed process"],
  "not-sandboxed": ["未隔离的进程", "a process that is not sandboxed"],
  installedNow: ["已安装版本", "Installed now"],
  installed: ["已安装", "Installed"],
  installedList: ["从软件包安装的插件", "Plugins installed from packages"],
  update: ["更新", "Update"],
  uninstall: ["卸载", "Uninstall"],
  confirmUninstall: ["确认卸载", "Confirm uninstall"],
  cancel: ["取消", "Cancel"],
} as const;

const text = (key: keyof typeof TEXT): string => TEXT[key][currentLang() === "zh" ? 0 : 1];

/**
 * Installing plugins from npm packages: the manifest and what it asks for are shown first, then
 * installed (the plugin list above follows by itself); packages installed this way can be
 * updated and uninstalled.
 */
export function PluginInstallPanel() {
  const [spec, setSpec] = useState("");
  const [allowScripts, setAllowScripts] = useState(false);
  const [preview, setPreview] = useState<PluginPreview | null>(null);
  const [installed, setInstalled] = useState<InstalledPlugin[]>([]);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  const refresh = async () => {
    const answer = await api.get<{ plugins: InstalledPlugin[] }>("/api/plugins/installed");
    setInstalled(answer.plugins.filter((plugin) => plugin.installed));
  };
  useEffect(() => void refresh(), []);

  const run = async (operation: () => Promise<string | undefined>) => {
    setBusy(true);
    setMessage(null);
    try {
      const done = await operation();
      if (done) setMessage({ ok: true, text: done });
    } catch (error) {
      setMessage({ ok: false, text: error instanceof ApiError ? error.message : String(error) });
    } finally {
      setBusy(false);
    }
  };
  const showPreview = () =>
    run(async () => {
      setPreview(null);
      setPreview(
        (await api.post<{ preview: PluginPreview }>("/api/plugins/install/preview", { spec })).preview,
      );
      return undefined;
    });
  const install = (shown: PluginPreview) =>
    run(async () => {
      const body = {
        spec: shown.spec,
        allowScripts,
        expect: { id: shown.id, version: shown.version, integrity: shown.integrity },
      };
      const answer = await api.post<{ installed: PluginPreview }>("/api/plugins/install", body);
      setPreview(null);
      setSpec("");
      await refresh();
      return `${text("installed")}: ${answer.installed.id} ${answer.installed.version}`;
    });
  const update = (id: string) =>
    run(async () => {
      const answer = await api.post<{ installed: PluginPreview }>(`/api/plugins/${id}/update`, {
        allowScripts,
      });
      await refresh();
      return `${text("installed")}: ${answer.installed.id} ${answer.installed.version}`;
    });
  const uninstall = (id: string) =>
    run(async () => {
      setConfirming(null);
      await api.post(`/api/plugins/${id}/uninstall`, {});
      await refresh();
      return `${text("uninstall")}: ${id}`;
    });

  return (
    <article class="card plugin-install">
      <h2>{text("title")}</h2>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          void showPreview();
        }}
      >
        <input
          name="spec"
          aria-label={text("specLabel")}
          placeholder={text("specLabel")}
          value={spec}
          onInput={(event) => setSpec(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy || !spec.trim()}>
          {busy ? text("working") : text("preview")}
        </button>
      </form>
      <label class="small">
        <input
          type="checkbox"
          name="allowScripts"
          checked={allowScripts}
          onChange={(event) => setAllowScripts(event.currentTarget.checked)}
        />{" "}
        {text("allowScripts")}
      </label>
      {preview && <PreviewCard preview={preview} busy={busy} onInstall={() => void install(preview)} />}
      {message && (
        <div class={`banner small ${message.ok ? "ok" : "error"}`} role={message.ok ? "status" : "alert"}>
          {message.text}
        </div>
      )}
      {installed.length > 0 && (
        <>
          <h3>{text("installedList")}</h3>
          <ul class="components">
            {installed.map((plugin) => (
              <li key={plugin.id} data-installed={plugin.id}>
                <span class="mono">{plugin.id}</span> <span class="small muted">v{plugin.version}</span>{" "}
                <span class="small muted mono">{plugin.installed?.spec}</span>{" "}
                <button type="button" disabled={busy} onClick={() => void update(plugin.id)}>
                  {text("update")}
                </button>{" "}
                {confirming === plugin.id ? (
                  <>
                    <button
                      type="button"
                      class="danger"
                      disabled={busy}
                      onClick={() => void uninstall(plugin.id)}
                    >
                      {text("confirmUninstall")}
                    </button>{" "}
                    <button type="button" onClick={() => setConfirming(null)}>
                      {text("cancel")}
                    </button>
                  </>
                ) : (
                  <button type="button" disabled={busy} onClick={() => setConfirming(plugin.id)}>
                    {text("uninstall")}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </article>
  );
}

function PreviewCard({
  preview,
  busy,
  onInstall,
}: {
  preview: PluginPreview;
  busy: boolean;
  onInstall: () => void;
}) {
  const list = (items: string[]) => (items.length > 0 ? items.join(", ") : text("none"));
  const network = preview.runtime === "node" ? text("asBot") : preview.network ? text("yes") : text("no");
  return (
    <div class="plugin-preview" data-preview={preview.id}>
      <h3>
        {preview.name} <span class="mono small muted">{preview.id}</span>{" "}
        <span class="small muted">v{preview.version}</span>{" "}
        <span class="small muted mono">{preview.packageName}</span>
      </h3>
      {preview.description && <p>{preview.description}</p>}
      <dl class="small">
        <dt>{text("runtime")}</dt>
        <dd>
          {preview.runtime} <span class="mono">{preview.entry}</span> {preview.sdk && `sdk ${preview.sdk}`}
        </dd>
        <dt>{text("runs")}</dt>
        <dd data-launch={preview.launch}>{text(preview.launch)}</dd>
        <dt>{text("env")}</dt>
        <dd class="mono">{list(preview.env)}</dd>
        <dt>{text("network")}</dt>
        <dd>{network}</dd>
        <dt>{text("dependencies")}</dt>
        <dd class="mono">{list(preview.dependencies)}</dd>
        <dt>{text("scripts")}</dt>
        <dd class="mono" data-scripts>
          {list(preview.installScripts)}
        </dd>
        {preview.installedVersion && (
          <>
            <dt>{text("installedNow")}</dt>
            <dd>{preview.installedVersion}</dd>
          </>
        )}
      </dl>
      <button type="button" class="primary" disabled={busy} onClick={onInstall}>
        {text("install")}
      </button>
    </div>
  );
}
