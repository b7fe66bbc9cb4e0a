import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, withQuery } from "../api.ts";
import { followStream } from "../event-stream.ts";
import { t } from "../i18n.ts";
import { Link } from "../link.tsx";
import { previewText, Segments } from "../segments.tsx";
import type { ChatMessage, ConsoleStatus, Segment, StoredMonitorEvent } from "../types.ts";

interface PlaygroundInfo {
  selfId: string;
  botName: string;
  modelConfigured: boolean;
}

interface Identity {
  chatType: "group" | "private";
  groupId: string;
  userId: string;
  userName: string;
}

/** A turn that ended without a reply, shown in the chat so silence is never a mystery. */
interface Notice {
  replyId: string;
  time: number;
  status: string;
  reason: string;
}

const IDENTITY_KEY = "tsumugi.playground";
/** Which turn sent each bot message, so "Why this reply?" survives a reload; the newest kept. */
const REPLY_IDS_KEY = "tsumugi.playground.replyIds";
const REPLY_IDS_KEPT = 500;
const DEFAULT_IDENTITY: Identity = { chatType: "group", groupId: "20000", userId: "30001", userName: "小明" };
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

function loadIdentity(): Identity {
  try {
    return { ...DEFAULT_IDENTITY, ...JSON.parse(localStorage.getItem(IDENTITY_KEY) ?? "{}") };
  } catch {
    return DEFAULT_IDENTITY;
  }
}

