// A stdio plugin: one JSON request per line on stdin, one answer per line on stdout (logs go to
// stderr). Any language that reads and writes lines can do the same; see docs/stdio-plugins.md.
import { createInterface } from "node:readline";

const answer = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

const handlers = {
  // The answer to activate is what the plugin offers.
  activate: () => ({
    commands: [{ name: "hello", description: "打个招呼", prefix: ["/hello"], usage: "[名字]" }],
    tools: [
      {
        name: "add",
        description: "把两个数相加。需要精确算加法时使用。",
        parameters: [
          { name: "a", type: "number", description: "第一个数", required: true },
          { name: "b", type: "number", description: "第二个数", required: true },
        ],
      },
    ],
  }),
  command: ({ rest }) => ({ result: `你好，${rest || "世界"}` }),
  execute_tool: ({ input }) => {
    const { a, b } = JSON.parse(input);
    return { result: JSON.stringify({ sum: a + b }) };
  },
};

createInterface({ input: process.stdin }).on("line", (line) => {
  const { method, params } = JSON.parse(line);
  const handler = handlers[method];
  answer(handler ? handler(params ?? {}) : { result: "ok" });
});
