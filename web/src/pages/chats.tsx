import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "../api.ts";
import { senderNames, useGroupNames } from "../chat-names.ts";
import { currentLang, formatTime, t } from "../i18n.ts";
import { Link } from "../link.tsx";
import { previewText, Segments } from "../segments.tsx";
import type { SessionSummary, StoredMessage } from "../types.ts";

const PAGE = 100;
/** The badge of a recalled (撤回) message. */
const RECALLED = { zh: "已撤回", en: "recalled" };

/** A history line's classes: the bot's own messages and recalled ones (struck through) stand out. */
function historyClass(message: StoredMessage): string {
  return [message.fromSelf ? "from-bot" : "", message.recalledAt !== undefined ? "recalled" : ""]
    .filter((name) => name !== "")
    .join(" ");
}

/** Every stored conversation, newest activity first, with its history and a message search. */
export function ChatsPage() {
  const [search, setSearch] = useState("");
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  // `/chats?session=…` opens that chat (the memory page links its sources so).
  const [selected, setSelected] = useState(() => new URLSearchParams(location.search).get("session"));
  const groupName = useGroupNames();

  useEffect(() => {
    const path = withQuery("/api/chats", { search, limit: PAGE });
    void api.get<{ sessions: SessionSummary[] }>(path).then((answer) => setSessions(answer.sessions));
  }, [search]);

  return (
    <section class="page split">
      <div class="list-pane">
        <header class="page-head">
          <h1>{t("navChats")}</h1>
          <input
            type="search"
            name="search"
            placeholder={t("chatsSearch")}
            value={search}
            onChange={(event) => setSearch(event.currentTarget.value.trim())}
          />
        </header>
        {sessions.length === 0 && <p class="muted">{t("none")}</p>}
        <ul class="turn-list">
          {sessions.map((session) => (
            <li key={session.sessionId} class={session.sessionId === selected ? "selected" : ""}>
              <button type="button" class="row-button" onClick={() => setSelected(session.sessionId)}>
                <div class="row-top">
                  <strong class="small" data-user-content>
                    {groupName(session.sessionId) ?? session.sessionId}
                  </strong>
                </div>
                {groupName(session.sessionId) && <div class="mono small muted">{session.sessionId}</div>}
                <div class="small muted">
                  {t("chatsMessages", { n: session.messageCount })} · {formatTime(session.last.time)}
                </div>
                <div class="small ellipsis" data-user-content>
                  {session.last.senderName}: {previewText(session.last.segments)}
                </div>
              </button>
            </li>
          ))}
        </ul>
      </div>
      <div class="detail-pane">
        {selected ? (
          <SessionHistory key={selected} sessionId={selected} name={groupName(selected)} />
        ) : (
          <p class="muted">{t("chatsPick")}</p>
        )}
      </div>
    </section>
  );
}

function SessionHistory({ sessionId, name }: { sessionId: string; name: string | undefined }) {
  const [search, setSearch] = useState("");
  const [messages, setMessages] = useState<StoredMessage[]>([]);
  const [more, setMore] = useState(false);

  const lookup = (messageId: string) => messages.find((message) => message.messageId === messageId);

  const load = async (before?: number) => {
    const path = withQuery("/api/chats/messages", { sessionId, search, before, limit: PAGE });
    const answer = await api.get<{ messages: StoredMessage[] }>(path);
    const oldestFirst = answer.messages.reverse();
    setMessages((current) => (before === undefined ? oldestFirst : [...oldestFirst, ...current]));
    setMore(answer.messages.length === PAGE);
  };

  useEffect(() => {
    void load();
  }, [search]);

  return (
    <article>
      <header class="page-head">
        <h2 class="small">
          <span data-user-content>{name ?? sessionId}</span>
          {name && <span class="mono muted"> {sessionId}</span>}
        </h2>
        <input
          type="search"
          name="message-search"
          placeholder={t("chatsMessageSearch")}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value.trim())}
        />
        <Link href={`/monitor?search=${encodeURIComponent(sessionId)}`}>{t("navMonitor")}</Link>
      </header>
      {more && (
        <button type="button" onClick={() => void load(messages[0]?.rowId)}>
          {t("loadOlder")}
        </button>
      )}
      <ul class="history">
        {messages.map((message, _index, all) => (
          <li key={message.rowId} class={historyClass(message)}>
            <span class="muted small">{formatTime(message.time)}</span>{" "}
            <strong data-user-content>{message.senderName}</strong>{" "}
            <span class="muted small">({message.userId})</span>:{" "}
            {message.recalledAt !== undefined && (
              <span class="badge recalled" title={formatTime(message.recalledAt)}>
                {RECALLED[currentLang()]}
              </span>
            )}{" "}
            <span class="content" data-user-content>
              <Segments
                segments={message.segments}
                lookup={lookup}
                source={message}
                names={senderNames(all)}
              />
            </span>
          </li>
        ))}
      </ul>
    </article>
  );
}
