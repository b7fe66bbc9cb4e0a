import { type Static, Type } from "@sinclair/typebox";
import { formattedString, group, milliseconds, stringEnum, taggedUnion } from "../../schema/fields.ts";

/** The `adapters` config key: one entry per OneBot v11 connection. */

const adapterCommon = {
  type: stringEnum(["onebot"], { default: "onebot", description: "Protocol: OneBot v11." }),
  id: formattedString("identifier", {
    default: "qq",
    description: "Adapter id, unique among adapters; shown in /healthz and logs.",
  }),
  accessToken: Type.String({
    default: "",
    writeOnly: true,
    description:
      "OneBot access token (Authorization: Bearer …); empty means none. Required for reverse-ws when server.host is not loopback.",
  }),
  actionTimeoutMs: milliseconds("How long to wait for the answer to an API call", 30_000),
};

const reverseWsAdapterSchema = Type.Object(
  {
    ...adapterCommon,
    mode: Type.Literal("reverse-ws"),
    path: formattedString("url-path", {
      default: "/onebot/v11/ws",
      description: "Path on server.port where the implementation connects.",
    }),
    url: Type.Optional(
      Type.String({ description: "Not used in reverse-ws mode (kept so switching mode is one edit)." }),
    ),
  },
  { additionalProperties: false },
);

const forwardWsAdapterSchema = Type.Object(
  {
    ...adapterCommon,
    mode: Type.Literal("forward-ws"),
    url: formattedString("ws-url", { description: "WebSocket URL the implementation listens on." }),
    reconnect: group("Back-off between reconnect attempts, doubling from min to max.", {
      minDelayMs: milliseconds("First delay", 1_000),
      maxDelayMs: milliseconds("Longest delay", 30_000),
    }),
  },
  { additionalProperties: false },
);

const httpAdapterSchema = Type.Object(
  {
    ...adapterCommon,
    mode: Type.Literal("http"),
    url: formattedString("http-url", {
      description: "Base URL of the implementation's HTTP API, e.g. http://127.0.0.1:3000.",
    }),
    path: formattedString("url-path", {
      default: "/onebot/v11/http",
      description: "Path on server.port where the implementation POSTs events.",
    }),
    secret: Type.String({
      default: "",
      writeOnly: true,
      description:
        "HMAC secret checked against the X-Signature header of event POSTs; empty means none. Required when server.host is not loopback.",
    }),
  },
  { additionalProperties: false },
);

const adapterSchema = taggedUnion(
  "mode",
  ["reverse-ws", "forward-ws", "http"],
  [reverseWsAdapterSchema, forwardWsAdapterSchema, httpAdapterSchema],
  { description: "One OneBot v11 connection.", tagDefault: "reverse-ws" },
);

export const adaptersSchema = Type.Array(adapterSchema, {
  default: [{ type: "onebot", id: "qq", mode: "reverse-ws", path: "/onebot/v11/ws" }],
  description: "OneBot connections; ids must be unique.",
});

/** One `adapters[]` entry, with defaults already applied by the config loader. */
export type OneBotAdapterConfig = Static<typeof adapterSchema>;
export type OneBotMode = OneBotAdapterConfig["mode"];
export type ReconnectConfig = Static<typeof forwardWsAdapterSchema>["reconnect"];
