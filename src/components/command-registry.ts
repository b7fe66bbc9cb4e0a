import { ComponentRegistry } from "./registry.ts";
import type { CommandComponent } from "./types.ts";

/** Owner name of the host's own commands in /help and full names (`tsumugi.help`, `tsumugi.summary`). */
export const HOST_COMMANDS_OWNER = "tsumugi";

/** Chat commands of every plugin; plugins/command-dispatcher.ts matches messages against them. */
export class CommandRegistry extends ComponentRegistry<CommandComponent> {}
