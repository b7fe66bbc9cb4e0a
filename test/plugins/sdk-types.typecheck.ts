/**
 * Type-level test of the SDK, checked by `tsc` (npm test's typecheck), never run: the
 * handlers below that fit compile, and every `@ts-expect-error` line marks a handler the
 * decorators must refuse. A decorator that stops refusing one leaves its `@ts-expect-error`
 * unused, which is itself a compile error.
 */
import {
  Command,
  type CommandContext,
  Enricher,
  type EnricherContext,
  Hook,
  type HookInput,
  type HookInputOf,
  type HookResult,
  Plugin,
  type PluginMemory,
  ReplyExtension,
  type ReplyExtensionContext,
  type ReplyExtensionPayload,
  type ReplyExtensionResult,
  type SpokenAudio,
  Tool,
  type ToolContext,
} from "tsumugi/sdk";

interface WeatherConfig {
  apiKey: string;
}

export class HandlersThatFit extends Plugin<WeatherConfig> {
  @Tool("weather", { description: "天气", parameters: { city: { type: "string" } } })
  async weather(args: { city: string }, context: ToolContext<WeatherConfig>) {
    return { city: args.city, key: context.config.apiKey, call: context.call_id };
  }

  @Tool("ping", { description: "无参数" })
  ping() {
    return undefined;
  }

  @Tool("picture_size", { description: "看图" })
  async pictureSize(_args: Record<string, never>, context: ToolContext) {
    const [picture] = context.pictures;
    if (!picture) return { size: 0 };
    const { mime, bytes, sha256 }: { mime: string; bytes: Buffer; sha256: string } = await picture.fetch();
    // @ts-expect-error — a description is read, never written by a plugin
    picture.description = "改写";
    return { kind: picture.kind, fileId: picture.fileId ?? null, mime, size: bytes.length, sha256 };
  }

  @Tool("note", { description: "记住", parameters: { fact: { type: "string" } } })
  async note(args: { fact: string }, context: ToolContext) {
    const memory: PluginMemory = await context.memory.remember(args.fact, { about: "group" });
    const recalled: PluginMemory[] = await context.memory.recall("成都", {
      about: context.event.user_id,
      limit: 3,
    });
    const forgotten: boolean = await context.memory.forget(memory.id);
    // @ts-expect-error — a memory's id is a number
    await context.memory.forget("12");
    return {
      about: memory.about,
      user: memory.user_id ?? memory.group_id,
      recalled: recalled.length,
      forgotten,
    };
  }

  @Tool("say", { description: "说出来", parameters: { line: { type: "string" } } })
  async say(args: { line: string }, context: ToolContext) {
    if (!context.speech.available) return { spoken: false };
    const spoken: SpokenAudio = await context.speech.speak(args.line);
    // @ts-expect-error — whether a tts model is set is the host's to say
    context.speech.available = true;
    const format: "wav" | "mp3" | "silk" = spoken.format;
    return { bytes: spoken.audio.length, format, seconds: spoken.seconds ?? null, voice: spoken.voice };
  }

  @Command("forecast", { usage: "<city>" })
  forecast(context: CommandContext<WeatherConfig>) {
    return context.args[0] ? `${context.args[0]}: 晴` : undefined;
  }

  @Hook("guard", { event: "PreToolUse", matcher: "delete_*" })
  guard(input: HookInputOf<"PreToolUse">): HookResult {
    return { decision: "deny", message: `不许 ${input.tool_name} ${JSON.stringify(input.tool_input)}` };
  }

  @Hook("audit", { event: "PostToolUse" })
  async audit(input: HookInput): Promise<void> {
    // The union narrows on `event`: only PostToolUse has `tool_output`.
    if (input.event === "PostToolUse") console.log(input.tool_output);
  }

  @Hook("gate", { event: "UserPromptSubmit" })
  gate(input: { prompt: string }): HookResult | undefined {
    return input.prompt.includes("禁") ? { decision: "deny" } : undefined;
  }

  @Enricher("season")
  season(context: EnricherContext<WeatherConfig>) {
    return `reply ${context.reply_id}`;
  }

  @ReplyExtension("voice", { parameters: { attach_voice: { type: "boolean" } } })
  async voice(
    payload: ReplyExtensionPayload<{ attach_voice: boolean }>,
    context: ReplyExtensionContext<WeatherConfig>,
  ): Promise<ReplyExtensionResult> {
    if (!payload.parameters.attach_voice || context.signal.aborted) return {};
    return payload.phase === "prepare" ? { extra_prompt: "口语化" } : { messages: payload.messages };
  }
}

export class HandlersThatDoNot extends Plugin {
  // @ts-expect-error: a tool's arguments are an object, never a bare string
  @Tool("bare", { description: "参数不是对象" })
  bare(city: string) {
    return { city };
  }

  // @ts-expect-error: a tool is not handed a command's context
  @Tool("confused", { description: "拿错上下文" })
  confused(_args: { city: string }, context: CommandContext) {
    return context.rest;
  }

  // @ts-expect-error: a command answers text or segments, not a number
  @Command("count")
  count() {
    return 42;
  }

  // @ts-expect-error: "maybe" is not a hook decision
  @Hook("unsure", { event: "PreToolUse" })
  unsure(): { decision: "maybe" } {
    return { decision: "maybe" };
  }

  // @ts-expect-error: a PreToolUse hook is not told a prompt
  @Hook("wrong_event", { event: "PreToolUse" })
  wrongEvent(input: HookInputOf<"UserPromptSubmit">) {
    return input.prompt ? undefined : undefined;
  }

  // @ts-expect-error: an enricher answers text
  @Enricher("numbers")
  numbers() {
    return [1, 2, 3];
  }

  // @ts-expect-error: a reply extension answers { extra_prompt } or { messages }, not text
  @ReplyExtension("loud", { parameters: {} })
  loud() {
    return "大声点";
  }
}

export function narrowsOnEvent(input: HookInput): string {
  switch (input.event) {
    case "PreToolUse":
      return input.tool_name;
    case "PostToolUseFailure":
      return input.error;
    case "AgentStop":
      return `${input.status}: ${input.reason}`;
    case "PreReplyGenerate":
      return input.extra_prompt;
    default:
      // @ts-expect-error: only the tool events carry a tool name
      return input.tool_name;
  }
}
