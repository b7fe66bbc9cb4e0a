import pino, { type Logger } from "pino";

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
];

const BASE64_BLOB = /base64:\/\/[A-Za-z0-9+/=]{16,}/g;

/** Removes secrets and base64 payloads from free text before it is logged. */
export function scrubText(text: string): string {
  return text
    .replace(BASE64_BLOB, (blob) => `base64://…(${blob.length - 9} chars)`)
    .replace(/(access_token=)[^&\s]+/gi, "$1***")
    .replace(/(Bearer\s+)[^\s"']+/gi, "$1***");
}

/** Shorter secrets are left in free text: blanking every such word or number would garble lines. */
const MIN_REDACTED_SECRET_LENGTH = 4;

/**
 * Free text another program wrote (a plugin's stderr) with every one of `secrets` replaced:
 * the values the config schema marks secret (`secretValues` in schema/secret-paths.ts, the
 * same walker that finds the keys redacted above), longest first.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_REDACTED_SECRET_LENGTH) redacted = redacted.replaceAll(secret, "***");
  }
  return redacted;
}

export interface LoggerOptions {
  level?: string;
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: pino.DestinationStream;
  /**
   * More key paths whose values are secrets: main.ts passes the config's secret fields (schema
   * `writeOnly`), read from the config schema, which the log layer sits below. Each is redacted
   * at the top of a logged object and one key down (a config logged whole or under a key).
   */
  secretPaths?: readonly string[];
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.TSUMUGI_LOG_LEVEL ?? "info",
      base: undefined,
      redact: {
        paths: [...REDACTED_PATHS, ...(options.secretPaths ?? []).flatMap((path) => [path, `*.${path}`])],
        censor: "***",
      },
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
