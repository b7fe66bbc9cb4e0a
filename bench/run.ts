/**
 * `npm run bench`: every benchmark, printed as one JSON document, then (on stderr, and as
 * `goals` in the document) each goal of issue 52 beside its figure.
 */
import { cpus } from "node:os";
import { type Goal, loadAverages } from "./child.ts";
import { benchCommands } from "./commands.ts";
import { benchIngest } from "./ingest.ts";
import { benchLlama } from "./llama.ts";
import { benchMcpTools } from "./mcp-tools.ts";
import { benchMemory } from "./memory.ts";
import { benchPictures } from "./pictures.ts";
import { benchPromptCache } from "./prompt-cache.ts";
import { benchPythonSdk } from "./python-sdk.ts";
import { benchQuote } from "./quote.ts";
import { benchReplyExtensions } from "./reply-extensions.ts";
import { benchScaleOut } from "./scale-out.ts";
import { benchStartup } from "./startup.ts";
import { benchStdio } from "./stdio.ts";
import { benchStreaming } from "./streaming.ts";
import { benchTurns } from "./turns.ts";

const only = process.argv[2];
const results: Record<string, unknown> = {
  machine: { node: process.version, cpus: cpus().length, loadAverageAtStart: loadAverages() },
};
if (!only || only === "startup") results.startup = await benchStartup();
if (!only || only === "ingest") results.ingest = await benchIngest();
if (!only || only === "turns") results.turns = await benchTurns();
if (!only || only === "quote") results.quote = await benchQuote();
if (!only || only === "pictures") results.pictures = await benchPictures();
if (!only || only === "prompt-cache") results.promptCache = await benchPromptCache();
if (!only || only === "commands") results.commands = await benchCommands();
if (!only || only === "reply-extensions") results.replyExtensions = await benchReplyExtensions();
if (!only || only === "streaming") results.streaming = await benchStreaming();
if (!only || only === "stdio") results.stdio = await benchStdio();
if (!only || only === "python-sdk") results.pythonSdk = await benchPythonSdk();
if (!only || only === "llama") results.llama = await benchLlama();
if (!only || only === "mcp-tools") results.mcpTools = await benchMcpTools();
if (!only || only === "memory") results.memory = await benchMemory();
if (!only || only === "scale-out") results.scaleOut = await benchScaleOut();
const goals = Object.values(results).flatMap((result) => (result as { goals?: Goal[] }).goals ?? []);
results.goals = goals;
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
if (goals.length > 0) {
  const width = Math.max(...goals.map((goal) => goal.goal.length));
  process.stderr.write(`\ngoal${" ".repeat(width - 4)}  target             figure    met  measured\n`);
  for (const goal of goals) {
    process.stderr.write(
      `${goal.goal.padEnd(width)}  ${goal.target.padEnd(17)}  ${String(goal.figure).padStart(8)}  ${goal.met ? "yes" : "NO "}  ${goal.measured}\n`,
    );
  }
}
process.exit(0);
