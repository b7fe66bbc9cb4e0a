import { useEffect, useState } from "preact/hooks";
import { ApiError, api, withQuery } from "../api.ts";
import { formatTime, t } from "../i18n.ts";
import { Link } from "../link.tsx";
import { useQueryParam } from "../router.ts";
import { Segments } from "../segments.tsx";
import type {
  MemoryDetail,
  MemoryEntry,
  MemoryForgetAnswer,
  MemoryListAnswer,
  StoredMonitorEvent,
} from "../types.ts";
import { TimelineEvent } from "./timeline-event.tsx";
import { originLabel } from "./timeline-memory.tsx";

const PAGE = 50;
/** What the recent-changes panel lists: learning in and out of turns, edits, forgetting. */
const CHANGES_PATH = "/api/monitor/events?type=memory.learned&type=memory.forgotten&limit=20";

type SubjectKind = "person" | "group";

/**
 * What the bot remembers about people and groups: searchable, filtered to one person or group,
 * each memory with the messages it was learned from, editable and deletable; a whole person or
 * group can be forgotten.
 */
export function MemoryPage() {
  const [search, setSearch] = useState("");
  const [subject, setSubject] = useState("");
  const [memories, setMemories] = useState<MemoryEntry[]>([]);
  const [more, setMore] = useState(false);
  // `/memory?id=…` opens that memory (the timeline and the recent changes link memories so).
  const linked = Number(useQueryParam("id")) || null;
  const [selected, setSelected] = useState(linked);
  const [notice, setNotice] = useState<string | null>(null);
  /** Bumped by every change made here, so the recent changes reload. */
  const [changes, setChanges] = useState(0);

  const load = async (beforeId?: number) => {
    const path = withQuery("/api/memory", { search, subject, beforeId, limit: PAGE });
    const answer = await api.get<MemoryListAnswer>(path);
    setMemories((current) => (beforeId === undefined ? answer.memories : [...current, ...answer.memories]));
    setMore(answer.memories.length === PAGE);
  };

  useEffect(() => {
    void load();
  }, [search, subject]);

  useEffect(() => {
    if (linked !== null) setSelected(linked);
  }, [linked]);

  const changed = (message: string | null, keepSelection: boolean) => {
    setNotice(message);
    if (!keepSelection) setSelected(null);
    setChanges((count) => count + 1);
    void load();
  };

  return (
    <section class="page split memory-page">
      <div class="list-pane">
        <header class="page-head">
          <h1>{t("navMemory")}</h1>
          <input
            type="search"
            name="search"
            placeholder={t("memSearch")}
            value={search}
            onChange={(event) => setSearch(event.currentTarget.value.trim())}
          />
        </header>
        <SubjectFilter subject={subject} onChange={setSubject} />
        {notice && <p class="banner ok">{notice}</p>}
        {memories.length === 0 && <p class="muted">{t("memNone")}</p>}
        <ul class="turn-list memory-list">
          {memories.map((memory) => (
            <li key={memory.id} class={memory.id === selected ? "selected" : ""}>
              <button type="button" class="row-button" onClick={() => setSelected(memory.id)}>
                <div class="row-top">
                  <strong class="small">
                    {memory.subjectName} <span class="muted">({subjectLabel(memory.subject)})</span>
                  </strong>
                  <span class="muted small mono">#{memory.id}</span>
                </div>
                <div class="memory-content">{memory.content}</div>
                <div class="small muted">
                  {originLabel(memory.origin)} · {t("memConfirmations", { n: memory.confirmations })} ·{" "}
                  {formatTime(memory.updatedAt)}
                </div>
              </button>
            </li>
          ))}
        </ul>
        {more && (
          <button type="button" onClick={() => void load(memories.at(-1)?.id)}>
            {t("loadOlder")}
          </button>
        )}
        {subject && <AddMemory subject={subject} onAdded={() => changed(null, true)} />}
      </div>
      <div class="detail-pane">
        {selected === null ? (
          <>
            <p class="muted">{t("memPick")}</p>
            <RecentChanges key={changes} />
          </>
        ) : (
          <MemoryView
            key={selected}
            id={selected}
            onFilter={setSubject}
            onChanged={(message) => changed(message, message === null)}
          />
        )}
      </div>
    </section>
  );
}

/** The newest memory events, wherever they came from: turns, background learning, /forget, this page. */
function RecentChanges() {
  const [events, setEvents] = useState<StoredMonitorEvent[]>([]);
  useEffect(() => {
    void api.get<{ events: StoredMonitorEvent[] }>(CHANGES_PATH).then((answer) => setEvents(answer.events));
  }, []);
  if (events.length === 0) return null;
  return (
    <section class="memory-changes">
      <h3>{t("memChanges")}</h3>
      <ul class="timeline">
        {events.map((event) => (
          <TimelineEvent key={event.id} event={event} messages={[]} />
        ))}
      </ul>
    </section>
  );
}

