/** The OneBot v11 frames the benchmark peers speak, in one place. */
import { WebSocket } from "ws";

export interface ActionRequest {
  action: string;
  params: Record<string, unknown>;
  echo: unknown;
}

export interface GroupMessage {
  selfId: string;
  messageId: number;
  groupId: number;
  userId: number;
  segments: Array<{ type: string; data: Record<string, unknown> }>;
  /** The same message as a CQ string (`raw_message`). */
  raw: string;
}

/** A group message event exactly as NapCat sends it (array format). */
export function groupMessageFrame(message: GroupMessage): string {
  return JSON.stringify({
    time: Math.floor(Date.now() / 1000),
    self_id: Number(message.selfId),
    post_type: "message",
    message_type: "group",
    sub_type: "normal",
    message_id: message.messageId,
    group_id: message.groupId,
    user_id: message.userId,
    message: message.segments,
    raw_message: message.raw,
    font: 0,
    sender: { user_id: message.userId, nickname: `user${message.userId}`, card: "", role: "member" },
  });
}

/** Text segments of a `send_*_msg` request, joined. */
export function sentText(request: ActionRequest): string {
  const segments = request.params.message as Array<{ data: { text?: string } }>;
  return segments.map((segment) => segment.data.text ?? "").join("");
}

/**
 * Dials the bot's reverse WebSocket as account `selfId`. Every action is answered `ok` with
 * what `answer` returns (`get_login_info` names the account when `answer` gives nothing).
 */
export function dialReverse(
  url: string,
  selfId: string,
  answer: (request: ActionRequest) => unknown = () => undefined,
): WebSocket {
  const socket = new WebSocket(url, { headers: { "X-Self-ID": selfId, "X-Client-Role": "Universal" } });
  socket.on("message", (data) => {
    const request = JSON.parse(String(data)) as ActionRequest;
    const login = request.action === "get_login_info" ? { user_id: Number(selfId), nickname: "紬" } : {};
    const payload = answer(request) ?? login;
    socket.send(JSON.stringify({ status: "ok", retcode: 0, data: payload, echo: request.echo }));
  });
  return socket;
}
