import { createServer } from "node:net";
import type { AdapterConfig } from "../adapters/config.ts";
import type { TsumugiConfig } from "../config/schema.ts";
import { LlmClient } from "../llm/llm-client.ts";
import { LlmError } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import type { McpServerStatus } from "../mcp/status.ts";
import type { PluginStatus } from "../plugins/status-types.ts";
import type { HealthReport } from "../server/health-report.ts";
import { describeFetchError } from "../util/fetch-error.ts";
import { isRecord } from "../util/values.ts";
import { probeOneBot } from "./onebot-probe.ts";

/** One result of `npm run doctor`: what was checked, and for a problem what to do about it. */
export interface Finding {
  ok: boolean;
  line: string;
}

const ok = (line: string): Finding => ({ ok: true, line });
const problem = (line: string): Finding => ({ ok: false, line });

export interface DoctorOptions {
  timeoutMs: number;
  logger: Logger;
}

/** The running bot's own view, when one answers on server.port. */
interface RunningBot {
  health: HealthReport;
  get: (path: string) => Promise<unknown>;
  /** Whether the bot was asked with server.token (without it, /healthz hides account numbers). */
  withToken: boolean;
}

/**
 * Checks what a running bot depends on: its port, each adapter's connection, token and
 * account, each model with a tiny request, and (from the running bot) plugins and MCP servers.
 */
export async function runChecks(config: TsumugiConfig, options: DoctorOptions): Promise<Finding[]> {
  const host = /^(0\.0\.0\.0|::|)$/.test(config.server.host) ? "127.0.0.1" : config.server.host;
  const base = `http://${host.includes(":") ? `[${host}]` : host}:${config.server.port}`;
  const findings: Finding[] = [];
  const bot = await reachBot(base, config.server.token, options.timeoutMs);
  if (bot === "refused") {
    findings.push(
      problem(`server.token: the bot running on ${base} refused it; use the token that bot was started with`),
    );
  } else if (bot) {
    findings.push(ok(`server: a Tsumugi bot answers on ${base}`));
  } else {
    findings.push(await portFinding(host, config.server.port));
  }
  const running = bot === "refused" ? undefined : bot;
  for (const [index, adapter] of config.adapters.entries()) {
    findings.push(...(await adapterFindings(adapter, index, running, options.timeoutMs)));
  }
  findings.push(...(await modelFindings(config, options)));
  findings.push(...(await runtimeFindings(running)));
  return findings;
}

async function reachBot(
  base: string,
  token: string,
  timeoutMs: number,
): Promise<RunningBot | "refused" | undefined> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (response.status === 401) throw new Error("401");
    return response.json() as Promise<unknown>;
  };
  try {
    await get("/api/status");
    const health = (await get("/healthz")) as HealthReport;
    return isRecord(health) && Array.isArray(health.adapters)
      ? { health, get, withToken: token !== "" }
      : undefined;
  } catch (error) {
    return (error as Error).message === "401" ? "refused" : undefined;
  }
}

function portFinding(host: string, port: number): Promise<Finding> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      resolve(
        problem(
          `server.port: ${host}:${port} cannot be used (${error.code ?? error.message}); stop the program holding it or choose another port`,
        ),
      ),
    );
    server.listen(port, host, () => server.close(() => resolve(ok(`server.port: ${host}:${port} is free`))));
  });
}

async function adapterFindings(
  adapter: AdapterConfig,
  index: number,
  bot: RunningBot | undefined,
  timeoutMs: number,
): Promise<Finding[]> {
  const key = `adapters[${index}]`;
  if (adapter.type === "qq-official") return [await qqOfficialFinding(adapter, key, timeoutMs)];
  if (adapter.mode === "reverse-ws") {
    // The implementation dials the bot: only the running bot knows whether it did.
    if (!bot) return [ok(`${key} (${adapter.id}): reverse-ws, checked only while the bot runs`)];
    const accounts = bot.health.adapters.filter((account) => account.id === adapter.id && account.connected);
    if (accounts.length === 0) {
      return [
        problem(
          `${key} (${adapter.id}): no OneBot implementation is connected; point its reverse WebSocket at ${adapter.path} on server.port with adapters[${index}].accessToken`,
        ),
      ];
    }
    return accounts.map((account) =>
      accountFinding(
        key,
        adapter.id,
        account.selfId ?? (bot.withToken ? "?" : HIDDEN_NUMBER),
        account.online,
      ),
    );
  }
  const probe = await probeOneBot(adapter, timeoutMs);
  switch (probe.kind) {
    case "refused-token":
      return [
        problem(
          `${key}.accessToken: refused by the OneBot implementation at ${adapter.url} (HTTP ${probe.status}); set the access token configured in NapCat`,
        ),
      ];
    case "unreachable":
      return [
        problem(
          `${key}.url: ${adapter.url} does not answer (${probe.why}); start the OneBot implementation or fix the URL`,
        ),
      ];
    case "answered":
      return [accountFinding(key, adapter.id, probe.selfId ?? "?", probe.online)];
  }
}

