import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "../api.ts";
import { formatTime, t } from "../i18n.ts";
import { useQueryParam } from "../router.ts";
import type { MemoryEntry, MemoryListAnswer, StoredMonitorEvent } from "../types.ts";
import { AddMemory } from "./memory-forms.tsx";
import { MemoryView, subjectLabel } from "./memory-view.tsx";
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

/** The subject a filter names; `platform:id` picks another platform than QQ's. */
function subjectOf(kind: SubjectKind, id: string): string {
  return id.includes(":") ? `${kind}:${id}` : `${kind}:onebot:${id}`;
}
