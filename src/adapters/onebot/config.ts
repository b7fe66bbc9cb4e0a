import { type Static, Type } from "@sinclair/typebox";
import { formattedString, group, milliseconds, stringEnum, taggedUnion } from "../../schema/fields.ts";
import { actionTimeoutField, adapterIdField } from "../config-fields.ts";

/** `adapters[]` entries of `type: onebot`: one per OneBot v11 connection. */

const oneBotType = stringEnum(["onebot"], { default: "onebot", description: "Protocol: OneBot v11." });

const adapterCommon = {
  type: oneBotType,
  id: adapterIdField,
  accessToken: Type.String({
    default: "",
    writeOnly: true,
    description:
      "OneBot access token (Authorization: Bearer …); empty means none. Required for reverse-ws when server.host is not loopback.",
  }),
  actionTimeoutMs: actionTimeoutField,
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

export const oneBotAdapterSchema = taggedUnion(
  "mode",
  ["reverse-ws", "forward-ws", "http"],
  [reverseWsAdapterSchema, forwardWsAdapterSchema, httpAdapterSchema],
  { description: "One OneBot v11 connection.", tagDefault: "reverse-ws", outerTag: { type: oneBotType } },
);

/** One `type: onebot` entry of `adapters[]`, with defaults already applied by the config loader. */
export type OneBotAdapterConfig = Static<typeof oneBotAdapterSchema>;
export type OneBotMode = OneBotAdapterConfig["mode"];
export type ReconnectConfig = Static<typeof forwardWsAdapterSchema>["reconnect"];
