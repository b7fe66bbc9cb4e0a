/**
 * The floor of the command benchmark, in its own process: a bare `ws` server that answers
 * `ping N` with a send_group_msg action and does nothing else. Serves OneBot reverse WebSocket
 * on 127.0.0.1, prints `{"url": …}` once it accepts connections and stops when its stdin closes
 * (the same contract as koishi-command-server.mjs).
 */
import { WebSocketServer } from "ws";

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, path: "/onebot/v11/ws" });
await new Promise((resolve) => wss.once("listening", resolve));
let echo = 0;
wss.on("connection", (socket) => {
  socket.on("message", (data) => {
    const event = JSON.parse(String(data)) as {
      post_type?: string;
      group_id?: number;
      message?: { type: string; data: { text?: string } }[];
    };
    if (event.post_type !== "message") return;
    const text = event.message?.[0]?.data.text ?? "";
    if (!text.startsWith("ping ")) return;
    socket.send(
      JSON.stringify({
        action: "send_group_msg",
        params: {
          group_id: event.group_id,
          message: [{ type: "text", data: { text: `pong ${text.slice(5)}` } }],
        },
        echo: String(++echo),
      }),
    );
  });
});
const { port } = wss.address() as { port: number };
process.stdout.write(`${JSON.stringify({ url: `ws://127.0.0.1:${port}/onebot/v11/ws` })}\n`);
process.stdin.resume();
process.stdin.once("end", () => wss.close(() => process.exit(0)));
