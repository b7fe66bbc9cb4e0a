import { nonEmptyString } from "../../message/onebot-values.ts";
import { isRecord } from "../../util/values.ts";

/** `failed`: the implementation answered with an error; `timeout`: no answer in time; `disconnected`: no usable connection. */
export type OneBotActionErrorKind = "failed" | "timeout" | "disconnected";

export interface OneBotActionErrorFields {
  kind: OneBotActionErrorKind;
  action: string;
  message: string;
  retcode?: number;
  wording?: string;
  /** True when the request certainly never left (no connection): sending again cannot duplicate it. */
  notSent?: boolean;
}

/** Why a OneBot action did not produce data. */
export class OneBotActionError extends Error {
  readonly kind: OneBotActionErrorKind;
  readonly action: string;
  readonly retcode: number | undefined;
  readonly wording: string | undefined;
  readonly notSent: boolean;
  /** The implementation answered that it failed (see `wasRefused`). */
  readonly refused: boolean;

  constructor(fields: OneBotActionErrorFields) {
    super(fields.message);
    this.name = "OneBotActionError";
    this.kind = fields.kind;
    this.action = fields.action;
    this.retcode = fields.retcode;
    this.wording = fields.wording;
    this.notSent = fields.notSent === true;
    this.refused = fields.kind === "failed";
  }
}

export function actionTimedOut(action: string, timeoutMs: number): OneBotActionError {
  return new OneBotActionError({
    kind: "timeout",
    action,
    message: `${action} got no answer within ${timeoutMs} ms`,
  });
}

/** `notSent`: the request never left, as opposed to a connection lost while awaiting the answer. */
export function actionDisconnected(action: string, why: string, notSent = false): OneBotActionError {
  return new OneBotActionError({
    kind: "disconnected",
    action,
    message: `${action} not completed: ${why}`,
    notSent,
  });
}

/**
 * Returns the answer's `data` (`null` when absent, as `async` answers have none) or throws a
 * `failed` error carrying the implementation's retcode, message and wording.
 * `httpStatus` is the retcode fallback for HTTP answers that are not OneBot responses.
 */
export function settleActionResponse(action: string, response: unknown, httpStatus?: number): unknown {
  const frame = isRecord(response) ? response : {};
  const retcode = typeof frame.retcode === "number" ? frame.retcode : httpStatus;
  const succeeded =
    frame.status === "ok" || frame.status === "async" || (frame.status === undefined && frame.retcode === 0);
  if (succeeded) return frame.data ?? null;
  // go-cqhttp says `msg`, NapCat and others say `message`; `wording` is the user-facing text.
  const platformMessage = nonEmptyString(frame.message) ?? nonEmptyString(frame.msg);
  const wording = nonEmptyString(frame.wording);
  const detail =
    platformMessage ?? wording ?? (httpStatus !== undefined ? `HTTP ${httpStatus}` : "no message");
  throw new OneBotActionError({
    kind: "failed",
    action,
    retcode,
    wording,
    message: `${action} failed (retcode ${retcode ?? "none"}): ${detail}`,
  });
}