/** What stands for the QQ number a bot without server.token does not show. */
const HIDDEN_NUMBER =
  "(number hidden: without server.token the bot shows account numbers to nobody; set one to see it here)";

function accountFinding(key: string, id: string, selfId: string, online: boolean | undefined): Finding {
  if (online === false) {
    return problem(
      `${key} (${id}): QQ ${selfId} is connected but not online (get_status); log it in again in NapCat`,
    );
  }
  return ok(`${key} (${id}): QQ ${selfId} connected${online ? " and online" : ""}`);
}

async function qqOfficialFinding(
  adapter: Extract<AdapterConfig, { type: "qq-official" }>,
  key: string,
  timeoutMs: number,
): Promise<Finding> {
  try {
    const response = await fetch(adapter.tokenUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ appId: adapter.appId, clientSecret: adapter.secret }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const answer: unknown = await response.json().catch(() => undefined);
    if (isRecord(answer) && typeof answer.access_token === "string") {
      return ok(`${key} (${adapter.id}): AppID ${adapter.appId} receives access tokens`);
    }
    const said =
      isRecord(answer) && typeof answer.message === "string" ? answer.message : `HTTP ${response.status}`;
    return problem(
      `${key}.secret: the token endpoint refused AppID ${adapter.appId} with this AppSecret (${said}); copy both from the bot platform's developer settings`,
    );
  } catch (error) {
    return problem(`${key}.tokenUrl: ${adapter.tokenUrl} does not answer (${describeFetchError(error)})`);
  }
}

/** Each model named in llm.models, once, with a request for a few tokens. */
async function modelFindings(config: TsumugiConfig, options: DoctorOptions): Promise<Finding[]> {
  const references = new Map<string, string>();
  for (const [task, list] of Object.entries(config.llm.models)) {
    for (const reference of list) if (!references.has(reference)) references.set(reference, task);
  }
  if (references.size === 0)
    return [
      problem(
        "llm.models: no model is configured; the bot cannot answer (set one in the console's setup page)",
      ),
    ];
  const findings: Finding[] = [];
  for (const [reference, task] of references) {
    const providerId = reference.slice(0, reference.indexOf("/"));
    const provider = config.llm.providers.find((entry) => entry.id === providerId);
    if (!provider) continue; // The config check names unknown providers already.
    if (
      task === "tts" ||
      task === "image" ||
      provider.type === "gpt-sovits" ||
      provider.type === "edge-tts"
    ) {
      findings.push(ok(`llm.models.${task}: ${reference} is not asked here (it answers no chat request)`));
      continue;
    }
    if (provider.type === "llama-cpp") {
      findings.push(ok(`llm.models.${task}: ${reference} is a local model; \`npm run model\` checks it`));
      continue;
    }
    const client = new LlmClient({
      providers: [{ ...provider, maxRetries: 0 }],
      models: { doctor: [reference] },
      usage: () => {},
      logger: options.logger,
    });
    try {
      await client.generate({
        task: "doctor",
        messages: [{ role: "user", content: "Say OK." }],
        maxOutputTokens: 8,
      });
      findings.push(ok(`llm.models.${task}: ${reference} answers`));
    } catch (error) {
      const why =
        error instanceof LlmError ? (error.attempts.at(-1)?.message ?? error.message) : String(error);
      findings.push(
        problem(
          `llm.models.${task}: ${reference} does not answer (${why}); check llm.providers "${providerId}" (baseUrl, apiKey) and the model name`,
        ),
      );
    }
  }
  return findings;
}

/** Plugins and MCP servers live in the running bot; without one there is nothing to ask. */
async function runtimeFindings(bot: RunningBot | undefined): Promise<Finding[]> {
  if (!bot) return [ok("plugins, mcp: checked only while the bot runs")];
  const findings: Finding[] = [];
  const { plugins } = (await bot.get("/api/plugins")) as { plugins: PluginStatus[] };
  for (const plugin of plugins) {
    if (plugin.error)
      findings.push(problem(`plugins: ${plugin.id} (${plugin.dir}) ${plugin.state}: ${plugin.error}`));
  }
  if (findings.length === 0) findings.push(ok(`plugins: ${plugins.length} without errors`));
  const { servers } = (await bot.get("/api/mcp")) as { servers: McpServerStatus[] };
  const down = servers.filter((server) => server.state === "down");
  for (const server of down) {
    findings.push(
      problem(`mcp.servers ${server.id} (${server.target}) is down: ${server.lastError ?? "no answer"}`),
    );
  }
  if (down.length === 0) findings.push(ok(`mcp: ${servers.length} server(s), none down`));
  return findings;
}
