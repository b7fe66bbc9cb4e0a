import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { formatTime, type TextKey, t } from "../i18n.ts";
import { Link } from "../link.tsx";
import type { McpServerStatus } from "../types.ts";

/** How often the page reads the servers' states again. */
const REFRESH_MS = 2_000;

const STATE_LABELS: Record<McpServerStatus["state"], TextKey> = {
  connected: "mcpConnected",
  connecting: "mcpConnecting",
  down: "mcpDown",
  disabled: "mcpDisabled",
};

/**
 * MCP servers: each one's state, last error and tools, and a restart. Servers are added in
 * the config (`mcp.servers`); their tools are switched on the plugin page, as `mcp:<id>`.
 */
export function McpPage() {
  const [servers, setServers] = useState<McpServerStatus[] | null>(null);

  useEffect(() => {
    const load = () =>
      void api.get<{ servers: McpServerStatus[] }>("/api/mcp").then((answer) => setServers(answer.servers));
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  const replace = (status: McpServerStatus) =>
    setServers((current) => current?.map((server) => (server.id === status.id ? status : server)) ?? null);

  if (!servers) return <p>{t("loading")}</p>;
  return (
    <section class="page mcp">
      <header class="page-head">
        <h1>{t("mcpTitle")}</h1>
      </header>
      <p class="muted small">
        {t("mcpHint")} <Link href="/config">{t("navConfig")}</Link> ·{" "}
        <Link href="/plugins">{t("navPlugins")}</Link>
      </p>
      {servers.length === 0 && <p class="muted">{t("mcpNone")}</p>}
      {servers.map((server) => (
        <ServerCard key={server.id} server={server} onStatus={replace} />
      ))}
    </section>
  );
}

function ServerCard({
  server,
  onStatus,
}: {
  server: McpServerStatus;
  onStatus: (status: McpServerStatus) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const restart = async () => {
    setBusy(true);
    setProblem(null);
    try {
      const answer = await api.post<{ server: McpServerStatus }>(
        `/api/mcp/${encodeURIComponent(server.id)}/restart`,
        {},
      );
      onStatus(answer.server);
    } catch (error) {
      setProblem(error instanceof ApiError ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="card plugin" data-mcp-server={server.id} data-state={server.state}>
      <header class="plugin-head">
        <h2>
          {server.id}{" "}
          {server.serverName && (
            <span class="small muted">
              {server.serverName} {server.serverVersion && `v${server.serverVersion}`}
            </span>
          )}
        </h2>
        <span class={`badge mcp-${server.state}`}>{t(STATE_LABELS[server.state])}</span>
        <span class="badge">{server.transport}</span>
        <div class="actions">
          <button type="button" disabled={busy || server.state === "disabled"} onClick={() => void restart()}>
            {t("mcpRestart")}
          </button>
        </div>
      </header>
      <div class="mono small muted">{server.target}</div>
      <div class="small muted">
        {server.pid !== undefined && <>pid {server.pid} · </>}
        {server.connectedAt !== undefined && (
          <>
            {t("mcpConnectedAt")} {formatTime(server.connectedAt)} ·{" "}
          </>
        )}
        {t("processRestarts")} {server.restarts}
        {server.failures > 0 && (
          <>
            {" "}
            · {t("processFailures")} {server.failures}
          </>
        )}
        {server.nextRetryAt !== undefined && server.state === "down" && (
          <>
            {" "}
            · {t("processNextRetry")} {formatTime(server.nextRetryAt)}
          </>
        )}
      </div>
      {server.lastError && (
        <div class="banner error small">
          {t("pluginLastError")}
          {server.lastErrorAt ? ` (${formatTime(server.lastErrorAt)})` : ""}:{" "}
          <span class="mono">{server.lastError}</span>
        </div>
      )}
      {problem && (
        <div class="banner error small" role="alert">
          {problem}
        </div>
      )}
      <h3>
        {t("mcpTools")} ({server.tools.length})
      </h3>
      {server.tools.length === 0 ? (
        <p class="muted small">{t("mcpNoTools")}</p>
      ) : (
        <ul class="components">
          {server.tools.map((tool) => (
            <li key={tool.fullName} data-tool={tool.modelName}>
              <span class="mono">{tool.modelName}</span>
              {!tool.enabled && <span class="badge"> {t("stateDisabled")}</span>}
              <span class="muted small"> {tool.description}</span>
              {tool.error && <div class="error small">{tool.error}</div>}
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}
