import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { followStream } from "../event-stream.ts";
import { formatTime, type TextKey, t } from "../i18n.ts";
import { SchemaForm } from "../schema-form.tsx";
import type { PluginStatus } from "../types.ts";

const STATE_LABELS: Record<PluginStatus["state"], TextKey> = {
  enabled: "stateEnabled",
  disabled: "stateDisabled",
  failed: "stateFailed",
};

/** Every plugin with its components, live status, switches, reload and a generated config form. */
export function PluginsPage() {
  const [plugins, setPlugins] = useState<PluginStatus[] | null>(null);
  const [persistent, setPersistent] = useState(true);

  useEffect(() => {
    void api.get<{ plugins: PluginStatus[]; persistent: boolean }>("/api/plugins").then((answer) => {
      setPlugins(answer.plugins);
      setPersistent(answer.persistent);
    });
    return followStream("/api/plugins/stream", (_event, data) => setPlugins(data as PluginStatus[]));
  }, []);

  const replace = (status: PluginStatus) =>
    setPlugins((current) => current?.map((plugin) => (plugin.id === status.id ? status : plugin)) ?? null);

  if (!plugins) return <p>{t("loading")}</p>;
  return (
    <section class="page plugins">
      <header class="page-head">
        <h1>{t("pluginsTitle")}</h1>
      </header>
      {!persistent && <p class="muted small">{t("pluginsNotPersistent")}</p>}
      {plugins.length === 0 && <p class="muted">{t("pluginsNone")}</p>}
      {plugins.map((plugin) => (
        <PluginCard key={plugin.dir} plugin={plugin} onStatus={replace} />
      ))}
    </section>
  );
}

function PluginCard({
  plugin,
  onStatus,
}: {
  plugin: PluginStatus;
  onStatus: (status: PluginStatus) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [configSaved, setConfigSaved] = useState(false);

  const act = async (request: () => Promise<{ plugin: PluginStatus }>) => {
    setBusy(true);
    setProblem(null);
    try {
      onStatus((await request()).plugin);
      return true;
    } catch (error) {
      setProblem(error instanceof ApiError ? error.message : String(error));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const post = (path: string) => act(() => api.post<{ plugin: PluginStatus }>(path, {}));
  const ref = encodeURIComponent(plugin.id);

  return (
    <article class="card plugin" data-plugin={plugin.id}>
      <header class="plugin-head">
        <h2>
          {plugin.name} <span class="mono small muted">{plugin.id}</span>{" "}
          <span class="small muted">v{plugin.version}</span>
        </h2>
        <span class={`badge state-${plugin.state}`}>{t(STATE_LABELS[plugin.state])}</span>
        <span class="badge">{plugin.runtime}</span>
        <div class="actions">
          {plugin.state === "disabled" ? (
            <button type="button" disabled={busy} onClick={() => void post(`/api/plugins/${ref}/enable`)}>
              {t("pluginEnable")}
            </button>
          ) : (
            <button type="button" disabled={busy} onClick={() => void post(`/api/plugins/${ref}/disable`)}>
              {t("pluginDisable")}
            </button>
          )}
          <button type="button" disabled={busy} onClick={() => void post(`/api/plugins/${ref}/reload`)}>
            {t("pluginReload")}
          </button>
        </div>
      </header>
      {plugin.description && <p>{plugin.description}</p>}
      <div class="mono small muted">{plugin.dir}</div>
      {plugin.loadedAt && (
        <div class="small muted">
          {t("pluginLoadedAt")} {formatTime(plugin.loadedAt)}
        </div>
      )}
      {plugin.error && (
        <div class="banner error small">
          {t("pluginLastError")}
          {plugin.errorAt ? ` (${formatTime(plugin.errorAt)})` : ""}: <span class="mono">{plugin.error}</span>
        </div>
      )}
      {problem && (
        <div class="banner error small" role="alert">
          {problem}
        </div>
      )}
      {plugin.components.length > 0 && (
        <>
          <h3>{t("pluginComponents")}</h3>
          <ul class="components">
            {plugin.components.map((component) => (
              <li key={component.fullName} data-component={component.fullName}>
                <label class="inline">
                  <input
                    type="checkbox"
                    checked={component.enabled}
                    disabled={busy || plugin.state !== "enabled"}
                    onChange={(event) =>
                      void post(
                        `/api/plugins/${encodeURIComponent(component.fullName)}/${event.currentTarget.checked ? "enable" : "disable"}`,
                      )
                    }
                  />
                  <span class="badge">{component.kind}</span> <span class="mono">{component.fullName}</span>
                </label>
                <span class="muted small"> {component.description}</span>
                {component.error && <div class="error small">{component.error}</div>}
              </li>
            ))}
          </ul>
        </>
      )}
      {/* Runtime-specific state (stdio process and restart count, web_ui widgets) renders here
          from the fields its runtime adds to the plugin's status. */}
      {plugin.configSchema?.properties && Object.keys(plugin.configSchema.properties).length > 0 && (
        <details class="plugin-config">
          <summary>{t("pluginConfig")}</summary>
          <SchemaForm
            key={JSON.stringify(plugin.config ?? {})}
            schema={plugin.configSchema}
            value={plugin.config ?? {}}
            busy={busy}
            submitLabel={t("pluginSaveConfig")}
            onSubmit={async (config) => {
              setConfigSaved(await act(() => api.put(`/api/plugins/${ref}/config`, { config })));
            }}
          />
          {configSaved && <output class="ok small">{t("pluginConfigSaved")}</output>}
        </details>
      )}
    </article>
  );
}
