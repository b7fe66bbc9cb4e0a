import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "../api.ts";
import { useGroupNames } from "../chat-names.ts";
import { followStream } from "../event-stream.ts";
import { formatTime, t } from "../i18n.ts";
import { Link } from "../link.tsx";
import { navigate } from "../router.ts";
import type { StoredMonitorEvent, TurnDetail, TurnSummary } from "../types.ts";
import { StatusBadge, TimelineEvent } from "./timeline-event.tsx";

const PAGE = 50;

/** The turn on the right: its events as loaded and as they arrive live, merged once it has loaded. */
type ShownTurn = TurnDetail & { loaded: boolean };

/** Every turn, live and searchable by reply id, with what happened in it step by step. */
export function MonitorPage({ replyId }: { replyId: string | undefined }) {
  const [search, setSearch] = useState(() => new URLSearchParams(location.search).get("search") ?? "");
  const [turns, setTurns] = useState<TurnSummary[]>([]);
  const [more, setMore] = useState(false);
  const [detail, setDetail] = useState<ShownTurn | null>(null);
  const groupName = useGroupNames();

  useEffect(() => {
    const path = withQuery("/api/monitor/turns", { search, limit: PAGE });
    void api.get<{ turns: TurnSummary[] }>(path).then((answer) => {
      setTurns(answer.turns);
      setMore(answer.turns.length === PAGE);
    });
  }, [search]);

  useEffect(() => {
    if (!replyId) {
      setDetail(null);
      return;
    }
    // Events streamed while the turn loads are kept and merged with what it loaded, each once.
    setDetail({ replyId, events: [], messages: [], loaded: false });
    const loaded = (answer: TurnDetail) =>
      setDetail((current) =>
        current?.replyId === replyId
          ? { ...answer, events: mergeEvents(answer.events, current.events), loaded: true }
          : current,
      );
    void api
      .get<TurnDetail>(`/api/monitor/turns/${encodeURIComponent(replyId)}`)
      .then(loaded, () => loaded({ replyId, events: [], messages: [] }));
  }, [replyId]);

  useEffect(
    () =>
      followStream("/api/monitor/stream", (_event, data) => {
        const event = data as StoredMonitorEvent;
        if (!event.replyId) return;
        setTurns((current) => applyToTurns(current, event, search));
        setDetail((current) =>
          current && current.replyId === event.replyId
            ? { ...current, events: mergeEvents(current.events, [event]) }
            : current,
        );
      }),
    [search],
  );

  const loadOlder = async () => {
    const before = turns.at(-1)?.id;
    const path = withQuery("/api/monitor/turns", { search, limit: PAGE, before });
    const answer = await api.get<{ turns: TurnSummary[] }>(path);
    setTurns((current) => [...current, ...answer.turns]);
    setMore(answer.turns.length === PAGE);
  };

  return (
    <section class="page split">
      <div class="list-pane">
        <header class="page-head">
          <h1>
            {t("navMonitor")} <span class="live-dot">● {t("monLive")}</span>
          </h1>
          <input
            type="search"
            name="search"
            placeholder={t("monSearch")}
            value={search}
            onChange={(event) => setSearch(event.currentTarget.value.trim())}
          />
        </header>
        {turns.length === 0 && <p class="muted">{t("monNoTurns")}</p>}
        <ul class="turn-list">
          {turns.map((turn) => (
            <li key={turn.replyId} class={turn.replyId === replyId ? "selected" : ""}>
              <Link href={`/monitor/${turn.replyId}`}>
                <div class="row-top">
                  <StatusBadge status={turn.status} />
                  <span class="muted">{formatTime(turn.startedAt)}</span>
                </div>
                {turn.triggerText && <div class="turn-trigger">{turn.triggerText}</div>}
                {turn.replyText ? (
                  <div class="turn-reply">↳ {turn.replyText}</div>
                ) : (
                  turn.reason && <div class="turn-reply outcome">{turn.reason}</div>
                )}
                <div class="small muted">
                  {groupName(turn.sessionId) && <span data-user-content>{groupName(turn.sessionId)} · </span>}
                  {turn.sessionId} · {t("monRounds", { n: turn.rounds })} ·{" "}
                  <span class="mono">{turn.replyId.slice(0, 8)}</span>
                </div>
              </Link>
            </li>
          ))}
        </ul>
        {more && (
          <button type="button" onClick={() => void loadOlder()}>
            {t("loadOlder")}
          </button>
        )}
      </div>
      <div class="detail-pane">
        {!replyId && <p class="muted">{t("monPick")}</p>}
        {detail && !detail.loaded && <p>{t("loading")}</p>}
        {detail?.loaded && (
          <article class="turn-detail">
            <h2 class="mono">{detail.replyId}</h2>
            <button type="button" class="link-button" onClick={() => navigate("/monitor")}>
              ×
            </button>
            <ol class="timeline">
              {detail.events.map((event) => (
                <TimelineEvent key={event.id} event={event} messages={detail.messages} />
              ))}
            </ol>
          </article>
        )}
      </div>
    </section>
  );
}

/** Events by id, each once, in the order they were emitted (ids follow it; times can tie). */
function mergeEvents(known: StoredMonitorEvent[], arrived: StoredMonitorEvent[]): StoredMonitorEvent[] {
  const byId = new Map(known.map((event) => [event.id, event]));
  for (const event of arrived) byId.set(event.id, event);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** Keeps the turn list current from live events. */
function applyToTurns(turns: TurnSummary[], event: StoredMonitorEvent, search: string): TurnSummary[] {
  const replyId = event.replyId!;
  if (event.type === "turn.started") {
    const sessionId = event.sessionId ?? "";
    if (search && !replyId.startsWith(search) && !sessionId.includes(search)) return turns;
    if (turns.some((turn) => turn.replyId === replyId)) return turns;
    const { triggerText } = event.data;
    const started: TurnSummary = { id: event.id, replyId, sessionId, startedAt: event.time, rounds: 0 };
    return [typeof triggerText === "string" ? { ...started, triggerText } : started, ...turns];
  }
  return turns.map((turn) => {
    if (turn.replyId !== replyId) return turn;
    if (event.type === "planner.round") return { ...turn, rounds: turn.rounds + 1 };
    if (event.type === "message.sent") {
      const text = String(event.data.text ?? "");
      return { ...turn, replyText: turn.replyText ? `${turn.replyText}\n${text}` : text };
    }
    if (event.type === "turn.finished") {
      return {
        ...turn,
        finishedAt: event.time,
        status: String(event.data.status),
        reason: String(event.data.reason ?? ""),
      };
    }
    return turn;
  });
}
