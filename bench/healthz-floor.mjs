/**
 * The floor of the start-up benchmark: a bare node process that answers /healthz with 200 on the
 * port of the config file it is given (`--config FILE`, as the bot), and nothing else. Plain
 * JavaScript, no dependency: what starting any Node server costs on this machine.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const file = process.argv[process.argv.indexOf("--config") + 1];
const port = Number(/port:\s*(\d+)/.exec(readFileSync(file, "utf8"))?.[1]);
createServer((_request, response) => response.end("ok")).listen(port, "127.0.0.1");
process.once("SIGTERM", () => process.exit(0));
