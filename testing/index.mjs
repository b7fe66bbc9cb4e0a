// tsumugi/testing: a real bot, the OneBot stand-in and the scripted model for plugin tests
// (test/support/plugin-scene.ts). Its TypeScript is loaded through tsx, so plain `node --test` works.
import { register } from "tsx/esm/api";

register();
const testing = await import("../test/support/plugin-scene.ts");

export const { startScene, OneBotStandIn, ScriptedLlmServer } = testing;
