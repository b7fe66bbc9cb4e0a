import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "../api.ts";
import { formatTime, t } from "../i18n.ts";
import { Link } from "../link.tsx";
import { Segments } from "../segments.tsx";
import type { MemoryDetail, MemoryForgetAnswer } from "../types.ts";
import { Confirm, EditContent } from "./memory-forms.tsx";
import { originLabel } from "./timeline-memory.tsx";

/** One memory: what it says and about whom, edit, delete, forget its subject, and its sources. */
export function MemoryView({
  id,
  onFilter,
  onChanged,
}: {
  id: number;
  onFilter: (subject: string) => void;
  /** After a change: a notice for the list, or null when the memory is still there. */
  onChanged: (notice: string | null) => void;
}) {
  const [detail, setDetail] = useState<MemoryDetail | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState<"delete" | "forget" | null>(null);

  useEffect(() => {
    api.get<MemoryDetail>(`/api/memory/${id}`).then(setDetail, (error: unknown) => setFailure(String(error)));
  }, [id]);

  if (failure) return <p class="error">{failure}</p>;
  if (!detail) return <p class="muted">{t("loading")}</p>;
  const { memory, sources } = detail;
  const person = memory.subject.startsWith("person:");

  const remove = async () => {
    await api.delete(`/api/memory/${id}`);
    onChanged(t("memDeleted"));
  };
  const forget = async () => {
    const answer = await api.delete<MemoryForgetAnswer>(
      withQuery("/api/memory", { subject: memory.subject }),
    );
    onChanged(t("memForgotten", { n: answer.ids.length }));
  };

  return (
    <article class="memory-detail">
      <header class="page-head">
        <h2>
          {memory.subjectName}{" "}
          <button type="button" class="link-button small" onClick={() => onFilter(memory.subject)}>
            {subjectLabel(memory.subject)}
          </button>
        </h2>
        <span class="muted mono">#{memory.id}</span>
      </header>
      {editing ? (
        <EditContent
          memory={memory}
          onSaved={(saved) => {
            setDetail({ ...detail, memory: saved });
            setEditing(false);
            onChanged(null);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <p class="memory-text">{memory.content}</p>
      )}
      <dl class="facts">
        <dt>{t("memOrigin")}</dt>
        <dd>
          {originLabel(memory.origin)}
          {memory.pluginId ? ` (${memory.pluginId})` : ""}
        </dd>
        <dt>{t("memConfirmationCount")}</dt>
        <dd>{memory.confirmations}</dd>
        <dt>{t("memCreated")}</dt>
        <dd>{formatTime(memory.createdAt)}</dd>
        <dt>{t("memUpdated")}</dt>
        <dd>{formatTime(memory.updatedAt)}</dd>
        <dt>{t("memConfirmedAt")}</dt>
        <dd>{formatTime(memory.confirmedAt)}</dd>
        <dt>{t("memSession")}</dt>
        <dd class="mono">{memory.sessionId}</dd>
      </dl>
      {!editing && confirming === null && (
        <div class="actions">
          <button type="button" onClick={() => setEditing(true)}>
            {t("memEdit")}
          </button>
          <button type="button" onClick={() => setConfirming("delete")}>
            {t("memDelete")}
          </button>
          <button type="button" onClick={() => setConfirming("forget")}>
            {person ? t("memForgetPerson") : t("memForgetGroup")}
          </button>
        </div>
      )}
      {confirming === "delete" && (
        <Confirm
          question={t("memDeleteConfirm")}
          yes={t("memDeleteYes")}
          onYes={remove}
          onNo={() => setConfirming(null)}
        />
      )}
      {confirming === "forget" && (
        <Confirm
          question={t(person ? "memForgetConfirm" : "memForgetGroupConfirm", {
            name: `${memory.subjectName} (${subjectLabel(memory.subject)})`,
          })}
          yes={t("memForgetYes")}
          onYes={forget}
          onNo={() => setConfirming(null)}
        />
      )}
      <h3>{t("memSources")}</h3>
      {sources.length === 0 && <p class="muted">{t("memNoSources")}</p>}
      <ul class="history memory-sources">
        {sources.map((source) => (
          <li key={`${source.sessionId}/${source.messageId}`}>
            <span class="muted small">{formatTime(source.time)}</span>{" "}
            {source.message ? (
              <>
                <strong>{source.message.senderName}</strong>{" "}
                <span class="muted small">({source.message.userId})</span>:{" "}
                <Segments segments={source.message.segments} source={source.message} />
              </>
            ) : (
              <span class="muted">
                ({source.userId}) {t("memSourceGone")}
              </span>
            )}{" "}
            <Link href={withQuery("/chats", { session: source.sessionId })} class="small">
              {t("memOpenChat")}
            </Link>
          </li>
        ))}
      </ul>
    </article>
  );
}

/** `person:onebot:10001` → `user 10001` (`QQ 10001`). */
export function subjectLabel(subject: string): string {
  const [kind, , ...rest] = subject.split(":");
  return `${kind === "group" ? t("memGroupTag") : t("memPersonTag")} ${rest.join(":")}`;
}
