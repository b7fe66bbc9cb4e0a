import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { formatTime, t } from "../i18n.ts";
import type { ConnectInfo } from "../types.ts";
import { qqOfficialText } from "./connect-texts.ts";

const POLL_MS = 3_000;

/** How to point NapCat (or any OneBot v11 implementation) at the bot, and whether it is connected. */
export function ConnectPage({ embedded = false }: { embedded?: boolean }) {
  const [info, setInfo] = useState<ConnectInfo | null>(null);

  const [dismissError, setDismissError] = useState("");
  const load = () => void api.get<ConnectInfo>("/api/connect").then(setInfo);

  useEffect(() => {
    load();
    const timer = setInterval(load, POLL_MS);
    return () => clearInterval(timer);
  }, []);

  /** Dismissing an account that is gone: the list is read again either way. */
  const dismiss = async (adapterId: string, selfId: string) => {
    setDismissError("");
    try {
      await api.delete(
        `/api/connect/accounts/${encodeURIComponent(adapterId)}/${encodeURIComponent(selfId)}`,
      );
    } catch (error) {
      setDismissError(
        error instanceof ApiError && error.status === 409
          ? t("connectDismissConnected")
          : error instanceof Error
            ? error.message
            : String(error),
      );
    }
    load();
  };

  return (
    <section class="page connect">
      {!embedded && (
        <header class="page-head">
          <h1>{t("connectTitle")}</h1>
        </header>
      )}
      <p>{t("connectIntro")}</p>
      {info?.adapters.map((adapter) => (
        <div key={adapter.id} class="card" data-adapter={adapter.id}>
          <h2>
            <span class="mono">{adapter.id}</span> <span class="badge">{adapter.mode}</span>
          </h2>
          <dl class="facts wide">
            <dt>
              {adapter.mode === "reverse-ws"
                ? t("connectUrl")
                : adapter.mode === "http"
                  ? t("connectHttpUrl")
                  : adapter.mode === "qq-official"
                    ? qqOfficialText("webhookUrl")
                    : t("connectForwardUrl")}
            </dt>
            <dd>
              <Copyable value={adapter.url} />
            </dd>
            <dt>{t("connectToken")}</dt>
            {/* The API never sends the token itself: only whether one is set. */}
            <dd>
              {adapter.accessToken
                ? adapter.mode === "qq-official"
                  ? qqOfficialText("secretHidden")
                  : t("connectTokenHidden")
                : t("connectNoToken")}
            </dd>
            <dt>{t("connectAccounts")}</dt>
            <dd>
              {adapter.accounts.length === 0 && <span class="muted">{t("connectWaiting")}</span>}
              {adapter.accounts.map((account) => (
                <div key={account.selfId} class="account" data-self-id={account.selfId}>
                  <span class={account.connected ? "dot on" : "dot"} /> QQ {account.selfId} ·{" "}
                  {account.connected ? t("connected") : t("disconnected")}
                  {account.online !== undefined &&
                    ` · ${account.online ? t("connectOnline") : t("connectOffline")}`}
                  {account.rateLimitedUntil !== undefined &&
                    ` · ${qqOfficialText("rateLimitedUntil")} ${new Date(account.rateLimitedUntil).toLocaleTimeString()}`}
                  {!account.connected && account.lastConnectedAt !== undefined && (
                    <>
                      {" "}
                      ·{" "}
                      <span class="muted">
                        {t("connectLastConnected", { time: formatTime(account.lastConnectedAt) })}
                      </span>{" "}
                      <button
                        type="button"
                        class="small"
                        title={t("connectDismissHint")}
                        onClick={() => void dismiss(adapter.id, account.selfId ?? "")}
                      >
                        {t("connectDismiss")}
                      </button>
                    </>
                  )}
                </div>
              ))}
              {dismissError && <div class="error">{dismissError}</div>}
            </dd>
          </dl>
        </div>
      ))}
    </section>
  );
}

function Copyable({ value }: { value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span class="copyable">
      <code>{value}</code>{" "}
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(() => setCopied(true));
        }}
      >
        {copied ? t("copied") : t("copy")}
      </button>
    </span>
  );
}
