import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "../api.ts";
import { followStream } from "../event-stream.ts";
import { formatTime, t } from "../i18n.ts";
import { Link } from "../link.tsx";
import { navigate } from "../router.ts";
import type { MonitorEvent, TurnDetail, TurnSummary } from "../types.ts";
import { StatusBadge, TimelineEvent } from "./timeline-event.tsx";

const PAGE = 50;

/** Every turn, live and searchable by reply id, with what happened in it step by step. */
export function MonitorPage({ replyId }: { replyId: string | undefined }) {
  const [search, setSearch] = useState(() => new URLSearchParams(location.search).get("search") ?? "");
  const [turns, setTurns] = useState<TurnSummary[]>([]);
  const [more, setMore] = useState(false);
  const [detail, setDetail] = useState<TurnDetail | null>(null);

  useEffect(() => {
    const path = withQuery("/api/monitor/turns", { search, limit: PAGE });
    void api.get<{ turns: TurnSummary[] }>(path).then((answer) => {
      setTurns(answer.turns);
      setMore(answer.turns.length === PAGE);
    });
  }, [search]);

  useEffect(() => {
    setDetail(null);
    if (!replyId) return;
    void api
      .get<TurnDetail>(`/api/monitor/turns/${encodeURIComponent(replyId)}`)
      .then(setDetail, () => setDetail({ replyId, events: [], messages: [] }));
  }, [replyId]);

  useEffect(
    () =>
      followStream("/api/monitor/stream", (_event, data) => {
        const event = data as MonitorEvent;
        if (!event.replyId) return;
        setTurns((current) => applyToTurns(current, event, search));
        setDetail((current) =>
          current && current.replyId === event.replyId
            ? { ...current, events: [...current.events, event] }
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
                <div class="mono small">{turn.replyId.slice(0, 8)}</div>
                <div class="small">{turn.sessionId}</div>
                <div class="small muted">
                  {t("monRounds", { n: turn.rounds })}
                  {turn.reason ? ` · ${turn.reason}` : ""}
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
        {replyId && !detail && <p>{t("loading")}</p>}
        {detail && (
          <article class="turn-detail">
            <h2 class="mono">{detail.replyId}</h2>
            <button type="button" class="link-button" onClick={() => navigate("/monitor")}>
              ×
            </button>
            <ol class="timeline">
              {detail.events.map((event, index) => (
                <TimelineEvent key={event.id ?? `live-${index}`} event={event} messages={detail.messages} />
              ))}
            </ol>
          </article>
        )}
      </div>
    </section>
  );
}

/** Keeps the turn list current from live events. */
function applyToTurns(turns: TurnSummary[], event: MonitorEvent, search: string): TurnSummary[] {
  const replyId = event.replyId!;
  if (event.type === "turn.started") {
    const sessionId = event.sessionId ?? "";
    if (search && !replyId.startsWith(search) && !sessionId.includes(search)) return turns;
    if (turns.some((turn) => turn.replyId === replyId)) return turns;
    return [{ id: event.id ?? 0, replyId, sessionId, startedAt: event.time, rounds: 0 }, ...turns];
  }
  return turns.map((turn) => {
    if (turn.replyId !== replyId) return turn;
    if (event.type === "planner.round") return { ...turn, rounds: turn.rounds + 1 };
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
