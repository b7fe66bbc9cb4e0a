// A worker's first module when the bot runs from its TypeScript sources (tests, tsx): workers
// take no --import, so tsx is registered here before the worker module itself is imported.
// The bundle (dist/server/) runs its worker modules directly and never loads this file.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
