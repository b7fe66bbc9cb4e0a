import type { Logger } from "../log/logger.ts";
import type { ChatMessage } from "../message/inbound.ts";
import type { PictureDescriptions } from "../message/picture-text.ts";
import type { Monitor } from "../monitor/monitor.ts";
import { type ClockText, clockText } from "./clock-text.ts";
import type { QuoteSettings } from "./config.ts";
import { formatQuoteContext } from "./quote-format.ts";
import { resolveQuote } from "./quote-resolver.ts";
import { quoteSourceOf } from "./quote-source.ts";
import type { QuoteFetcher } from "./quote-types.ts";

export interface QuoteContextSettings {
  quote: QuoteSettings;
  /** IANA zone for the block's times; empty for the process's local zone. */
  timeZone: string;
}

/** What the turn knows that the quote block reads with. */
export interface QuoteView {
  /** The turn's picture descriptions: the quote's and the forwards' pictures are described too. */
  pictures?: PictureDescriptions;
  /** Names of members mentioned without one. */
  nameOf?: (userId: string) => string | undefined;
}

export interface QuoteContextDeps {
  /** The calls to make for a message's platform account; undefined when it is not connected. */
  fetcherFor(message: ChatMessage): QuoteFetcher | undefined;
  settings(): QuoteContextSettings;
  /** Whether a message of the session was recalled (the store's mark). */
  isRecalled?(sessionId: string, messageId: string): Promise<boolean>;
  monitor: Monitor;
  logger: Logger;
}

/** Builds the quote block that prefixes a realtime turn's new messages. */
export class QuoteContext {
  /** Building a time formatter costs more than resolving a quote; kept while the zone holds. */
  private clock: { timeZone: string; text: ClockText } | undefined;

  constructor(private readonly deps: QuoteContextDeps) {}

  /**
   * The rendered block for what `message` quotes or forwards, or undefined when there is
   * none. Never rejects: an unexpected failure is logged and the turn goes on without it.
   */
  async blockFor(message: ChatMessage, replyId: string, view: QuoteView = {}): Promise<string | undefined> {
    const started = performance.now();
    try {
      const source = quoteSourceOf(message);
      const fetcher = this.deps.fetcherFor(message);
      if (!source || !fetcher) return undefined;
      const settings = this.deps.settings();
      const quote = await resolveQuote(source, {
        fetcher,
        settings: settings.quote,
        logger: this.deps.logger,
        pictures: view.pictures,
        render: { nameOf: view.nameOf, selfId: message.selfId },
        recalled: async (messageId) => (await this.deps.isRecalled?.(message.sessionId, messageId)) === true,
      });
      if (!quote) return undefined;
      const block = formatQuoteContext(quote, this.clockFor(settings.timeZone));
      this.deps.monitor.emit({
        type: "quote.resolved",
        replyId,
        sessionId: message.sessionId,
        data: {
          messageId: message.messageId,
          nodes: quote.nodes.length,
          truncated: quote.truncated,
          chars: block.length,
          durationMs: performance.now() - started,
        },
      });
      return block;
    } catch (error) {
      this.deps.logger.error(
        { replyId, sessionId: message.sessionId, messageId: message.messageId, err: error },
        "quote resolution failed; the turn goes on without the quote block",
      );
      return undefined;
    }
  }

  private clockFor(timeZone: string): ClockText {
    if (this.clock?.timeZone !== timeZone) this.clock = { timeZone, text: clockText(timeZone) };
    return this.clock.text;
  }
}
