import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError, api, hasToken, onUnauthorized, setToken } from "./api.ts";
import { currentLang, setLang, type TextKey, t } from "./i18n.ts";
import { Link } from "./link.tsx";
import { ChatsPage } from "./pages/chats.tsx";
import { ConfigPage } from "./pages/config.tsx";
import { ConnectPage } from "./pages/connect.tsx";
import { GroupsPage } from "./pages/groups.tsx";
import { InstancesPage } from "./pages/instances.tsx";
import { KnowledgePage } from "./pages/knowledge.tsx";
import { isKnowledgeTextKey, type KnowledgeTextKey, kt } from "./pages/knowledge-text.ts";
import { LoginPage } from "./pages/login.tsx";
import { McpPage } from "./pages/mcp.tsx";
import { MemoryPage } from "./pages/memory.tsx";
import { ModelsPage } from "./pages/models.tsx";
import { MonitorPage } from "./pages/monitor.tsx";
import { PlaygroundPage } from "./pages/playground.tsx";
import { PluginsPage } from "./pages/plugins.tsx";
import { RemindersPage } from "./pages/reminders.tsx";
import { firstRunDone, SetupPage } from "./pages/setup.tsx";
import { navigate, usePath } from "./router.ts";
import type { ConsoleStatus } from "./types.ts";

const STATUS_POLL_MS = 5_000;

const NAV: Array<{ path: string; label: TextKey | KnowledgeTextKey }> = [
  { path: "/playground", label: "navPlayground" },
  { path: "/monitor", label: "navMonitor" },
  { path: "/chats", label: "navChats" },
  { path: "/memory", label: "navMemory" },
  { path: "/groups", label: "navGroups" },
  { path: "/knowledge", label: "navKnowledge" },
  { path: "/reminders", label: "navReminders" },
  { path: "/models", label: "navModels" },
  { path: "/plugins", label: "navPlugins" },
  { path: "/mcp", label: "navMcp" },
  { path: "/instances", label: "navInstances" },
  { path: "/config", label: "navConfig" },
  { path: "/setup", label: "navSetup" },
  { path: "/connect", label: "navConnect" },
];

export function App() {
  const [lang, setLangState] = useState(currentLang());
  const [needsLogin, setNeedsLogin] = useState(false);
  const [status, setStatus] = useState<ConsoleStatus | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const path = usePath();
  // On a phone the sidebar folds into a menu, opened by the button in the top bar.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);

  const refreshStatus = useCallback(async () => {
    try {
      setStatus(await api.get<ConsoleStatus>("/api/status"));
      setNeedsLogin(false);
      setFailure(null);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) setNeedsLogin(true);
      else setFailure(String(error));
    }
  }, []);

  useEffect(() => {
    void refreshStatus();
    const timer = setInterval(() => void refreshStatus(), STATUS_POLL_MS);
    const stopListening = onUnauthorized(() => setNeedsLogin(true));
    return () => {
      clearInterval(timer);
      stopListening();
    };
  }, [refreshStatus]);

  // The console opens on the setup page until a model is configured.
  useEffect(() => {
    if (status && path === "/") navigate(status.modelConfigured ? "/playground" : "/setup");
  }, [status, path]);

  const switchLang = () => {
    const next = lang === "zh" ? "en" : "zh";
    setLang(next);
    setLangState(next);
  };

  if (needsLogin) return <LoginPage onLoggedIn={refreshStatus} />;
  if (!status) {
    return (
      <div class="centered">
        {failure ? (
          <p class="error">
            {t("error")}: {failure}
          </p>
        ) : (
          <p>{t("loading")}</p>
        )}
      </div>
    );
  }

  return (
    <div class={menuOpen ? "shell menu-open" : "shell"}>
      <nav class="sidebar">
        <div class="brand">
          <span class="brand-mark">紬</span> Tsumugi
          <button
            type="button"
            class="menu-button"
            aria-expanded={menuOpen}
            aria-controls="nav-links"
            onClick={() => setMenuOpen((open) => !open)}
          >
            {menuOpen ? t("menuClose") : t("menu")}
          </button>
        </div>
        <div class="nav-links" id="nav-links">
          {NAV.filter((item) => item.path !== "/setup" || !firstRunDone(status)).map((item) => (
            <Link
              key={item.path}
              href={item.path}
              class={path.startsWith(item.path) ? "nav-link active" : "nav-link"}
            >
              {isKnowledgeTextKey(item.label) ? kt(item.label) : t(item.label)}
            </Link>
          ))}
          <div class="sidebar-foot">
            <AdapterBadges status={status} />
            <button
              type="button"
              class="link-button"
              lang={lang === "zh" ? "en" : "zh"}
              data-other-language
              onClick={switchLang}
            >
              {t("language")}
            </button>
            {hasToken() && (
              <button
                type="button"
                class="link-button"
                onClick={() => {
                  setToken("");
                  setNeedsLogin(true);
                }}
              >
                {t("logout")}
              </button>
            )}
          </div>
        </div>
      </nav>
      <main class="content">
        <Page path={path} status={status} refreshStatus={refreshStatus} />
      </main>
    </div>
  );
}

function Page({
  path,
  status,
  refreshStatus,
}: {
  path: string;
  status: ConsoleStatus;
  refreshStatus: () => void;
}) {
  if (path.startsWith("/monitor")) return <MonitorPage replyId={path.split("/")[2]} />;
  if (path.startsWith("/chats")) return <ChatsPage />;
  if (path.startsWith("/memory")) return <MemoryPage />;
  if (path.startsWith("/groups")) return <GroupsPage />;
  if (path.startsWith("/knowledge")) return <KnowledgePage />;
  if (path.startsWith("/reminders")) return <RemindersPage />;
  if (path.startsWith("/models")) return <ModelsPage />;
  if (path.startsWith("/plugins")) return <PluginsPage />;
  if (path.startsWith("/mcp")) return <McpPage />;
  if (path.startsWith("/instances")) return <InstancesPage />;
  if (path.startsWith("/config")) return <ConfigPage onSaved={refreshStatus} />;
  if (path.startsWith("/setup")) return <SetupPage status={status} onSaved={refreshStatus} />;
  if (path.startsWith("/connect")) return <ConnectPage />;
  return <PlaygroundPage status={status} />;
}

function AdapterBadges({ status }: { status: ConsoleStatus }) {
  return (
    <div class="adapter-badges">
      {status.adapters.map((adapter) => (
        <div key={`${adapter.id}-${adapter.selfId ?? ""}`} class="adapter-badge">
          <span class={adapter.connected ? "dot on" : "dot"} />
          {adapter.id}
          {adapter.selfId ? ` (${adapter.selfId})` : ""}:{" "}
          {adapter.connected ? t("connected") : t("disconnected")}
        </div>
      ))}
      {status.storage.state === "degraded" && (
        <div class="adapter-badge" title={status.storage.reason}>
          <span class="dot" />
          {t("storageDegraded")} ({status.storage.spooled}
          {status.storage.dropped > 0 ? ` / −${status.storage.dropped}` : ""})
        </div>
      )}
    </div>
  );
}
