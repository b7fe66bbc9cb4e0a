import { type MessageSource, parseMessageSource } from "../message/message-source.ts";

/**
 * The format of an `access.allow` / `access.deny` entry: where a message comes from, as
 * narrowly as wanted, `<source>` or `[<source>:](group|user):<id>` (source:
 * message/message-source.ts). Like `bot.admins` entries, a bare group or user means QQ (OneBot).
 *
 * - `onebot`, `stdio` — a whole platform; `onebot.<adapterId>` — one OneBot adapter;
 *   `stdio.<pluginId>` — one stdio channel plugin;
 * - `group:20000` = `onebot:group:20000` — a QQ group on any OneBot adapter;
 *   `onebot.<adapterId>:group:20000` — on that adapter only; `stdio:group:<chatId>` — a group
 *   chat of any stdio channel, `stdio.<pluginId>:group:<chatId>` — of that plugin only;
 * - `user:10001` = `onebot:user:10001` — a user, in groups and private chats alike; the same
 *   prefixes narrow it.
 */
export interface AccessRule {
  source: MessageSource;
  /** Only this group or user; the whole source when absent. */
  target?: { kind: "group" | "user"; id: string };
}

const TARGET = /^(group|user):(\S+)$/;

export const ACCESS_RULE_PROBLEM =
  'must be "group:<id>", "user:<id>", optionally after "onebot:", "onebot.<adapterId>:", "stdio:" or "stdio.<pluginId>:", or one of those sources alone ("onebot", "onebot.<adapterId>", "stdio", "stdio.<pluginId>")';

/** The rule's parts, or undefined when it is not in one of the forms above. */
export function parseAccessRule(text: string): AccessRule | undefined {
  const whole = parseMessageSource(text);
  if (whole) return { source: whole };
  // No source is named "group" or "user", so a rule starting with one has no source.
  const bare = TARGET.exec(text);
  if (bare) return targeted({ platform: "onebot" }, bare);
  const colon = text.indexOf(":");
  const source = colon < 0 ? undefined : parseMessageSource(text.slice(0, colon));
  const target = source && TARGET.exec(text.slice(colon + 1));
  return source && target ? targeted(source, target) : undefined;
}

function targeted(source: MessageSource, target: RegExpExecArray): AccessRule {
  return { source, target: { kind: target[1] as "group" | "user", id: target[2]! } };
}
