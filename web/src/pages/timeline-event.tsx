import { eventLabel } from "../event-labels.ts";
import type { MediaSource } from "../fetched-media.ts";
import { formatTime, t } from "../i18n.ts";
import { Link } from "../link.tsx";
import { Segments } from "../segments.tsx";
import type { ChatMessage, Segment, StoredMonitorEvent } from "../types.ts";
import { MemoryEvent } from "./timeline-memory.tsx";

export function StatusBadge({ status }: { status: string | undefined }) {
  const label =
    status === "replied"
      ? t("statusReplied")
      : status === "silent"
        ? t("statusSilent")
        : status === "failed"
          ? t("statusFailed")
          : status === "interrupted"
            ? t("statusInterrupted")
            : t("monRunning");
  return <span class={`badge ${status ?? "running"}`}>{label}</span>;
}

interface PromptMessage {
  role: string;
  content?: string;
  toolCalls?: Array<{ name: string; input: unknown }>;
  results?: Array<{ toolName: string; output: unknown }>;
}

interface ToolCall {
  name: string;
  input: unknown;
}

/** One step of a turn on the timeline, laid out for its kind; unknown kinds show their data. */
export function TimelineEvent({ event, messages }: { event: StoredMonitorEvent; messages: ChatMessage[] }) {
  return (
    <li class={`event ${event.type.replace(".", "-")}`} data-event-type={event.type}>
      <div class="event-head">
        <span class="event-type" title={event.type}>
          {eventLabel(event.type)}
        </span>
        <span class="muted small">{formatTime(event.time)}</span>
      </div>
      <EventBody event={event} messages={messages} />
    </li>
  );
}

function EventBody({ event, messages }: { event: StoredMonitorEvent; messages: ChatMessage[] }) {
  const data = event.data;
  switch (event.type) {
    case "turn.started":
      return (
        <div>
          <div class="small muted">
            {t("monStarted")} · {String(data.kind ?? "")} · {event.sessionId}
          </div>
          {typeof data.recoveredFrom === "string" && (
            <p class="why">
              {t("monRecoveredFrom")}{" "}
              <Link href={`/monitor/${data.recoveredFrom}`} class="mono">
                {data.recoveredFrom.slice(0, 8)}
              </Link>
            </p>
          )}
          <h4>{t("monTriggers")}</h4>
          <ul class="plain">
            {messages.map((message) => (
              <li key={message.messageId}>
                <strong>{message.senderName}</strong> <span class="muted">({message.userId})</span>:{" "}
                <Segments segments={message.segments} source={message} />
              </li>
            ))}
          </ul>
        </div>
      );
    case "planner.round":
      return <PlannerRound data={data} />;
    case "replyer.generated":
    case "transcript.read":
      return (
        <div class="model-call">
          <ModelCallFacts data={data} />
          <h4>{event.type === "replyer.generated" ? t("monReplyText") : t("monText")}</h4>
          <pre>{String(data.text ?? "")}</pre>
          {Array.isArray(data.prompt) && <PromptDetails prompt={data.prompt as PromptMessage[]} />}
        </div>
      );
    case "tool.called":
      return (
        <div class={data.isError ? "tool error-box" : "tool"}>
          <strong class="mono">{String(data.name)}</strong>
          <pre>{json(data.input)}</pre>
          <h4>{t("monToolResult")}</h4>
          <pre>{json(data.output)}</pre>
        </div>
      );
    case "hook.decision":
      return (
        <div>
          <div>
            {t("monHook")}: <span class="mono">{String(data.event)}</span>
            {data.tool ? <span class="mono"> · {String(data.tool)}</span> : null} →{" "}
            <strong class={`decision ${String(data.decision)}`}>{String(data.decision)}</strong>
            {data.by ? <span class="muted small"> ({String(data.by)})</span> : null}
          </div>
          {data.message ? <p class="why">{String(data.message)}</p> : null}
          <ul class="plain small">
            {((data.hooks ?? []) as Array<{ hook: string; decision: string | null; failure?: string }>).map(
              (hook) => (
                <li key={hook.hook} class="mono">
                  {hook.hook}: {hook.decision ?? "—"}
                  {hook.failure ? <span class="muted"> ({hook.failure})</span> : null}
                </li>
              ),
            )}
          </ul>
        </div>
      );
    case "message.sent":
      return (
        <div>
          <h4>{t("monSent")}</h4>
          <div class="sent">
            <Segments segments={(data.segments ?? []) as Segment[]} source={sentSource(event)} />
          </div>
        </div>
      );
    case "vision.described":
    case "vision.failed":
    case "vision.skipped":
      return <VisionCall event={event} />;
    case "memory.recalled":
    case "memory.learned":
    case "memory.forgotten":
      return <MemoryEvent event={event} />;
    case "turn.finished":
      return (
        <div>
          <div>
            {t("monFinished")}: <StatusBadge status={String(data.status)} /> · {t("monDuration")}{" "}
            {String(data.durationMs ?? "?")} ms
          </div>
          {data.status !== "replied" && (
            <p class="why">
              <strong>{data.status === "silent" ? t("monWhySilent") : t("monReason")}:</strong>{" "}
              {String(data.reason ?? "")}
            </p>
          )}
        </div>
      );
    default:
      return <pre>{json(data)}</pre>;
  }
}

