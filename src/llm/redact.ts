/**
 * Providers sometimes echo the key, or a header such as `x-api-key`, in a 401 message; it
 * never reaches logs, records or the timeline. Header values are redacted word by word, so
 * the key of `Authorization: Bearer <key>` is caught when echoed alone.
 */
export function redact(
  message: string,
  config: { id: string; apiKey?: string; headers?: Record<string, string> },
): string {
  const secrets = [
    config.apiKey ?? "",
    ...Object.values(config.headers ?? {}).flatMap((value) => [value, ...value.split(/\s+/)]),
  ];
  return secrets
    .filter((secret) => secret.length >= 8)
    .sort((a, b) => b.length - a.length)
    .reduce((text, secret) => text.split(secret).join("***"), message);
}
