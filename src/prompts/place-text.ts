import type { PromptTemplates } from "./templates.ts";

export interface PromptChat {
  /** `onebot` (QQ), `console`, `stdio`, …: named in the prompt only for QQ. */
  platform: string;
  isGroup: boolean;
  /** Group or private peer id. */
  peerId: string;
}

/** Where the chat happens, as the prompt names it: `QQ 群 123`, `私聊`, … */
export function placeText(prompts: PromptTemplates, chat: PromptChat): string {
  if (!chat.isGroup) return prompts.render("place_private");
  const template = chat.platform === "onebot" ? "place_qq_group" : "place_group";
  return prompts.render(template, { group_id: chat.peerId });
}
