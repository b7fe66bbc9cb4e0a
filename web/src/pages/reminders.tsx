import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { t } from "../i18n.ts";

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
        <table class="reminders-table">
          <tbody>
            {reminders.map((reminder) => (
              <tr key={reminder.id}>
                <td class="mono">#{reminder.id}</td>
                <td class="mono">{reminder.due}</td>
                <td>
                  {reminder.userName} ({reminder.userId})
                </td>
                <td>{reminder.text}</td>
                <td class="mono small">{reminder.sessionId}</td>
                <td>
                  {reminder.status}
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
