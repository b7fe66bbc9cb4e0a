/** `npm run bench`: every benchmark, printed as one JSON document. */
import { benchIngest } from "./ingest.ts";

const results: Record<string, unknown> = {
  machine: { node: process.version, cpus: (await import("node:os")).cpus().length },
  ingest: await benchIngest(),
};
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exit(0);
