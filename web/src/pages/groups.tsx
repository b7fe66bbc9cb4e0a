import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "../api.ts";
import { formatTime, type TextKey, t } from "../i18n.ts";
import { Link } from "../link.tsx";
import type { GroupExpression, GroupExpressionsAnswer, GroupsAnswer, GroupView } from "../types.ts";
import { Confirm, failureText } from "./memory-forms.tsx";

/** What the page reads of a chat's participation (GET /api/participation). */
interface ParticipationView {
  sessionId: string;
  talkValue: number;
  quietUntil: number | null;
}

/** A group's row: the group, its participation state (absent before its first message since start), and a refresh. */
interface GroupRow {
  group: GroupView;
  participation: ParticipationView | undefined;
  changed: () => void;
}

/** One column of the groups table: its heading and what it shows of a group. */
interface GroupColumn {
  heading: TextKey;
  cell: (row: GroupRow) => ComponentChildren;
}

const TALK_VALUES = [0, 0.2, 0.4, 0.6, 0.8, 1];

/** The table's columns in order; a column about a group (its participation, say) is one more entry. */
const COLUMNS: GroupColumn[] = [
  { heading: "groupsHour", cell: ({ group }) => group.messagesLastHour },
  { heading: "groupsDay", cell: ({ group }) => group.messagesLastDay },
  { heading: "groupsMembers", cell: ({ group }) => group.activeMembersLastDay },
  { heading: "groupsBotShare", cell: ({ group }) => `${Math.round(group.botShare * 100)}%` },
  { heading: "groupsActivity", cell: ({ group }) => <HourlyChart hourly={group.hourly} /> },
  {
    heading: "groupsLast",
    cell: ({ group }) => (group.lastMessageAt === null ? "—" : formatTime(group.lastMessageAt)),
  },
  {
    heading: "groupsChat",
    cell: ({ group }) => (
      <Link href={withQuery("/chats", { session: group.sessionId })}>{t("groupsChat")}</Link>
    ),
  },
  {
    // Written into the config file as chat.groups.<id>.participation.talkValue.
    heading: "groupsTalkValue",
    cell: ({ group, participation, changed }) => (
      <select
        value={String(participation?.talkValue ?? "")}
        onChange={async (event) => {
          const talkValue = Number((event.target as HTMLSelectElement).value);
          await api.post("/api/participation/talk-value", { group: group.groupId, talkValue });
          changed();
        }}
      >
        {participation === undefined && <option value="">—</option>}
        {TALK_VALUES.map((value) => (
          <option key={value} value={String(value)}>
            {value}
          </option>
        ))}
      </select>
    ),
  },
  {
    heading: "groupsQuiet",
    cell: ({ group, participation, changed }) => {
      const quiet = participation?.quietUntil ?? null;
      const toggle = async () => {
        await api.post("/api/participation/quiet", { chat: group.sessionId, minutes: quiet ? 0 : 30 });
        changed();
      };
      if (participation === undefined) return "—";
      return (
        <button type="button" class="quiet-toggle" onClick={toggle}>
          {quiet ? `${formatTime(quiet)} · ${t("groupsQuietEnd")}` : t("groupsQuietStart")}
        </button>
      );
    },
  },
];

/** A group as its name and id (the id alone when the group list has no name for it). */
function groupName(group: GroupView): string {
  return group.name ? `${group.name} (${group.groupId})` : group.groupId;
}

/**
 * The groups the bot is in, with their activity and the bot's share of it; a group opened
 * shows the expressions learned in it, each edited or deleted in place.
 */
