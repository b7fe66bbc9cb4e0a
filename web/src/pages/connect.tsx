import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { t } from "../i18n.ts";
import type { ConnectInfo } from "../types.ts";
import { qqOfficialText } from "./connect-texts.ts";

const POLL_MS = 3_000;

/** How to point NapCat (or any OneBot v11 implementation) at the bot, and whether it is connected. */
export function ConnectPage({ embedded = false }: { embedded?: boolean }) {
  const [info, setInfo] = useState<ConnectInfo | null>(null);

  useEffect(() => {
    const load = () => void api.get<ConnectInfo>("/api/connect").then(setInfo);
    load();
    const timer = setInterval(load, POLL_MS);
    return () => clearInterval(timer);
  }, []);

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
                <div key={account.selfId} class="account">
                  <span class={account.connected ? "dot on" : "dot"} /> QQ {account.selfId} ·{" "}
                  {account.connected ? t("connected") : t("disconnected")}
                  {account.online !== undefined &&
                    ` · ${account.online ? t("connectOnline") : t("connectOffline")}`}
                  {account.rateLimitedUntil !== undefined &&
                    ` · ${qqOfficialText("rateLimitedUntil")} ${new Date(account.rateLimitedUntil).toLocaleTimeString()}`}
                </div>
              ))}
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
