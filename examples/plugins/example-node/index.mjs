#!/usr/bin/env node
// A Tsumugi stdio channel plugin in Node.js (see docs/stdio-plugins.md): a small web chat.
// Messages typed on the page are pushed to the bot as `channel_inbound`; the bot's replies
// come back as `channel_send` requests and reach the page by long polling.
// stdout carries the protocol only (one JSON object per line); logs go to stderr.
import { createServer } from "node:http";
import { createInterface } from "node:readline";

const MAX_BODY_BYTES = 64 * 1024;
const MAX_KEPT_REPLIES = 1000;
const MAX_WAIT_MS = 30_000;
const LISTEN_ATTEMPTS = 10;

let config = {};
let server;
let address = "";
let lastSeq = 0;
/** The bot's replies, oldest first: { seq, chatId, text, segments }. */
const replies = [];
/** Long polls waiting for a reply: { chatId, wake }. */
const waiters = new Set();

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const log = (text) => process.stderr.write(`${text}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const handlers = {
  activate(params) {
    config = params.config ?? {};
    // Pushes follow the answer, so the channel is declared once the bot knows the plugin.
    setImmediate(() => void openChannel());
    return {
      channel_provider: {
        name: "webchat",
        config_schema: [{ name: "listen", type: "string", description: "host:port of the chat page" }],
      },
    };
  },
  execute_tool(params) {
    if (params.toolName !== "webchat_status") return { error: `unknown tool: ${params.toolName}` };
    const chats = new Set(replies.map((reply) => reply.chatId));
    return { result: JSON.stringify({ url: address, chats: chats.size, replies: replies.length }) };
  },
  channel_send(params) {
    const reply = {
      seq: ++lastSeq,
      chatId: String(params.chatId),
      text: params.text,
      segments: params.segments,
    };
    replies.push(reply);
    if (replies.length > MAX_KEPT_REPLIES) replies.shift();
    for (const waiter of waiters) if (waiter.chatId === reply.chatId) waiter.wake();
    return { result: "ok", message_id: String(reply.seq) };
  },
  config_changed(params) {
    config = params.config ?? {};
    void closeChannel().then(openChannel);
    return { result: "ok" };
  },
  deactivate() {
    void closeChannel();
    return { result: "ok" };
  },
};

async function openChannel() {
  const listen = String(config.listen ?? "").trim();
  if (!listen) return announce("set plugins.config.example-node.listen to open it");
  const colon = listen.lastIndexOf(":");
  const host = colon === -1 ? "127.0.0.1" : listen.slice(0, colon);
  const port = Number(colon === -1 ? listen : listen.slice(colon + 1));
  const opening = createServer((request, response) => void serve(request, response));
  // A reload starts the new process before the old one has let go of the port: try again a little.
  for (let attempt = 1; ; attempt++) {
    try {
      await new Promise((resolve, reject) => {
        opening.once("error", reject);
        opening.listen(port, host, resolve);
      });
      break;
    } catch (error) {
      if (error.code !== "EADDRINUSE" || attempt === LISTEN_ATTEMPTS) {
        log(`cannot listen on ${listen}: ${error.message}`);
        return announce(`cannot listen on ${listen}: ${error.message}`);
      }
      await sleep(500);
    }
  }
  server = opening;
  address = `http://${host}:${server.address().port}/`;
  log(`web chat at ${address}`);
  announce();
}

async function closeChannel() {
  const closing = server;
  server = undefined;
  address = "";
  for (const waiter of waiters) waiter.wake();
  if (closing) await new Promise((resolve) => closing.close(resolve));
}

/** Tells the bot what the channel offers now: console widgets, prompt parts, channel tools. */
function announce(problem) {
  send({
    method: "web_ui",
    params: {
      widgets: address
        ? [{ type: "link", label: "Web chat", url: address }]
        : [{ type: "text", text: `Web chat closed: ${problem}` }],
    },
  });
  send({
    method: "channel_prompt",
    params: {
      system_parts: address
        ? {
            "05_channel_webchat":
              "你在网页聊天窗口里和用户一对一聊天，对方看得到完整的文字，可以写得稍长一些。",
          }
        : {},
    },
  });
  send({
    method: "channel_tools",
    params: {
      tools: address
        ? [{ name: "webchat_status", description: "网页聊天窗口的地址和已回复的聊天数", parameters: [] }]
        : [],
    },
  });
}