function loadReplyIds(): Record<string, string> {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(REPLY_IDS_KEY) ?? "{}");
    return typeof saved === "object" && saved !== null ? (saved as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function saveReplyIds(replyIds: Record<string, string>): void {
  const newest = Object.entries(replyIds).slice(-REPLY_IDS_KEPT);
  localStorage.setItem(REPLY_IDS_KEY, JSON.stringify(Object.fromEntries(newest)));
}

/** Chat with the bot as any user, in a simulated group or private chat, through the real pipeline. */
export function PlaygroundPage({ status }: { status: ConsoleStatus }) {
  const [info, setInfo] = useState<PlaygroundInfo | null>(null);
  const [identity, setIdentity] = useState<Identity>(loadIdentity);
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [notices, setNotices] = useState<Notice[]>([]);
  const [replyIds, setReplyIds] = useState<Record<string, string>>(loadReplyIds);
  /** Counts pictures described in this chat, so the pictures on screen read their descriptions again. */
  const [described, setDescribed] = useState(0);
  const [text, setText] = useState("");
  const [mentionBot, setMentionBot] = useState(true);
  const [quoting, setQuoting] = useState<ChatMessage | null>(null);
  const [images, setImages] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const listRef = useRef<HTMLDivElement>(null);

  const peerId = identity.chatType === "group" ? identity.groupId : identity.userId;
  const sessionId = info ? `console:${info.selfId}:${identity.chatType}:${peerId}` : "";

  useEffect(() => {
    localStorage.setItem(IDENTITY_KEY, JSON.stringify(identity));
  }, [identity]);

  useEffect(() => saveReplyIds(replyIds), [replyIds]);

  useEffect(() => {
    void api.get<PlaygroundInfo>("/api/playground").then(setInfo);
  }, [status.modelConfigured]);

  useEffect(() => {
    if (!sessionId || !peerId) return;
    setMessages([]);
    setNotices([]);
    setQuoting(null);
    const path = withQuery("/api/playground/messages", { chatType: identity.chatType, peerId });
    void api.get<{ messages: ChatMessage[] }>(path).then((answer) => setMessages(answer.messages));
    const stopMessages = followStream("/api/playground/stream", (_event, data) => {
      const message = data as ChatMessage;
      if (message.sessionId !== sessionId) return;
      setMessages((current) =>
        current.some((m) => m.messageId === message.messageId) ? current : [...current, message],
      );
    });
    const stopMonitor = followStream("/api/monitor/stream", (_event, data) => {
      const event = data as StoredMonitorEvent & { instance?: string };
      // Another instance's events (a cluster) are of its own playground, whatever the session's name.
      if (event.instance !== undefined || event.sessionId !== sessionId || !event.replyId) return;
      const replyId = event.replyId;
      if (event.type === "vision.described") setDescribed((count) => count + 1);
      if (event.type === "message.sent") {
        setReplyIds((current) => ({ ...current, [String(event.data.messageId)]: replyId }));
      }
      if (event.type === "turn.finished" && event.data.status !== "replied") {
        const notice = {
          replyId,
          time: event.time,
          status: String(event.data.status),
          reason: String(event.data.reason ?? ""),
        };
        setNotices((current) => [...current, notice]);
      }
    });
    return () => {
      stopMessages();
      stopMonitor();
    };
  }, [sessionId, peerId, identity.chatType]);

  const entries = useMemo(() => {
    const all: Array<{ time: number; message?: ChatMessage; notice?: Notice }> = [
      ...messages.map((message) => ({ time: message.time, message })),
      ...notices.map((notice) => ({ time: notice.time, notice })),
    ];
    return all.sort((a, b) => a.time - b.time);
  }, [messages, notices]);

  useEffect(() => {
    listRef.current?.scrollTo({ top: listRef.current.scrollHeight });
  }, [entries.length]);

  const lookup = (messageId: string) => messages.find((m) => m.messageId === messageId);

  const send = async () => {
    if (!info) return;
    const segments: Segment[] = [];
    if (quoting) segments.push({ type: "reply", data: { id: quoting.messageId } });
    if (mentionBot && identity.chatType === "group") {
      segments.push({ type: "at", data: { qq: info.selfId, name: info.botName } });
    }
    if (text.trim()) segments.push({ type: "text", data: { text: mentionBot ? ` ${text}` : text } });
    for (const image of images) segments.push({ type: "image", data: { file: `base64://${image}` } });
    if (!segments.some((s) => s.type === "text" || s.type === "image")) return;
    setError(null);
    try {
      await api.post("/api/playground/messages", {
        chatType: identity.chatType,
        ...(identity.chatType === "group" ? { groupId: identity.groupId } : {}),
        userId: identity.userId,
        senderName: identity.userName,
        segments,
      });
      setText("");
      setImages([]);
      setQuoting(null);
    } catch (caught) {
      setError(String(caught));
    }
  };

  const attachImage = async (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = "";
    if (!file || file.size > MAX_IMAGE_BYTES) return;
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    setImages((current) => [...current, btoa(binary)]);
  };

  const update = (patch: Partial<Identity>) => setIdentity((current) => ({ ...current, ...patch }));

  return (
    <section class="page playground">
      <header class="page-head">
        <h1>{t("navPlayground")}</h1>
        <div class="toolbar">
          <label>
            {t("pgChatType")}
            <select
              value={identity.chatType}
              onChange={(event) => update({ chatType: event.currentTarget.value as Identity["chatType"] })}
            >
              <option value="group">{t("pgGroup")}</option>
              <option value="private">{t("pgPrivate")}</option>
            </select>
          </label>
          {identity.chatType === "group" && (
            <label>
              {t("pgGroupId")}
              <input
                class="short"
                value={identity.groupId}
                onChange={(event) => update({ groupId: event.currentTarget.value.trim() })}
              />
            </label>
          )}
          <label>
            {t("pgUserId")}
            <input
              class="short"
              value={identity.userId}
              onChange={(event) => update({ userId: event.currentTarget.value.trim() })}
            />
          </label>
          <label>
            {t("pgUserName")}
            <input
              class="short"
              value={identity.userName}
              onChange={(event) => update({ userName: event.currentTarget.value })}
            />
          </label>
        </div>
      </header>
      {info && !info.modelConfigured && (
        <output class="banner warn">
          {t("noModelBanner")} <Link href="/setup">{t("noModelLink")}</Link>
        </output>
      )}
      <div class="chat-list" ref={listRef}>
        {entries.length === 0 && <p class="muted">{t("pgEmpty")}</p>}
        {entries.map((entry) =>
          entry.message ? (
            <MessageBubble
              key={entry.message.messageId}
              message={entry.message}
              mine={!entry.message.fromSelf && entry.message.userId === identity.userId}
              replyId={replyIds[entry.message.messageId]}
              described={described}
              lookup={lookup}
              onQuote={() => setQuoting(entry.message!)}
            />
          ) : (
            <NoticeLine key={`notice-${entry.notice!.replyId}`} notice={entry.notice!} />
          ),
        )}
      </div>
      <div class="composer">
        {quoting && (
          <div class="quoting">
            {t("pgQuoting")} {quoting.senderName}: {previewText(quoting.segments)}
            <button type="button" class="link-button" onClick={() => setQuoting(null)}>
              {t("pgCancel")}
            </button>
          </div>
        )}
        {images.length > 0 && (
          <div class="attachments">
            {images.map((image, index) => (
              <img key={image.slice(0, 32) + String(index)} src={`data:image/*;base64,${image}`} alt="" />
            ))}
            <button type="button" class="link-button" onClick={() => setImages([])}>
              {t("pgCancel")}
            </button>
          </div>
        )}
        <div class="composer-row">
          {identity.chatType === "group" && (
            <label class="chip">
              <input
                type="checkbox"
                checked={mentionBot}
                onChange={(event) => setMentionBot(event.currentTarget.checked)}
              />
              {t("pgMention")}
            </label>
          )}
          <label class="chip">
            {t("pgImage")}
            <input type="file" accept="image/*" class="hidden" onChange={attachImage} />
          </label>
          <textarea
            name="message"
            rows={2}
            placeholder={t("pgPlaceholder")}
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
                event.preventDefault();
                void send();
              }
            }}
          />
          <button type="button" class="primary send" onClick={() => void send()}>
            {t("pgSend")}
          </button>
        </div>
        {error && <p class="error">{error}</p>}
      </div>
    </section>
  );
}

interface BubbleProps {
  message: ChatMessage;
  mine: boolean;
  replyId: string | undefined;
  described: number;
  lookup: (messageId: string) => ChatMessage | undefined;
  onQuote: () => void;
}

function MessageBubble({ message, mine, replyId, described, lookup, onQuote }: BubbleProps) {
  const side = message.fromSelf ? "bot" : mine ? "mine" : "other";
  return (
    <div class={`bubble-row ${side}`} data-message-id={message.messageId}>
      <div class="bubble">
        <div class="bubble-head">
          <strong>{message.senderName}</strong> <span class="muted">({message.userId})</span>
        </div>
        <div class="bubble-body">
          <Segments segments={message.segments} lookup={lookup} source={message} revision={described} />
        </div>
        <div class="bubble-actions">
          <button type="button" class="link-button" onClick={onQuote}>
            {t("pgQuote")}
          </button>
          {replyId && <Link href={`/monitor/${replyId}`}>{t("pgWhy")}</Link>}
        </div>
      </div>
    </div>
  );
}

function NoticeLine({ notice }: { notice: Notice }) {
  return (
    <div class="notice">
      {notice.status === "failed" ? t("pgFailed") : t("pgSilent")} {notice.reason}{" "}
      <Link href={`/monitor/${notice.replyId}`}>{t("pgSeeTimeline")}</Link>
    </div>
  );
}
