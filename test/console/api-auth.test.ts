import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/api-client.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";

const TOKEN = "console-secret-token";

/** Every console endpoint with a request that would succeed when authorized. */
const ENDPOINTS: Array<{ method: string; path: string; body?: unknown }> = [
  { method: "GET", path: "/api/status" },
  { method: "GET", path: "/api/playground" },
  { method: "GET", path: "/api/playground/messages?chatType=group&peerId=20000" },
  {
    method: "POST",
    path: "/api/playground/messages",
    body: {
      chatType: "group",
      groupId: "20000",
      userId: "30001",
      senderName: "Alice",
      segments: [{ type: "text", data: { text: "hi" } }],
    },
  },
  { method: "GET", path: "/api/playground/stream" },
  { method: "GET", path: "/api/monitor/turns" },
  { method: "GET", path: "/api/monitor/turns/some-reply-id" },
  { method: "GET", path: "/api/monitor/events" },
  { method: "GET", path: "/api/monitor/stream" },
  { method: "GET", path: "/api/models" },
  { method: "POST", path: "/api/models/test", body: { ref: "main/none" } },
  { method: "GET", path: "/api/usage" },
  { method: "GET", path: "/api/usage/daily" },
  { method: "GET", path: "/api/budgets" },
  { method: "GET", path: "/api/config" },
  { method: "PUT", path: "/api/config", body: { yaml: "bot:\n  name: 紬\n" } },
  { method: "POST", path: "/api/setup/test", body: { type: "openai", model: "x" } },
  { method: "POST", path: "/api/setup/model", body: { type: "openai", model: "x" } },
  { method: "GET", path: "/api/connect" },
  { method: "GET", path: "/api/chats" },
  { method: "GET", path: "/api/chats/messages" },
  { method: "GET", path: "/api/pictures?sessionId=onebot:10000:group:20000&messageId=1&index=0" },
  { method: "GET", path: "/api/pictures/description?sessionId=onebot:10000:group:20000&messageId=1&index=0" },
  { method: "GET", path: "/api/records?sessionId=onebot:10000:group:20000&messageId=1&index=0" },
  { method: "GET", path: "/api/plugins" },
  { method: "POST", path: "/api/plugins/ping/enable", body: {} },
  { method: "POST", path: "/api/plugins/ping/disable", body: {} },
  { method: "POST", path: "/api/plugins/ping/reload", body: {} },
  { method: "PUT", path: "/api/plugins/ping/config", body: { config: {} } },
  { method: "GET", path: "/api/plugins/stream" },
  { method: "GET", path: "/api/cluster" },
];

describe("console API authorization", () => {
  let bot: BotHarness;

  beforeAll(async () => {
    bot = await startBot({ config: { server: { token: TOKEN } } });
  });
  afterAll(async () => {
    await bot.dispose();
  });

  it.each(ENDPOINTS)("$method $path refuses a missing or wrong token", async ({ method, path, body }) => {
    const missing = await apiClient(bot.baseUrl).request(method, path, body);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: "unauthorized", message: "missing or wrong bearer token" });
    const wrong = await apiClient(bot.baseUrl, "not-the-token").request(method, path, body);
    expect(wrong.status).toBe(401);
  });

  it.each(ENDPOINTS.filter((endpoint) => !endpoint.path.endsWith("/stream")))(
    "$method $path answers with the right token",
    async ({ method, path, body }) => {
      const answer = await apiClient(bot.baseUrl, TOKEN).request(method, path, body);
      expect(answer.status).not.toBe(401);
      expect(answer.status).toBeLessThan(500);
    },
  );

  it("opens the event streams with the right token", async () => {
    for (const path of ["/api/playground/stream", "/api/monitor/stream", "/api/plugins/stream"]) {
      const controller = new AbortController();
      const response = await fetch(`${bot.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      controller.abort();
    }
  });

  it("serves /healthz and the console page without a token", async () => {
    const health = await apiClient(bot.baseUrl).get("/healthz");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("ok");
    // The console is a local adapter, not a platform connection: /healthz lists only OneBot.
    expect(health.body.adapters.map((adapter: { id: string }) => adapter.id)).toEqual(["qq"]);

    const page = await fetch(`${bot.baseUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain('<div id="app">');
  });

  it("answers console routes with the app and keeps files outside web/dist private", async () => {
    for (const path of ["/playground", "/monitor/abc", "/..%2f..%2fpackage.json"]) {
      const response = await fetch(`${bot.baseUrl}${path}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<div id="app">');
    }
    const html = await (await fetch(`${bot.baseUrl}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const asset = await fetch(`${bot.baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("text/javascript");
    expect(asset.headers.get("cache-control")).toContain("immutable");

    const unknownApi = await apiClient(bot.baseUrl, TOKEN).get("/api/nothing-here");
    expect(unknownApi.status).toBe(404);
  });
});
