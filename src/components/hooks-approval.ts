import { randomBytes } from "node:crypto";
import type { Disposer } from "./types.ts";

/** A tool call a PreToolUse hook answered "ask" for, waiting for an admin. */
export interface ApprovalRequest {
  /** Short, so an admin can type `/approve <id>`. */
  id: string;
  tool: string;
  input: Record<string, unknown>;
  sessionId: string;
  replyId?: string;
  /** The asking hook's message. */
  reason?: string;
  /** Full name of the asking hook. */
  hook?: string;
  requestedAt: number;
  expiresAt: number;
}

export type ApprovalAnswer = "approved" | "denied" | "expired";

export type ApprovalEvent =
  | { type: "requested"; request: ApprovalRequest }
  | { type: "answered"; request: ApprovalRequest; answer: ApprovalAnswer; by?: string };

/** No answer within this long counts as a denial. */
export const APPROVAL_TIMEOUT_MS = 60_000;

interface Waiting {
  request: ApprovalRequest;
  settle: (answer: ApprovalAnswer, by?: string) => void;
}

/**
 * Tool calls waiting for an admin's yes or no: from chat (`/approve <id>`, `/deny <id>`)
 * or from the console, which lists `pending()` and follows `subscribe`.
 */
export class ApprovalService {
  private readonly waiting = new Map<string, Waiting>();
  private readonly listeners = new Set<(event: ApprovalEvent) => void>();

  constructor(private readonly timeoutMs = APPROVAL_TIMEOUT_MS) {}

  /** Opens a request; `answer` settles on approve, deny or timeout. */
  request(details: Omit<ApprovalRequest, "id" | "requestedAt" | "expiresAt">): {
    request: ApprovalRequest;
    answer: Promise<ApprovalAnswer>;
  } {
    const now = Date.now();
    const request: ApprovalRequest = {
      ...details,
      id: this.newId(),
      requestedAt: now,
      expiresAt: now + this.timeoutMs,
    };
    const answer = new Promise<ApprovalAnswer>((resolve) => {
      const timer = setTimeout(() => settle("expired"), this.timeoutMs);
      const settle = (result: ApprovalAnswer, by?: string) => {
        if (!this.waiting.delete(request.id)) return;
        clearTimeout(timer);
        resolve(result);
        this.publish({ type: "answered", request, answer: result, ...(by ? { by } : {}) });
      };
      this.waiting.set(request.id, { request, settle });
    });
    this.publish({ type: "requested", request });
    return { request, answer };
  }

  /** Returns false when no request with this id is waiting. */
  approve(id: string, by?: string): boolean {
    return this.answer(id, "approved", by);
  }

  deny(id: string, by?: string): boolean {
    return this.answer(id, "denied", by);
  }

  pending(): ApprovalRequest[] {
    return [...this.waiting.values()].map((waiting) => waiting.request);
  }

  subscribe(listener: (event: ApprovalEvent) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private answer(id: string, answer: ApprovalAnswer, by?: string): boolean {
    const waiting = this.waiting.get(id.trim().toLowerCase());
    if (!waiting) return false;
    waiting.settle(answer, by);
    return true;
  }

  private newId(): string {
    for (;;) {
      const id = randomBytes(3).toString("hex");
      if (!this.waiting.has(id)) return id;
    }
  }

  private publish(event: ApprovalEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
