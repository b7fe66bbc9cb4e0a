import { type Declaration, declare } from "./sdk-symbols.ts";
import type {
  CommandContext,
  CommandOptions,
  EnricherContext,
  EnricherOptions,
  HookContext,
  HookEventName,
  HookInput,
  HookInputOf,
  HookOptions,
  HookResult,
  OutgoingMessage,
  ReplyExtensionContext,
  ReplyExtensionOptions,
  ReplyExtensionPayload,
  ReplyExtensionResult,
  ToolContext,
  ToolOptions,
} from "./types.ts";

/*
 * Standard ECMAScript decorators (TypeScript 5+, no `experimentalDecorators`). Each records
 * its method as a component of the instance when it is constructed; the host reads them.
 * Each decorator states the handler it fits, so a method with the wrong parameters or return
 * type does not compile. A handler may still narrow what it is given (config and extension
 * parameters are `never` in these types for that): its own args type
 * (`args: { city: string }`), its config (`ToolContext<MyConfig>`), one event's hook input.
 * Write a hook handler's return type (`: HookResult`): without it a returned
 * `{ decision: "deny" }` widens to `{ decision: string }` and no longer fits.
 */

type Awaitable<T> = T | Promise<T>;
/** What a handler may answer when it has nothing to say. */
// biome-ignore lint/suspicious/noConfusingVoidType: a method without `return` is typed void
type Nothing = undefined | null | void;
type Context<This> = ClassMethodDecoratorContext<This>;

/** Records the method as a component of each instance when it is constructed. */
function record<This extends object>(context: Context<This>, declaration: Declaration): void {
  if (context.static || context.private) {
    throw new Error(`@${declaration.kind} goes on a public instance method`);
  }
  context.addInitializer(function () {
    declare(this, declaration);
  });
}

/**
 * A tool the planner can call: `handler(args, ctx: ToolContext)`. Return an object to have
 * the model see it and answer; return nothing when the tool already acted (sent something)
 * and the turn is done.
 */
export function Tool(name: string, options: ToolOptions) {
  return <This extends object, Args extends object>(
    method: (args: Args, context: ToolContext<never>) => unknown,
    context: Context<This>,
  ): void => record(context, { kind: "tool", name, options, method });
}

/** A chat command answered without the model: `handler(ctx: CommandContext)` returns the answer. */
export function Command(name: string, options: CommandOptions = {}) {
  return <This extends object>(
    method: (context: CommandContext<never>) => Awaitable<OutgoingMessage | Nothing>,
    context: Context<This>,
  ): void => record(context, { kind: "command", name, options, method });
}

/**
 * A lifecycle hook: `handler(input, ctx: HookContext)`, where `input` has the declared
 * event's shape (`HookInputOf<"PreToolUse">`); returns a decision or nothing (allow).
 */
export function Hook<Event extends HookEventName>(name: string, options: HookOptions<Event>) {
  return <This extends object>(
    method: (input: HookInputOf<Event>, context: HookContext<never>) => Awaitable<HookResult | Nothing>,
    context: Context<This>,
  ): void => record(context, { kind: "hook", name, options, method });
}

/** Text for the planner's request of each turn, after the chat: `handler(ctx: EnricherContext)`. */
export function Enricher(name: string, options: EnricherOptions = {}) {
  return <This extends object>(
    method: (context: EnricherContext<never>) => Awaitable<string | Nothing>,
    context: Context<This>,
  ): void => record(context, { kind: "enricher", name, options, method });
}

/**
 * A reply extension (prepare and before_send): `handler(payload: ReplyExtensionPayload, ctx:
 * ReplyExtensionContext)` runs in `prepare` (return `{}` or `{ extra_prompt }`) and in
 * `before_send` (return `{}` or `{ messages }`) of every reply whose planner selected it.
 */
export function ReplyExtension(name: string, options: ReplyExtensionOptions) {
  return <This extends object>(
    method: (
      payload: ReplyExtensionPayload<never>,
      context: ReplyExtensionContext<never>,
    ) => Awaitable<ReplyExtensionResult>,
    context: Context<This>,
  ): void => record(context, { kind: "reply_extension", name, options, method });
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
