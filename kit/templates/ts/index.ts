import { Command, type CommandContext, Plugin, Tool } from "tsumugi/sdk";

export default class MyPlugin extends Plugin {
  /** A chat command: answered without the model. */
  @Command("hello", { description: "打个招呼", prefix: ["/hello"], usage: "[名字]" })
  hello(context: CommandContext): string {
    return `你好，${context.rest || "世界"}`;
  }

  /** A tool the model may call; what it returns goes back to the model. */
  @Tool("add", {
    description: "把两个数相加。需要精确算加法时使用。",
    parameters: [
      { name: "a", type: "number", description: "第一个数", required: true },
      { name: "b", type: "number", description: "第二个数", required: true },
    ],
  })
  add(args: { a: number; b: number }) {
    return { sum: args.a + args.b };
  }
}
