import { type Static, Type } from "@sinclair/typebox";
import { ajvOnFirstUse, checkOnFirstUse } from "../../schema/compile-on-first-use.ts";

/**
 * What QQ's bot platform sends us, validated once where it arrives. Shapes follow the
 * platform's public documentation (event payloads, callback validation, access tokens) and
 * its Python SDK botpy; unknown fields are allowed, as the platform adds them freely.
 */

/** Every webhook POST: `op` 0 is an event (`t` names it), 13 the callback-address validation. */
const webhookPayload = Type.Object({
  op: Type.Integer(),
  id: Type.Optional(Type.String()),
  t: Type.Optional(Type.String()),
  d: Type.Unknown(),
});

const callbackValidation = Type.Object({
  plain_token: Type.String({ minLength: 1 }),
  event_ts: Type.String({ minLength: 1 }),
});

const attachment = Type.Object({
  content_type: Type.String(),
  url: Type.String(),
  filename: Type.Optional(Type.String()),
});

/** `GROUP_AT_MESSAGE_CREATE`, `GROUP_MESSAGE_CREATE` and `C2C_MESSAGE_CREATE`. */
const messageEvent = Type.Object({
  id: Type.String({ minLength: 1 }),
  content: Type.String({ default: "" }),
  timestamp: Type.Optional(Type.String()),
  group_openid: Type.Optional(Type.String({ minLength: 1 })),
  author: Type.Object({
    id: Type.Optional(Type.String()),
    member_openid: Type.Optional(Type.String({ minLength: 1 })),
    user_openid: Type.Optional(Type.String({ minLength: 1 })),
  }),
  attachments: Type.Array(attachment, { default: [], maxItems: 20 }),
});

/** The token endpoint's answer; `expires_in` is seconds, sent as a string. */
const accessTokenAnswer = Type.Object({
  access_token: Type.String({ minLength: 1 }),
  expires_in: Type.Union([Type.String({ pattern: "^[0-9]+$" }), Type.Integer({ minimum: 0 })]),
});

const uploadAnswer = Type.Object({ file_info: Type.String({ minLength: 1 }) });

export type WebhookPayload = Static<typeof webhookPayload>;
export type CallbackValidation = Static<typeof callbackValidation>;
export type MessageEvent = Static<typeof messageEvent>;
export type AccessTokenAnswer = Static<typeof accessTokenAnswer>;
export type UploadAnswer = Static<typeof uploadAnswer>;

const ajv = ajvOnFirstUse({ useDefaults: true, allErrors: false });

export const isWebhookPayload = checkOnFirstUse<WebhookPayload>(ajv, webhookPayload);
export const isCallbackValidation = checkOnFirstUse<CallbackValidation>(ajv, callbackValidation);
export const isMessageEvent = checkOnFirstUse<MessageEvent>(ajv, messageEvent);
export const isAccessTokenAnswer = checkOnFirstUse<AccessTokenAnswer>(ajv, accessTokenAnswer);
export const isUploadAnswer = checkOnFirstUse<UploadAnswer>(ajv, uploadAnswer);

/** The first problem ajv found, for one log line. */
export function validationProblem(check: {
  errors?: Array<{ instancePath: string; message?: string }> | null;
}): string {
  const first = check.errors?.[0];
  return first ? `${first.instancePath || "body"} ${first.message ?? "is invalid"}` : "is invalid";
}
