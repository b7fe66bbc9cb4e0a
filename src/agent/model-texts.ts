/** What the models read from the agent besides its prompts: tool results and notes, in one place. */
export const modelTexts = {
  malformedJson: "工具参数不是合法的 JSON，请重新调用。",
  alreadyReplied: "本轮已经回复过了，未执行。",
  /** A plugin tool that returned nothing has acted itself. */
  toolActed: "已完成。",
  toolFailed: (tool: string, error: string) => `工具 ${tool} 出错：${error}`,
  invalidCall: (tool: string, problem: string) => `调用 ${tool} 出错：${problem}`,
  waitArrived: (lines: string[]) => `新消息：\n${lines.join("\n")}`,
  waitEmpty: "等待结束，没有新消息。",
  hookDenied: (message: string | undefined) => `调用被拒绝：${message || "插件的规则不允许这次调用"}`,
  approvalDenied: "调用被拒绝：管理员没有批准。",
  approvalExpired: "调用被拒绝：管理员没有及时批准。",
  /** Who asked for a summary, when the request names nobody. */
  someone: "有人",
} as const;

/** What the chat is told. */
export const chatTexts = {
  nothingToSummarise: "最近没有可以总结的聊天记录。",
} as const;
