import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { formatTime, t } from "../i18n.ts";
import type { ClusterAnswer, InstanceInfo } from "../types.ts";

/** How often the page reads the instances' heartbeats again. */
const REFRESH_MS = 2_000;

/**
 * The instances sharing the work over Redis (`cluster.redisUrl`, docs/scale-out.md): each
 * one's address, the QQ accounts it holds, the sessions it owns, its storage and when it was
 * last heard from. Every instance's console shows all of them.
 */
export function InstancesPage() {
  const [cluster, setCluster] = useState<ClusterAnswer | null>(null);

  useEffect(() => {
    const load = () => void api.get<ClusterAnswer>("/api/cluster").then(setCluster);
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  if (!cluster) return <p>{t("loading")}</p>;
  return (
    <section class="page instances">
      <header class="page-head">
        <h1>{t("instancesTitle")}</h1>
      </header>
      {!cluster.enabled ? (
        <p class="muted">{t("instancesAlone")}</p>
      ) : (
        <table class="grid-table">
          <thead>
            <tr>
              <th>{t("instancesId")}</th>
              <th>{t("instancesAddress")}</th>
              <th>{t("instancesAccounts")}</th>
              <th>{t("instancesSessions")}</th>
              <th>{t("instancesStorage")}</th>
              <th>{t("instancesSeen")}</th>
            </tr>
          </thead>
          <tbody>
            {[...cluster.instances]
              .sort((a, b) => a.id.localeCompare(b.id))
              .map((instance) => (
                <InstanceRow key={instance.id} instance={instance} self={instance.id === cluster.self} />
              ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function InstanceRow({ instance, self }: { instance: InstanceInfo; self: boolean }) {
  const { storage } = instance;
  return (
    <tr data-instance={instance.id}>
      <td>
        <strong>{instance.id}</strong> {self && <span class="badge">{t("instancesThis")}</span>}
        <div class="small muted">
          {instance.hostname} · pid {instance.pid} · {t("instancesStarted")} {formatTime(instance.startedAt)}
        </div>
      </td>
      <td class="mono">{instance.address}</td>
      <td>
        {instance.accounts.length === 0 && <span class="muted">—</span>}
        {instance.accounts.map((account) => (
          <div key={`${account.adapter}:${account.selfId}`}>
            {account.adapter} ({account.selfId})
          </div>
        ))}
      </td>
      <td>{instance.sessions}</td>
      <td title={storage.reason}>
        {storage.state === "degraded" ? t("storageDegraded") : t("instancesStorageOk")}
        {storage.spooled > 0 && ` · ${t("instancesSpooled", { n: storage.spooled })}`}
        {storage.dropped > 0 && ` · ${t("instancesDropped", { n: storage.dropped })}`}
      </td>
      <td>{formatTime(instance.seenAt)}</td>
    </tr>
  );
}
