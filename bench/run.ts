/** `npm run bench`: every benchmark, printed as one JSON document. */
import { cpus } from "node:os";
import { benchIngest } from "./ingest.ts";
import { benchTurns } from "./turns.ts";

const only = process.argv[2];
const results: Record<string, unknown> = { machine: { node: process.version, cpus: cpus().length } };
if (!only || only === "ingest") results.ingest = await benchIngest();
if (!only || only === "turns") results.turns = await benchTurns();
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exit(0);
