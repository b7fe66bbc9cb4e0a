export { OneBotActionError, type OneBotActionErrorKind } from "./action-error.ts";
export type { OneBotAdapterConfig, OneBotMode } from "./config.ts";
export { OneBotAdapter, type OneBotAdapterOptions } from "./onebot-adapter.ts";
export { toWireId } from "./wire-values.ts";