/** Which model answered, how fast and for how many tokens (prompt + completion). */
function ModelCallFacts({ data }: { data: Record<string, unknown> }) {
  const usage = (data.usage ?? {}) as { promptTokens?: number; completionTokens?: number };
  return (
    <dl class="facts">
      <dt>{t("monModel")}</dt>
      <dd class="mono">{String(data.model ?? "")}</dd>
      <dt>{t("monLatency")}</dt>
      <dd>{String(data.latencyMs ?? "?")} ms</dd>
      {typeof data.firstTokenMs === "number" && (
        <>
          <dt>{t("monFirstToken")}</dt>
          <dd>{data.firstTokenMs} ms</dd>
        </>
      )}
      <dt>{t("monTokens")}</dt>
      <dd>
        {usage.promptTokens ?? 0} + {usage.completionTokens ?? 0}
      </dd>
      {typeof data.finishReason === "string" && (
        <>
          <dt>{t("monFinish")}</dt>
          <dd class="mono">{data.finishReason}</dd>
        </>
      )}
    </dl>
  );
}

/** The stored message a sent event names, whose pictures the bot serves. */
function sentSource(event: StoredMonitorEvent): MediaSource | undefined {
  const messageId = event.data.messageId;
  return typeof messageId === "string" && event.sessionId
    ? { sessionId: event.sessionId, messageId }
    : undefined;
}

/** One picture looked at: which model, tokens, time, and whether the cache answered; or why not. */
function VisionCall({ event }: { event: StoredMonitorEvent }) {
  const data = event.data;
  if (event.type === "vision.skipped") {
    return (
      <p class="why">
        {t("monSkipped", { n: String(data.count ?? "?") })} ·{" "}
        {data.reason === "daily cap" ? t("monCapDay") : t("monCapTurn")}
      </p>
    );
  }
  const kind = data.kind === "sticker" ? t("monSticker") : t("monImage");
  if (event.type === "vision.failed") {
    return (
      <dl class="facts">
        <dt>{t("monPictureKind")}</dt>
        <dd>{kind}</dd>
        <dt>{t("monVisionStage")}</dt>
        <dd>{data.stage === "model" ? t("monStageModel") : t("monStageFetch")}</dd>
        <dt>{t("monReason")}</dt>
        <dd class="mono">{String(data.reason ?? "")}</dd>
      </dl>
    );
  }
  return (
    <dl class="facts">
      <dt>{t("monPictureKind")}</dt>
      <dd>{kind}</dd>
      <dt>{t("monModel")}</dt>
      <dd class="mono">{String(data.model ?? "")}</dd>
      {typeof data.fetchMs === "number" && (
        <>
          <dt>{t("monFetchTime")}</dt>
          <dd>{Math.round(data.fetchMs)} ms</dd>
        </>
      )}
      {data.cached === true ? (
        <>
          <dt>{t("monTokens")}</dt>
          <dd>{t("monCacheHit")}</dd>
        </>
      ) : (
        <>
          <dt>{t("monLatency")}</dt>
          <dd>{String(data.latencyMs ?? "?")} ms</dd>
          <dt>{t("monTokens")}</dt>
          <dd>
            {String(data.promptTokens ?? 0)} + {String(data.completionTokens ?? 0)}
          </dd>
        </>
      )}
    </dl>
  );
}

function PlannerRound({ data }: { data: Record<string, unknown> }) {
  const toolCalls = (data.toolCalls ?? []) as ToolCall[];
  const prompt = (data.prompt ?? []) as PromptMessage[];
  return (
    <div class="planner-round">
      <h4>{t("monRound", { n: String(data.round ?? "?") })}</h4>
      <ModelCallFacts data={data} />
      {typeof data.text === "string" && data.text && (
        <>
          <h4>{t("monText")}</h4>
          <pre>{data.text}</pre>
        </>
      )}
      <h4>{t("monToolCalls")}</h4>
      <ul class="plain">
        {toolCalls.length === 0 && <li class="muted">—</li>}
        {toolCalls.map((call, index) => (
          <li key={`${call.name}-${index}`} class="mono">
            {call.name}({json(call.input)})
          </li>
        ))}
      </ul>
      <PromptDetails prompt={prompt} />
    </div>
  );
}

/** The messages a model was sent, folded away until asked for. */
function PromptDetails({ prompt }: { prompt: PromptMessage[] }) {
  return (
    <details>
      <summary>
        {t("monPrompt")} ({prompt.length})
      </summary>
      {prompt.map((message, index) => (
        <div key={`${message.role}-${index}`} class="prompt-message">
          <div class="role">{message.role}</div>
          <pre>{promptText(message)}</pre>
        </div>
      ))}
    </details>
  );
}

function promptText(message: PromptMessage): string {
  if (message.role === "tool") return json(message.results);
  const calls = message.toolCalls?.map((call) => `${call.name}(${json(call.input)})`).join("\n");
  return [message.content ?? "", calls ?? ""].filter(Boolean).join("\n");
}

function json(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 1);
}
