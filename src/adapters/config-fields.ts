import { formattedString, milliseconds } from "../schema/fields.ts";

/** Keys every kind of `adapters[]` entry has, described once so the config table lists them once. */

export const adapterIdField = formattedString("identifier", {
  default: "qq",
  description: "Adapter id, unique among adapters; shown in /healthz and logs.",
});

export const actionTimeoutField = milliseconds("How long to wait for the answer to an API call", 30_000);
