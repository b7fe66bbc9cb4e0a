import { type Static, Type } from "@sinclair/typebox";
import { formattedString } from "../../schema/fields.ts";
import { actionTimeoutField, adapterIdField } from "../config-fields.ts";

/** One `adapters[]` entry of `type: qq-official`: a bot on QQ's official bot platform, over webhooks. */
export const qqOfficialAdapterSchema = Type.Object(
  {
    type: Type.Literal("qq-official", { description: "Protocol: QQ's official bot API (webhook events)." }),
    id: adapterIdField,
    appId: Type.String({
      pattern: "^[0-9]{1,32}$",
      description: "The bot's AppID from the QQ bot platform's developer settings.",
    }),
    secret: Type.String({
      default: "",
      writeOnly: true,
      description:
        "The bot's AppSecret: checks the signature of webhook events and buys access tokens. Required; read it from an environment variable or a systemd credential, never write it into the file.",
    }),
    path: formattedString("url-path", {
      default: "/qqbot/webhook",
      description:
        "Path on server.port where the platform posts events (the callback address, behind HTTPS).",
    }),
    apiBase: formattedString("http-url", {
      default: "https://api.sgroup.qq.com",
      description: "OpenAPI base URL (https://sandbox.api.sgroup.qq.com for the sandbox).",
    }),
    tokenUrl: formattedString("http-url", {
      default: "https://bots.qq.com/app/getAppAccessToken",
      description: "Where access tokens are bought with the AppID and AppSecret.",
    }),
    markdown: Type.Boolean({
      default: false,
      description:
        "Send text as markdown (msg_type 2); only for bots the platform has granted native markdown.",
    }),
    actionTimeoutMs: actionTimeoutField,
  },
  { additionalProperties: false },
);

export type QqOfficialAdapterConfig = Static<typeof qqOfficialAdapterSchema>;
