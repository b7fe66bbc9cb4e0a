import { Command, type CommandContext, Plugin } from "tsumugi/sdk";

/** The smallest command plugin: `ping 42` → `pong 42`, answered without the model. */
export default class PingPlugin extends Plugin {
  @Command("ping", {
    description: "回复 pong，原样带回后面的文字",
    prefix: ["ping", "/ping"],
    usage: "[文字]",
  })
  ping(context: CommandContext): string {
    return context.rest ? `pong ${context.rest}` : "pong";
  }
}
