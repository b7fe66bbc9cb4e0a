import { hostCommand } from "../components/host-command.ts";
import type { CommandComponent } from "../components/types.ts";
import type { ZonedClock } from "../context/clock-text.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { MemorySettings } from "./config.ts";
import type { MemoryService } from "./memory-service.ts";
import type { MemoryEntry, MemorySubject } from "./types.ts";
import { groupSubjectOf, type MemoryPlace, placeOf, senderSubject, subjectNamed } from "./visibility.ts";

/** Most memories `/memory` lists in one message. */
const SHOWN = 20;

/** One use of `/forget` or `/memory`: who asked where, and what they named after the command. */
interface MemoryCommandCall {
  command: string;
  /** A user id, `group` or a memory `#id`; undefined for the sender themselves. */
  target: string | undefined;
  message: ChatMessage;
  place: MemoryPlace;
  isAdmin: boolean;
}

export interface MemoryCommandDeps {
  memory: MemoryService;
  settings: () => MemorySettings;
  clock: () => ZonedClock;
  /** Forgets the group's learned expressions too (`/forget group`); resolves with how many. */
  forgetGroupExpressions: (sessionId: string) => Promise<number>;
}

/**
 * `/forget` (`/忘记`) and `/memory` (`/记忆`), host commands like `/summary`: anyone forgets or
 * sees what is remembered about themselves; an admin names a user id, `group` or a memory `#id`.
 * Their words come from `memory.forgetCommands` / `memory.showCommands` on every message.
 */
export function memoryCommands(deps: MemoryCommandDeps): CommandComponent[] {
  return [
    memoryCommand(
      () => deps.memory.enabled(),
      "forget",
      "忘记关于你的记忆",
      () => deps.settings().forgetCommands,
      "[用户id | #编号 | group]",
      (call) => forget(deps, call),
    ),
    memoryCommand(
      () => deps.memory.enabled(),
      "memory",
      "看看我记得关于你的事",
      () => deps.settings().showCommands,
      "[用户id | group]",
      (call) => show(deps, call),
    ),
  ];
}

/** With memory off, the command still matches, and says so. */
function memoryCommand(
  enabled: () => boolean,
  name: string,
  description: string,
  words: () => string[],
  usage: string,
  run: (call: MemoryCommandCall) => Promise<string>,
): CommandComponent {
  return hostCommand({
    name,
    description,
    words,
    usage,
    invoke: async (match, call) =>
      enabled()
        ? run({
            command: match.command,
            target: match.args[0],
            message: call.message,
            place: placeOf(call.message),
            isAdmin: call.isAdmin,
          })
        : "记忆功能没有开启。",
  });
}

async function forget(deps: MemoryCommandDeps, call: MemoryCommandCall): Promise<string> {
  const { memory } = deps;
  const { command, target, message, place, isAdmin } = call;
  if (target === undefined || target === message.userId) {
    const { length: count } = await memory.forgetSubject(senderSubject(message), place.sessionId, "command");
    return count > 0
      ? `好的，关于你的 ${count} 条记忆已经忘掉了，之前的聊天也不会再拿来学习。`
      : "我本来就不记得关于你的事；之前的聊天也不会再拿来学习。";
  }
  const id = /^#(\d+)$/.exec(target)?.[1];
  if (id !== undefined) {
    const entry = await memory.visibleEntry(Number(id), place);
    if (!entry || (!isAdmin && entry.subject !== senderSubject(message)))
      return `这里没有你能删除的记忆 #${id}。`;
    await memory.forgetEntry(entry, place.sessionId, "command");
    return `已忘记 #${id}：${entry.content}`;
  }
  if (!isAdmin) return "只有管理员可以忘记别人的记忆。";
  const subject = subjectNamed(place, target);
  if (subject === undefined) return `用法：${command} [用户id | #编号 | group]`;
  const { length: count } = await memory.forgetSubject(subject, place.sessionId, "command");
  if (subject !== groupSubjectOf(place)) return `已忘记关于 ${target} 的 ${count} 条记忆。`;
  const expressions = await deps.forgetGroupExpressions(place.sessionId);
  return expressions > 0
    ? `已忘记关于本群的 ${count} 条记忆和 ${expressions} 条群里的说法。`
    : `已忘记关于本群的 ${count} 条记忆。`;
}

async function show(deps: MemoryCommandDeps, call: MemoryCommandCall): Promise<string> {
  const { memory } = deps;
  const { command, target, message, place, isAdmin } = call;
  let subject: MemorySubject | undefined = senderSubject(message);
  if (target !== undefined && target !== message.userId) {
    if (!isAdmin) return "只有管理员可以查看别人的记忆。";
    subject = subjectNamed(place, target);
    if (subject === undefined) return `用法：${command} [用户id | group]`;
  }
  // Seen here only: the reply is read by everyone in the chat.
  const entries = await memory.aboutHere(subject, place, SHOWN + 1);
  const whom =
    subject === groupSubjectOf(place) ? "本群" : target && target !== message.userId ? target : "你";
  if (entries.length === 0) return `我还不记得关于${whom}的事。`;
  const clock = deps.clock();
  const lines = entries
    .slice(0, SHOWN)
    .map((entry: MemoryEntry) => `#${entry.id} ${entry.content}（${clock.date(entry.confirmedAt)}）`);
  const more = entries.length > SHOWN ? `\n……还有更多，可以在控制台的记忆页查看。` : "";
  return `我记得关于${whom}的事：\n${lines.join("\n")}${more}`;
}
