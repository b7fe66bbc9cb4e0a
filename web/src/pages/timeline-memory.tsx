import { type TextKey, t } from "../i18n.ts";
import { Link } from "../link.tsx";
import type { MemoryOrigin, StoredMonitorEvent } from "../types.ts";

/** A memory as the memory events name it. */
interface MemoryBrief {
  id: number;
  subjectName?: string;
  content: string;
  /** Updates: the content before. */
  previous?: string;
  /** Deletions: why. */
  reason?: string;
}

const FORGOTTEN_BY: Record<string, TextKey> = {
  command: "monForgottenBy_command",
  console: "monForgottenBy_console",
  recall: "monForgottenBy_recall",
};

/** `memory.recalled`, `memory.learned` and `memory.forgotten` on the timeline. */
export function MemoryEvent({ event }: { event: StoredMonitorEvent }) {
  const data = event.data;
  if (event.type === "memory.recalled") {
    return (
      <div>
        <h4>{t("monRecalled", { chars: String(data.chars ?? "?") })}</h4>
        <MemoryList entries={briefs(data.entries)} />
      </div>
    );
  }
  if (event.type === "memory.forgotten") {
    const by = FORGOTTEN_BY[String(data.by)];
    const ids = Array.isArray(data.ids) ? data.ids : [];
    return (
      <p>
        {t("monForgotten", { n: ids.length })}
        {typeof data.subject === "string" && <span class="mono"> · {data.subject}</span>} ·{" "}
        {by ? t(by) : String(data.by ?? "")}
      </p>
    );
  }
  const added = briefs(data.added);
  const updated = briefs(data.updated);
  const deleted = briefs(data.deleted);
  return (
    <div>
      <div class="small muted">
        {t("monLearnedBy")}: {originLabel(String(data.origin ?? ""))}
        {typeof data.model === "string" && <span class="mono"> · {data.model}</span>}
      </div>
      {added.length > 0 && (
        <>
          <h4>{t("monMemAdded")}</h4>
          <MemoryList entries={added} />
        </>
      )}
      {updated.length > 0 && (
        <>
          <h4>{t("monMemUpdated")}</h4>
          <MemoryList entries={updated} />
        </>
      )}
      {deleted.length > 0 && (
        <>
          <h4>{t("monMemDeleted")}</h4>
          <MemoryList entries={deleted} />
        </>
      )}
    </div>
  );
}

function MemoryList({ entries }: { entries: MemoryBrief[] }) {
  if (entries.length === 0) return <p class="muted">—</p>;
  return (
    <ul class="plain">
      {entries.map((entry) => (
        <li key={entry.id}>
          <Link href={`/memory?id=${entry.id}`} class="mono small">
            #{entry.id}
          </Link>{" "}
          {entry.subjectName && <strong>{entry.subjectName}: </strong>}
          {entry.content}
          {entry.previous !== undefined && (
            <span class="muted small">
              {" "}
              ({t("monMemWas")} “{entry.previous}”)
            </span>
          )}
          {entry.reason && <span class="muted small"> ({entry.reason})</span>}
        </li>
      ))}
    </ul>
  );
}

/** The entries of an event's list, whatever an older or newer bot put there. */
function briefs(value: unknown): MemoryBrief[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (entry): entry is MemoryBrief =>
      typeof entry === "object" && entry !== null && typeof (entry as MemoryBrief).id === "number",
  );
}

const ORIGIN_LABELS: Record<MemoryOrigin, TextKey> = {
  tool: "memOrigin_tool",
  learned: "memOrigin_learned",
  plugin: "memOrigin_plugin",
  console: "memOrigin_console",
};

/** How a memory came to be, in words; an origin a newer bot added shows as it is. */
export function originLabel(origin: string): string {
  const key = ORIGIN_LABELS[origin as MemoryOrigin] as TextKey | undefined;
  return key ? t(key) : origin;
}
