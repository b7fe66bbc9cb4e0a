/** `npm run bench`: every benchmark, printed as one JSON document. */
import { cpus } from "node:os";
import { benchCommands } from "./commands.ts";
import { benchIngest } from "./ingest.ts";
import { benchLlama } from "./llama.ts";
import { benchPromptCache } from "./prompt-cache.ts";
import { benchPythonSdk } from "./python-sdk.ts";
import { benchQuote } from "./quote.ts";
import { benchReplyExtensions } from "./reply-extensions.ts";
import { benchStartup } from "./startup.ts";
import { benchStdio } from "./stdio.ts";
import { benchStreaming } from "./streaming.ts";
import { benchTurns } from "./turns.ts";

const only = process.argv[2];
const results: Record<string, unknown> = { machine: { node: process.version, cpus: cpus().length } };
if (!only || only === "startup") results.startup = await benchStartup();
if (!only || only === "ingest") results.ingest = await benchIngest();
if (!only || only === "turns") results.turns = await benchTurns();
if (!only || only === "quote") results.quote = await benchQuote();
if (!only || only === "prompt-cache") results.promptCache = await benchPromptCache();
if (!only || only === "commands") results.commands = await benchCommands();
if (!only || only === "reply-extensions") results.replyExtensions = await benchReplyExtensions();
if (!only || only === "streaming") results.streaming = await benchStreaming();
if (!only || only === "stdio") results.stdio = await benchStdio();
if (!only || only === "python-sdk") results.pythonSdk = await benchPythonSdk();
if (!only || only === "llama") results.llama = await benchLlama();
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exit(0);
