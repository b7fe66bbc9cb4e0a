import { Type } from "@sinclair/typebox";
import { taggedUnion } from "../schema/fields.ts";
import { type OneBotAdapterConfig, oneBotAdapterSchema } from "./onebot/config.ts";
import { type QqOfficialAdapterConfig, qqOfficialAdapterSchema } from "./qq-official/config.ts";

/** The `adapters` config key: one entry per platform connection, of either protocol. */

const adapterSchema = taggedUnion(
  "type",
  ["onebot", "qq-official"],
  [oneBotAdapterSchema, qqOfficialAdapterSchema],
  {
    description: "One platform connection: OneBot v11, or QQ's official bot API.",
    tagDefault: "onebot",
  },
);

export const adaptersSchema = Type.Array(adapterSchema, {
  default: [{ type: "onebot", id: "qq", mode: "reverse-ws", path: "/onebot/v11/ws" }],
  description: "Platform connections; ids must be unique.",
});

/** One `adapters[]` entry, with defaults already applied by the config loader. */
export type AdapterConfig = OneBotAdapterConfig | QqOfficialAdapterConfig;

type ForwardWsConfig = Extract<OneBotAdapterConfig, { mode: "forward-ws" }>;

/** A OneBot connection the bot dials out on (every other kind is served on server.port). */
export function isForwardWs(adapter: AdapterConfig): adapter is ForwardWsConfig {
  return adapter.type === "onebot" && adapter.mode === "forward-ws";
}