export function GroupsPage() {
  const [groups, setGroups] = useState<GroupView[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [open, setOpen] = useState<GroupView | null>(null);
  const [participation, setParticipation] = useState<Map<string, ParticipationView>>(new Map());
  const [loads, setLoads] = useState(0);

  useEffect(() => {
    api.get<GroupsAnswer>("/api/groups").then(
      (answer) => setGroups(answer.groups),
      (error: unknown) => setFailure(failureText(error)),
    );
    api.get<{ chats: ParticipationView[] }>("/api/participation").then(
      (answer) => setParticipation(new Map(answer.chats.map((chat) => [chat.sessionId, chat]))),
      (error: unknown) => setFailure(failureText(error)),
    );
  }, [loads]);
  const changed = () => setLoads((n) => n + 1);

  if (failure) return <p class="error">{failure}</p>;
  if (!groups) return <p>{t("loading")}</p>;
  return (
    <section class="page groups">
      <header class="page-head">
        <h1>{t("groupsTitle")}</h1>
      </header>
      <p class="muted small">{t("groupsHint")}</p>
      {groups.length === 0 ? (
        <p class="muted">{t("groupsNone")}</p>
      ) : (
        <table class="grid-table groups-table">
          <thead>
            <tr>
              <th>{t("groupsName")}</th>
              {COLUMNS.map((column) => (
                <th key={column.heading}>{t(column.heading)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {groups.map((group) => (
              <tr key={group.sessionId} class={open?.sessionId === group.sessionId ? "selected" : ""}>
                <td>
                  <button type="button" class="group-open" data-user-content onClick={() => setOpen(group)}>
                    {groupName(group)}
                  </button>
                  {!group.listed && <span class="muted small"> · {t("groupsNotListed")}</span>}
                </td>
                {COLUMNS.map((column) => (
                  <td key={column.heading}>
                    {column.cell({ group, participation: participation.get(group.sessionId), changed })}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && <Expressions key={open.sessionId} group={open} />}
    </section>
  );
}

const BAR = 5;
const CHART_HEIGHT = 30;

/**
 * The group's last 24 hours as bars, an hour each (oldest left): all messages, and in the
 * accent colour the bot's part of them. People would rather look than read.
 */
function HourlyChart({ hourly }: { hourly: GroupView["hourly"] }) {
  const most = Math.max(1, ...hourly.map((hour) => hour.messages));
  const height = (count: number) => (count === 0 ? 0 : Math.max(2, (count / most) * CHART_HEIGHT));
  const total = hourly.reduce((sum, hour) => sum + hour.messages, 0);
  const bot = hourly.reduce((sum, hour) => sum + hour.bot, 0);
  return (
    <svg
      class="hourly-chart"
      role="img"
      aria-label={t("groupsActivityLabel", { messages: total, bot })}
      width={hourly.length * BAR}
      height={CHART_HEIGHT}
      viewBox={`0 0 ${hourly.length * BAR} ${CHART_HEIGHT}`}
    >
      {hourly.map((hour, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the hours are fixed slots
        <g key={index} data-messages={hour.messages} data-bot={hour.bot}>
          <rect
            class="all"
            x={index * BAR}
            y={CHART_HEIGHT - height(hour.messages)}
            width={BAR - 1}
            height={height(hour.messages)}
          />
          <rect
            class="bot"
            x={index * BAR}
            y={CHART_HEIGHT - height(hour.bot)}
            width={BAR - 1}
            height={height(hour.bot)}
          />
        </g>
      ))}
    </svg>
  );
}

/** The expressions learned in one group, each editable and deletable. */
function Expressions({ group }: { group: GroupView }) {
  const [entries, setEntries] = useState<GroupExpression[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    api
      .get<GroupExpressionsAnswer>(withQuery("/api/groups/expressions", { sessionId: group.sessionId }))
      .then(
        (answer) => setEntries(answer.expressions),
        (error: unknown) => setFailure(failureText(error)),
      );
  }, [group.sessionId]);

  const replace = (edited: GroupExpression) =>
    setEntries((current) => current?.map((entry) => (entry.id === edited.id ? edited : entry)) ?? null);
  const remove = (id: number) => setEntries((current) => current?.filter((entry) => entry.id !== id) ?? null);

  return (
    <section class="card group-expressions">
      <h2>{t("groupsExpressions", { name: groupName(group) })}</h2>
      {failure && <p class="error">{failure}</p>}
      {entries === null && !failure && <p>{t("loading")}</p>}
      {entries?.length === 0 && <p class="muted">{t("groupsExpressionsNone")}</p>}
      <ul class="plain-list">
        {entries?.map((entry) => (
          <ExpressionItem
            key={entry.id}
            entry={entry}
            onEdited={replace}
            onDeleted={() => remove(entry.id)}
          />
        ))}
      </ul>
    </section>
  );
}

function ExpressionItem({
  entry,
  onEdited,
  onDeleted,
}: {
  entry: GroupExpression;
  onEdited: (entry: GroupExpression) => void;
  onDeleted: () => void;
}) {
  const [mode, setMode] = useState<"view" | "edit" | "delete">("view");
  if (mode === "edit")
    return (
      <li class="expression">
        <EditExpression
          entry={entry}
          onSaved={(edited) => {
            onEdited(edited);
            setMode("view");
          }}
          onCancel={() => setMode("view")}
        />
      </li>
    );
  return (
    <li class="expression">
      <p>
        <strong>{entry.expression}</strong> — {entry.meaning}
        {entry.example && <span class="muted"> · {entry.example}</span>}
      </p>
      {mode === "delete" ? (
        <Confirm
          question={t("groupsDeleteAsk", { expression: entry.expression })}
          yes={t("groupsDelete")}
          onYes={async () => {
            await api.delete(
              withQuery(`/api/groups/expressions/${entry.id}`, { sessionId: entry.sessionId }),
            );
            onDeleted();
          }}
          onNo={() => setMode("view")}
        />
      ) : (
        <div class="actions">
          <button type="button" onClick={() => setMode("edit")}>
            {t("groupsEdit")}
          </button>
          <button type="button" onClick={() => setMode("delete")}>
            {t("groupsDelete")}
          </button>
        </div>
      )}
    </li>
  );
}

/** Rewrites an expression, its meaning and its example. */
function EditExpression({
  entry,
  onSaved,
  onCancel,
}: {
  entry: GroupExpression;
  onSaved: (entry: GroupExpression) => void;
  onCancel: () => void;
}) {
  const [fields, setFields] = useState({
    expression: entry.expression,
    meaning: entry.meaning,
    example: entry.example,
  });
  const [failure, setFailure] = useState<string | null>(null);
  const field = (name: keyof typeof fields, label: TextKey) => (
    <label>
      {t(label)}
      <input
        name={name}
        value={fields[name]}
        onInput={(event) => setFields({ ...fields, [name]: event.currentTarget.value })}
      />
    </label>
  );
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await api.patch<{ expression: GroupExpression }>(`/api/groups/expressions/${entry.id}`, {
        sessionId: entry.sessionId,
        ...fields,
      });
      onSaved(answer.expression);
    } catch (error) {
      setFailure(failureText(error));
    }
  };
  return (
    <form class="form" onSubmit={save}>
      {field("expression", "groupsExpression")}
      {field("meaning", "groupsMeaning")}
      {field("example", "groupsExample")}
      {failure && <p class="error">{failure}</p>}
      <div class="actions">
        <button type="submit" class="primary" disabled={!fields.expression.trim()}>
          {t("save")}
        </button>
        <button type="button" onClick={onCancel}>
          {t("memCancel")}
        </button>
      </div>
    </form>
  );
}