async function serve(request, response) {
  const url = new URL(request.url, "http://localhost");
  const answer = (status, body, type = "application/json") => {
    response.writeHead(status, { "content-type": `${type}; charset=utf-8` });
    response.end(type === "application/json" ? JSON.stringify(body) : body);
  };
  try {
    if (request.method === "GET" && url.pathname === "/") return answer(200, PAGE, "text/html");
    if (request.method === "POST" && url.pathname === "/messages") {
      const body = JSON.parse(await readBody(request));
      if (typeof body.text !== "string" || !body.text.trim())
        return answer(400, { error: "text is required" });
      const chatId = String(body.chatId ?? "default");
      send({
        method: "channel_inbound",
        params: {
          message: body.text,
          chatId,
          senderId: String(body.senderId ?? chatId),
          ...(typeof body.senderName === "string" ? { senderName: body.senderName } : {}),
        },
      });
      return answer(202, { accepted: true, after: lastSeq });
    }
    if (request.method === "GET" && url.pathname === "/messages") {
      const chatId = url.searchParams.get("chatId") ?? "default";
      const after = Number(url.searchParams.get("after") ?? 0);
      const wait = Math.min(Number(url.searchParams.get("wait") ?? 0), MAX_WAIT_MS);
      const found = () => replies.filter((reply) => reply.chatId === chatId && reply.seq > after);
      if (found().length === 0 && wait > 0) await waitForReply(chatId, wait);
      return answer(200, { messages: found() });
    }
    return answer(404, { error: "not found" });
  } catch (error) {
    return answer(400, { error: error.message });
  }
}

function waitForReply(chatId, ms) {
  return new Promise((resolve) => {
    const waiter = {
      chatId,
      wake: () => {
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve();
      },
    };
    const timer = setTimeout(waiter.wake, ms);
    waiters.add(waiter);
  });
}

async function readBody(request) {
  let size = 0;
  const chunks = [];
  for await (const chunk of request) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error("the message is too long");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>Web chat</title>
<style>body{font:16px sans-serif;max-width:40em;margin:2em auto}#log p{margin:.3em 0}.bot{color:#036}</style>
<div id="log"></div><form><input name="text" autocomplete="off" style="width:80%"> <button>Send</button></form>
<script>
const chatId = localStorage.chatId ??= "web-" + Math.random().toString(36).slice(2, 10);
const log = document.getElementById("log");
const show = (who, text) => { const p = document.createElement("p"); p.className = who; p.textContent = text; log.append(p); };
let after = 0;
document.querySelector("form").onsubmit = async (event) => {
  event.preventDefault();
  const input = event.target.text;
  if (!input.value.trim()) return;
  show("me", input.value);
  await fetch("messages", { method: "POST", body: JSON.stringify({ chatId, text: input.value }) });
  input.value = "";
};
(async function poll() {
  for (;;) {
    try {
      const { messages } = await (await fetch("messages?chatId=" + chatId + "&after=" + after + "&wait=25000")).json();
      for (const m of messages) { show("bot", m.text); after = m.seq; }
    } catch { await new Promise((r) => setTimeout(r, 2000)); }
  }
})();
</script>`;

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let answer;
  try {
    const request = JSON.parse(line);
    const handler = handlers[request.method];
    answer = handler ? handler(request.params ?? {}) : { error: `unknown method: ${request.method}` };
  } catch (error) {
    answer = { error: error.message };
  }
  send(answer);
});
// stdin closes after deactivate (or when the bot is gone): nothing more to do.
lines.on("close", () => void closeChannel().then(() => process.exit(0)));
