/**
 * What a test reads of a running bot through its HTTP surface: `/healthz` and the console
 * API, the same for an in-process bot (bot-harness.ts) and a bot process (bot-process.ts).
 * A bot process's monitor is out of reach, so its tests wait on these answers instead.
 */
import type { PluginStatus } from "../../src/plugins/plugin-host.ts";
import type { HealthReport } from "../../src/server/health-report.ts";
import type { StoredMessage } from "../../src/store/types.ts";
import { apiClient } from "./api-client.ts";

/** A running bot: where its HTTP server listens (`http://127.0.0.1:<port>`). */
export interface ReachableBot {
  baseUrl: string;
}

async function getJson<T>(bot: ReachableBot, path: string): Promise<T> {
  const answer = await apiClient(bot.baseUrl).get<T>(path);
  if (answer.status !== 200)
    throw new Error(`GET ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export function health(bot: ReachableBot): Promise<HealthReport> {
  return getJson(bot, "/healthz");
}

/** The stored messages (of every chat) whose text contains `search`, newest first. */
export async function storedMessages(bot: ReachableBot, search: string): Promise<StoredMessage[]> {
  const query = new URLSearchParams({ search });
  return (await getJson<{ messages: StoredMessage[] }>(bot, `/api/chats/messages?${query}`)).messages;
}

/** Every plugin's status as the console shows it. */
export async function pluginStatuses(bot: ReachableBot): Promise<PluginStatus[]> {
  return (await getJson<{ plugins: PluginStatus[] }>(bot, "/api/plugins")).plugins;
}

export async function pluginStatus(bot: ReachableBot, id: string): Promise<PluginStatus> {
  const found = (await pluginStatuses(bot)).find((status) => status.id === id);
  if (!found) throw new Error(`no plugin ${id}`);
  return found;
}

/** POSTs to the console API as the console does (no token in tests), e.g. `/api/plugins/alpha/disable`. */
export async function postApi(bot: ReachableBot, path: string): Promise<unknown> {
  const answer = await apiClient(bot.baseUrl).post(path, undefined);
  if (answer.status >= 300)
    throw new Error(`POST ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

export interface TimelineEvent {
  type: string;
  replyId?: string;
  data: Record<string, unknown>;
}

/** The timeline of one reply, as the console's monitor page loads it. */
export async function timelineOf(bot: ReachableBot, replyId: string): Promise<TimelineEvent[]> {
  return (
    await getJson<{ events: TimelineEvent[] }>(bot, `/api/monitor/turns/${encodeURIComponent(replyId)}`)
  ).events;
}
