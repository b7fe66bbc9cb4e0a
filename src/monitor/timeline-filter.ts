import type { MonitorEvent } from "./monitor.ts";

/**
 * Whether an event belongs on the timeline (stored and streamed). Untriggered messages are
 * left out: they arrive at the full ingest rate, would push every turn out of the retention
 * window within seconds, and are already in the chat history.
 */
export function isTimelineEvent(event: MonitorEvent): boolean {
  return event.type !== "message.ingested" || event.data.trigger != null;
}
