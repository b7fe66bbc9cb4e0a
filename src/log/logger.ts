import pino, { type Logger } from "pino";
import { configJsonSchema } from "../config/schema.ts";
import { secretPatterns } from "../config/secret-paths.ts";

export type { Logger };

/** Keys whose values never reach a log line. */
const REDACTED_PATHS = [
  "token",
  "accessToken",
  "access_token",
  "apiKey",
  "secret",
  "authorization",
  "*.token",
  "*.accessToken",
  "*.access_token",
  "*.apiKey",
  "*.secret",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
  // The config's secret fields (schema `writeOnly`), in a config logged whole or under a key.
  ...secretPatterns(configJsonSchema).flatMap((path) => [path, `*.${path}`]),
];

const BASE64_BLOB = /base64:\/\/[A-Za-z0-9+/=]{16,}/g;

/** Removes secrets and base64 payloads from free text before it is logged. */
export function scrubText(text: string): string {
  return text
    .replace(BASE64_BLOB, (blob) => `base64://…(${blob.length - 9} chars)`)
    .replace(/(access_token=)[^&\s]+/gi, "$1***")
    .replace(/(Bearer\s+)[^\s"']+/gi, "$1***");
}

export interface LoggerOptions {
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.TSUMUGI_LOG_LEVEL ?? "info",
      base: undefined,
      redact: { paths: REDACTED_PATHS, censor: "***" },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === "string" ? scrubText(arg) : arg));
          method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    options.destination ?? pino.destination({ sync: false }),
  );
}
