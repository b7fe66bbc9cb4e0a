import { CONSOLE_PLATFORM } from "../adapters/console/console-adapter.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { comesFrom } from "../message/message-source.ts";
import { type AccessRule, parseAccessRule } from "./access-rule.ts";
import type { AccessSettings } from "./config.ts";

/**
 * Why the bot may not answer this message, or undefined when it may: `access.privateChats`,
 * `access.deny: <rule>` for the first deny rule that matches, or `access.allow` when an allow
 * list exists and nothing on it matches. The console playground is the operator's own and is
 * always answered.
 */
export function accessDenial(message: ChatMessage, settings: AccessSettings): string | undefined {
  if (message.platform === CONSOLE_PLATFORM) return undefined;
  if (message.chatType === "private" && !settings.privateChats) return "access.privateChats";
  const denied = settings.deny.find((rule) => matches(rule, message));
  if (denied !== undefined) return `access.deny: ${denied}`;
  if (settings.allow.length > 0 && !settings.allow.some((rule) => matches(rule, message))) {
    return "access.allow";
  }
  return undefined;
}

function matches(text: string, message: ChatMessage): boolean {
  const rule = parseAccessRule(text);
  return rule !== undefined && ruleMatches(rule, message);
}

function ruleMatches(rule: AccessRule, message: ChatMessage): boolean {
  if (!comesFrom(rule.source, message)) return false;
  const target = rule.target;
  if (!target) return true;
  if (target.kind === "user") return target.id === message.userId;
  return message.chatType === "group" && target.id === message.groupId;
}
