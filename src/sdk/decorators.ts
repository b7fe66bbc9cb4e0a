import { type Declaration, declare } from "./protocol.ts";
import type {
  CommandContext,
  CommandOptions,
  EnricherContext,
  EnricherOptions,
  HookContext,
  HookInput,
  HookOptions,
  ReplyExtensionContext,
  ReplyExtensionOptions,
  ReplyExtensionPayload,
  ToolContext,
  ToolOptions,
} from "./types.ts";

/*
 * Standard ECMAScript decorators (TypeScript 5+, no `experimentalDecorators`). Each records
 * its method as a component of the instance when it is constructed; the host reads them.
 * Handler types are loose here so a handler may narrow its parameters (its own args type,
 * `ToolContext<MyConfig>`); what each returns is checked by the host when it is called.
 */

type ToolHandler = (args: never, context: never) => unknown;
type CommandHandler = (context: never) => unknown;
type HookHandler = (input: never, context: never) => unknown;
type EnricherHandler = (context: never) => unknown;
type ReplyExtensionHandler = (payload: never, context: never) => unknown;

function recorder<Handler>(declaration: (method: Handler) => Declaration) {
  return (method: Handler, context: ClassMethodDecoratorContext) => {
    if (context.static || context.private) {
      throw new Error(`@${declaration(method).kind} goes on a public instance method`);
    }
    context.addInitializer(function (this: unknown) {
      declare(this as object, declaration(method));
    });
  };
}

/**
 * A tool the planner can call: `handler(args, ctx: ToolContext)`. Return an object to have
 * the model see it and answer; return nothing when the tool already acted (sent something)
 * and the turn is done.
 */
export function Tool(name: string, options: ToolOptions) {
  return recorder<ToolHandler>((method) => ({ kind: "tool", name, options, method }));
}

/** A chat command answered without the model: `handler(ctx: CommandContext)` returns the answer. */
export function Command(name: string, options: CommandOptions = {}) {
  return recorder<CommandHandler>((method) => ({ kind: "command", name, options, method }));
}

/** A lifecycle hook: `handler(input: HookInput, ctx: HookContext)` returns a decision or nothing (allow). */
export function Hook(name: string, options: HookOptions) {
  return recorder<HookHandler>((method) => ({ kind: "hook", name, options, method }));
}

/** Text for the planner's system prompt of each turn: `handler(ctx: EnricherContext)`. */
export function Enricher(name: string, options: EnricherOptions = {}) {
  return recorder<EnricherHandler>((method) => ({ kind: "enricher", name, options, method }));
}

/**
 * A reply extension (seeds 000/001): `handler(payload: ReplyExtensionPayload, ctx:
 * ReplyExtensionContext)` runs in `prepare` (return `{}` or `{ extra_prompt }`) and in
 * `before_send` (return `{}` or `{ messages }`) of every reply whose planner selected it.
 */
export function ReplyExtension(name: string, options: ReplyExtensionOptions) {
  return recorder<ReplyExtensionHandler>((method) => ({ kind: "reply_extension", name, options, method }));
}

export type {
  CommandContext,
  EnricherContext,
  HookContext,
  HookInput,
  ReplyExtensionContext,
  ReplyExtensionPayload,
  ToolContext,
};
