import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { type TextKey, t } from "../i18n.ts";

/** One reminder as `/api/reminders` lists it. */
interface ReminderRow {
  id: number;
  sessionId: string;
  userId: string;
  userName: string;
  text: string;
  /** Its time in chat.timezone, `YYYY-MM-DD HH:mm`. */
  due: string;
  status: "pending" | "sent" | "cancelled" | "expired";
  late: boolean;
}

const REFRESH_MS = 5_000;

const STATUS_TEXT: Record<ReminderRow["status"], TextKey> = {
  pending: "reminderPending",
  sent: "reminderSent",
  cancelled: "reminderCancelled",
  expired: "reminderExpired",
};

/** Reminders set in chats: pending and past, newest first; a pending one can be cancelled. */
export function RemindersPage() {
  const [reminders, setReminders] = useState<ReminderRow[] | null>(null);
  const load = () =>
    void api
      .get<{ reminders: ReminderRow[] }>("/api/reminders")
      .then((answer) => setReminders(answer.reminders));

  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  const cancel = async (id: number) => {
    if (!confirm(t("remindersCancelConfirm"))) return;
    await api.delete(`/api/reminders/${id}`);
    load();
  };

  if (!reminders) return <p>{t("loading")}</p>;
  return (
    <section class="page reminders">
      <header class="page-head">
        <h1>{t("navReminders")}</h1>
      </header>
      <p class="muted small">{t("remindersHint")}</p>
      {reminders.length === 0 && <p class="muted">{t("remindersNone")}</p>}
      {reminders.length > 0 && (
        <table class="grid-table reminders-table">
          <thead>
            <tr>
              <th>#</th>
              <th>{t("remindersDue")}</th>
              <th>{t("remindersWho")}</th>
              <th>{t("remindersText")}</th>
              <th>{t("remindersChat")}</th>
              <th>{t("remindersStatus")}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {reminders.map((reminder) => (
              <tr key={reminder.id} data-status={reminder.status}>
                <td class="mono">{reminder.id}</td>
                <td class="mono">{reminder.due}</td>
                <td>
                  <span data-user-content>{reminder.userName}</span>{" "}
                  <span class="mono small">({reminder.userId})</span>
                </td>
                <td class="multiline" data-user-content>
                  {reminder.text}
                </td>
                <td class="mono small">{reminder.sessionId}</td>
                <td>
                  <span class={`badge reminder-${reminder.status}`}>{t(STATUS_TEXT[reminder.status])}</span>
                  {reminder.late ? ` · ${t("remindersLate")}` : ""}
                </td>
                <td>
                  {reminder.status === "pending" && (
                    <button type="button" onClick={() => void cancel(reminder.id)}>
                      {t("remindersCancel")}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
