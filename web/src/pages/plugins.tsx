import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { followStream } from "../event-stream.ts";
import { formatTime, type TextKey, t } from "../i18n.ts";
import { SchemaForm } from "../schema-form.tsx";
import type { PluginStatus, ProcessStatus } from "../types.ts";
import { PluginInstallPanel } from "./plugin-install.tsx";

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
      <PluginInstallPanel />
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
          <span data-user-content>{plugin.name}</span> <span class="mono small muted">{plugin.id}</span>{" "}
          <span class="small muted">v{plugin.version}</span>
        </h2>
        <span class={`badge state-${plugin.state}`}>{t(STATE_LABELS[plugin.state])}</span>
        <span class="badge">{plugin.runtime}</span>
        {plugin.launch && (
          <span
            class={`badge launch-${plugin.launch}`}
            data-launch={plugin.launch}
            title={t(`launchHint_${plugin.launch}` as TextKey)}
          >
            {t(`launch_${plugin.launch}` as TextKey)}
          </span>
        )}
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
      {plugin.description && <p data-user-content>{plugin.description}</p>}
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
                <span class="muted small" data-user-content>
                  {" "}
                  {component.description}
                </span>
                {component.error && <div class="error small">{component.error}</div>}
              </li>
            ))}
          </ul>
        </>
      )}
      {plugin.process && <ProcessState process={plugin.process} />}
      {plugin.widgets && plugin.widgets.length > 0 && <Widgets widgets={plugin.widgets} />}
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

/** A stdio plugin's process: state (activating, running, …), pid, restarts, failures and its last error. */
function ProcessState({ process }: { process: ProcessStatus }) {
  return (
    <div class="process small" data-process-state={process.state}>
      <span class="badge">{t(`processState_${process.state}` as TextKey)}</span>{" "}
      <span class="mono">{process.command.join(" ")}</span>
      {process.pid !== undefined && <span class="muted"> · pid {process.pid}</span>}
      <span class="muted">
        {" "}
        · {t("processRestarts")} {process.restarts}
      </span>
      {process.failures > 0 && (
        <span class="muted">
          {" "}
          · {t("processFailures")} {process.failures}
        </span>
      )}
      {process.nextRetryAt !== undefined && (
        <span class="muted">
          {" "}
          · {t("processNextRetry")} {formatTime(process.nextRetryAt)}
        </span>
      )}
      {process.lastError && (
        <div class="error">
          {t("pluginLastError")}
          {process.lastErrorAt ? ` (${formatTime(process.lastErrorAt)})` : ""}:{" "}
          <span class="mono">{process.lastError}</span>
        </div>
      )}
    </div>
  );
}

/**
 * The widgets a stdio plugin declared with `web_ui`. The stdio protocol leaves their shape to the
 * plugin: `{type: "text", text}` and `{type: "link", label, url}` (http/https only) are drawn,
 * anything else is shown as its JSON so nothing a plugin says is hidden.
 */
function Widgets({ widgets }: { widgets: unknown[] }) {
  return (
    <div class="widgets">
      <h3>{t("pluginWidgets")}</h3>
      <ul>
        {widgets.map((widget, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: widgets have no ids and are replaced as a whole
          <li key={index} class="widget">
            <Widget widget={widget} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function Widget({ widget }: { widget: unknown }) {
  const fields = typeof widget === "object" && widget !== null ? (widget as Record<string, unknown>) : {};
  if (fields.type === "text" && typeof fields.text === "string") return <span>{fields.text}</span>;
  if (fields.type === "link" && typeof fields.url === "string" && /^https?:\/\//i.test(fields.url)) {
    const label = typeof fields.label === "string" && fields.label ? fields.label : fields.url;
    return (
      <a href={fields.url} target="_blank" rel="noopener noreferrer">
        {label}
      </a>
    );
  }
  return <pre class="mono small">{JSON.stringify(widget, null, 2)}</pre>;
}