/** Narrows the list to one person (by user id) or one group (by group id). */
function SubjectFilter({ subject, onChange }: { subject: string; onChange: (subject: string) => void }) {
  const [kind, setKind] = useState<SubjectKind>("person");
  const [id, setId] = useState("");

  const apply = (event: Event) => {
    event.preventDefault();
    onChange(id.trim() ? subjectOf(kind, id.trim()) : "");
  };

  return (
    <form class="toolbar memory-filter" onSubmit={apply}>
      <select
        name="kind"
        aria-label={t("memAbout")}
        value={kind}
        onChange={(event) => setKind(event.currentTarget.value as SubjectKind)}
      >
        <option value="person">{t("memPerson")}</option>
        <option value="group">{t("memGroup")}</option>
      </select>
      <input
        class="short"
        name="subject-id"
        placeholder={t("memSubjectId")}
        value={id}
        onInput={(event) => setId(event.currentTarget.value)}
      />
      <button type="submit">{t("memFilter")}</button>
      {subject && (
        <button
          type="button"
          class="link-button"
          onClick={() => {
            setId("");
            onChange("");
          }}
        >
          {t("memClear")} ({subjectLabel(subject)})
        </button>
      )}
    </form>
  );
}

/** One memory: what it says and about whom, edit, delete, forget its subject, and its sources. */
function MemoryView({
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

function EditContent({
  memory,
  onSaved,
  onCancel,
}: {
  memory: MemoryEntry;
  onSaved: (memory: MemoryEntry) => void;
  onCancel: () => void;
}) {
  const [content, setContent] = useState(memory.content);
  const [failure, setFailure] = useState<string | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await api.patch<{ memory: MemoryEntry }>(`/api/memory/${memory.id}`, { content });
      onSaved(answer.memory);
    } catch (error) {
      setFailure(failureText(error));
    }
  };

  return (
    <form class="form" onSubmit={save}>
      <textarea
        name="content"
        rows={3}
        value={content}
        onInput={(event) => setContent(event.currentTarget.value)}
      />
      {failure && <p class="error">{failure}</p>}
      <div class="actions">
        <button type="submit" class="primary" disabled={!content.trim()}>
          {t("save")}
        </button>
        <button type="button" onClick={onCancel}>
          {t("memCancel")}
        </button>
      </div>
    </form>
  );
}

/** A fact about the filtered person or group, written by hand. */
function AddMemory({ subject, onAdded }: { subject: string; onAdded: () => void }) {
  const [content, setContent] = useState("");
  const [failure, setFailure] = useState<string | null>(null);

  const add = async (event: Event) => {
    event.preventDefault();
    try {
      await api.post("/api/memory", { subject, content });
      setContent("");
      setFailure(null);
      onAdded();
    } catch (error) {
      setFailure(failureText(error));
    }
  };

  return (
    <form class="form memory-add" onSubmit={add}>
      <h3 class="small">{t("memAdd")}</h3>
      <input
        name="new-memory"
        placeholder={t("memAddContent")}
        value={content}
        onInput={(event) => setContent(event.currentTarget.value)}
      />
      <button type="submit" disabled={!content.trim()}>
        {t("memAddSave")}
      </button>
      {failure && <p class="error">{failure}</p>}
    </form>
  );
}

/** A question asked in place before a deletion; a refusal from the server shows under it. */
function Confirm({
  question,
  yes,
  onYes,
  onNo,
}: {
  question: string;
  yes: string;
  onYes: () => Promise<void>;
  onNo: () => void;
}) {
  const [failure, setFailure] = useState<string | null>(null);
  return (
    <div class="banner warn confirm">
      <p>{question}</p>
      <div class="actions">
        <button
          type="button"
          class="primary"
          onClick={() => void onYes().catch((error: unknown) => setFailure(failureText(error)))}
        >
          {yes}
        </button>
        <button type="button" onClick={onNo}>
          {t("memCancel")}
        </button>
      </div>
      {failure && <p class="error">{failure}</p>}
    </div>
  );
}

function failureText(error: unknown): string {
  return error instanceof ApiError ? error.message : String(error);
}

/** `person:onebot:10001` → `user 10001` (`QQ 10001`). */
function subjectLabel(subject: string): string {
  const [kind, , ...rest] = subject.split(":");
  return `${kind === "group" ? t("memGroupTag") : t("memPersonTag")} ${rest.join(":")}`;
}

/** The subject a filter names; `platform:id` picks another platform than QQ's. */
function subjectOf(kind: SubjectKind, id: string): string {
  return id.includes(":") ? `${kind}:${id}` : `${kind}:onebot:${id}`;
}
