import type { ForwardNode } from "./quote-types.ts";

export interface BudgetedText {
  text: string;
  nodes: ForwardNode[];
  /** Something was cut or dropped. */
  truncated: boolean;
}

/**
 * One character budget for the whole block: the quoted text takes its share first (cut to
 * the budget when longer), then the nodes in order; the node that does not fit is cut and
 * ends the budget, and every node after it is dropped.
 */
export function applyCharBudget(text: string, nodes: ForwardNode[], maxChars: number): BudgetedText {
  let remaining = Math.max(0, maxChars);
  let truncated = false;
  let keptText = text;
  if (keptText.length > remaining) {
    keptText = cut(keptText, remaining);
    truncated = true;
  }
  remaining -= keptText.length;
  const kept: ForwardNode[] = [];
  for (const node of nodes) {
    if (remaining <= 0) break;
    if (node.text.length > remaining) {
      kept.push({ ...node, text: cut(node.text, remaining) });
      remaining = 0;
      truncated = true;
    } else {
      kept.push(node);
      remaining -= node.text.length;
    }
  }
  if (kept.length < nodes.length) truncated = true;
  return { text: keptText, nodes: kept, truncated };
}

/** The first `length` UTF-16 units, never ending on half of a surrogate pair (an emoji). */
function cut(text: string, length: number): string {
  const head = text.slice(0, length);
  const last = head.charCodeAt(head.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? head.slice(0, -1) : head;
}
