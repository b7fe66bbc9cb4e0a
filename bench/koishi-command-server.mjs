/**
 * The Koishi 4.18 side of the command benchmark, as its users set it up for OneBot: the server
 * plugin, the OneBot adapter in ws-reverse mode and a `ping` command. Plain JavaScript run by
 * node without tsx: under tsx's require hook, a Koishi dependency (generator-function) resolves
 * to its ESM namespace instead of its function and Koishi fails to start. Same contract as
 * bare-command-server.ts: prints `{"url": …}` once listening, stops when stdin closes.
 */
import { createRequire } from "node:module";
import { createServer } from "node:net";

const require = createRequire(import.meta.url);
const { Context, Logger } = require("koishi");
const http = require("@koishijs/plugin-http").default;
const server = require("@koishijs/plugin-server").default;
const onebot = require("koishi-plugin-adapter-onebot").default;

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// Its console logger writes to stdout, which carries this script's answer, so it logs nowhere
// (at its default level it writes no line per command anyway).
Logger.targets.splice(0);
const port = await freePort();
const ctx = new Context();
// `ctx.http` for the adapter's bots, `ctx.server` for its ws-reverse endpoint: what Koishi's
// default app loads.
ctx.plugin(http);
ctx.plugin(server, { host: "127.0.0.1", port });
ctx.plugin(onebot, { protocol: "ws-reverse", selfId: "10000", path: "/onebot" });
ctx.command("ping <text:text>").action((_argv, text) => (text ? `pong ${text}` : "pong"));
await ctx.start();
process.stdout.write(`${JSON.stringify({ url: `ws://127.0.0.1:${port}/onebot` })}\n`);
process.stdin.resume();
// Exiting closes the socket; Koishi 4.18's server plugin throws while it is disposed.
process.stdin.once("end", () => process.exit(0));
