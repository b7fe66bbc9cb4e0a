import type { TsumugiConfig } from "../config/schema.ts";

/**
 * What a person who just ran `npm start` at a terminal does next, in order: the console, a
 * model when there is none, the URL (and token) to paste into NapCat, an @-mention. Printed
 * once under the start-up line; logs and services never get it.
 */
export function nextSteps(config: TsumugiConfig, address: { host: string; port: number }): string {
  const host = /^(0\.0\.0\.0|::)$/.test(address.host) ? "127.0.0.1" : address.host;
  const base = `${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  const steps = [
    `open the console: http://${base}/${config.server.token ? " (sign in with server.token)" : ""}`,
  ];
  if ((config.llm.models.planner ?? []).length === 0)
    steps.push("no model yet: open the console and choose one");
  for (const adapter of config.adapters) {
    if (adapter.type !== "onebot" || adapter.mode !== "reverse-ws") continue;
    const token = adapter.accessToken ? `, token: the accessToken of adapter "${adapter.id}"` : ", no token";
    steps.push(`in NapCat, add a WebSocket client (reverse WS): ws://${base}${adapter.path}${token}`);
  }
  steps.push("@ the bot in a group, or message it privately");
  return `\nNext steps:\n${steps.map((step, index) => `  ${index + 1}. ${step}`).join("\n")}\n\n`;
}
