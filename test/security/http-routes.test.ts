/**
 * Deny by default: every route the running bot serves, requested under every spelling a
 * router might read as the same path, over a raw socket so nothing normalises it first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { type RawAnswer, type RawRequest, rawRequest } from "../support/raw-http.ts";

const TOKEN = "route-walk-token";
const ONEBOT_TOKEN = "onebot-token";
const WS_PATH = "/onebot/v11/ws";
const HTTP_EVENTS_PATH = "/onebot/v11/http";
/** The only routes anyone may call: the console's files come from the not-found handler. */
const PUBLIC_ROUTES = ["GET /healthz", "HEAD /healthz"];
const WS_UPGRADE = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-version": "13",
  "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  "x-self-id": "10000",
  "x-client-role": "Universal",
};

/** Every way to write `path` that some router, proxy or decoder may take for it. */
function spellings(path: string, port: number): string[] {
  const escapedLetters = [...path].flatMap((char, index) =>
    /[a-z]/i.test(char)
      ? [`${path.slice(0, index)}%${char.charCodeAt(0).toString(16)}${path.slice(index + 1)}`]
      : [],
  );
  const first = `/${path.split("/")[1]}`;
  const rest = path.slice(first.length);
  return [
    path,
    ...escapedLetters,
    `/%25${first.charCodeAt(1).toString(16)}${first.slice(2)}${rest}`,
    path.replaceAll("/", "%2F"),
    `${first}%2F${rest.slice(1)}`,
    `/${path}`,
    `${first}/${rest}`,
    `/.${path}`,
    `/%2e${path}`,
    `/x/..${path}`,
    `/x/%2e%2e${path}`,
    path.replaceAll("/", "\\"),
    `http://127.0.0.1:${port}${path}`,
    `http://evil.example${path}`,
    path.toUpperCase(),
    `${first.toUpperCase()}${rest}`,
    `${path}/`,
    `${path};x=1`,
    `${first};x=1${rest}`,
    `${path}?access_token=${TOKEN}`,
    `${path}?access_token=${ONEBOT_TOKEN}`,
  ];
}

/** The console's own page may answer any GET the router does not know; nothing else may. */
function isConsolePage(answer: RawAnswer, method: string): boolean {
  const html = answer.headers["content-type"]?.startsWith("text/html") ?? false;
  return answer.status === 200 && html && (method === "HEAD" || answer.body.includes('<div id="app">'));
}

function concretePath(url: string): string {
  return url.replace(/:[^/]+/g, "ping");
}

async function inBatches<T>(items: T[], run: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += 8)
    await Promise.all(items.slice(start, start + 8).map(run));
}

describe("every route of the HTTP server", () => {
  let bot: BotHarness;
  let port: number;
  let routes: string[];

  beforeAll(async () => {
    bot = await startBot({
      config: {
        server: { token: TOKEN },
        adapters: [
          { type: "onebot", id: "qq", mode: "reverse-ws", path: WS_PATH, accessToken: ONEBOT_TOKEN },
          {
            type: "onebot",
            id: "qqhttp",
            mode: "http",
            url: "http://127.0.0.1:9",
            path: HTTP_EVENTS_PATH,
            secret: "hmac-secret",
          },
        ],
      },
    });
    port = bot.app.address.port;
    // The route table as the server lists it at debug level once listening (before startBot returns).
    const logged = bot.logs.find((line) => line.msg === "http routes");
    routes = logged?.routes as string[];
    expect(routes.length).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await bot.dispose();
  });

  it("answers nothing without credentials, however a route's path is spelled", async () => {
    // The walk covers the real route table, not a list kept by hand.
    expect(routes).toEqual(
      expect.arrayContaining(["GET /api/config", "PUT /api/config", "POST /api/plugins/:ref/disable"]),
    );
    const requests: Array<RawRequest & { route: string }> = [];
    for (const route of routes.filter((route) => !PUBLIC_ROUTES.includes(route))) {
      const [method = "", url = ""] = route.split(" ");
      const withBody = method === "POST" || method === "PUT";
      for (const target of spellings(concretePath(url), port)) {
        requests.push({
          route,
          method,
          target,
          ...(withBody ? { headers: { "content-type": "application/json" }, body: "{}" } : {}),
        });
      }
    }
    // The OneBot endpoints sit in front of the router with their own credentials (which the
    // reverse-WS handshake may send as ?access_token=, so those spellings are left out).
    const withoutCredentials = (path: string) =>
      spellings(path, port).filter((target) => !target.includes("access_token"));
    for (const target of withoutCredentials(WS_PATH)) {
      requests.push({ route: `upgrade ${WS_PATH}`, method: "GET", target, headers: WS_UPGRADE });
    }
    for (const target of withoutCredentials(HTTP_EVENTS_PATH)) {
      const body = JSON.stringify({ post_type: "meta_event", meta_event_type: "heartbeat", self_id: 10000 });
      const headers = { "content-type": "application/json" };
      requests.push({ route: `POST ${HTTP_EVENTS_PATH}`, method: "POST", target, headers, body });
    }

    const answered: string[] = [];
    await inBatches(requests, async (request) => {
      const answer = await rawRequest(port, request);
      const opened = answer.status >= 101 && answer.status < 400;
      if (opened && !isConsolePage(answer, request.method)) {
        answered.push(`${request.method} ${request.target} → ${answer.status} ${answer.body.slice(0, 60)}`);
      }
    });
    expect(answered).toEqual([]);
    expect(requests.length).toBeGreaterThan(500);

    // The allowlist, and the credentials, still open what they should.
    const health = await rawRequest(port, { method: "GET", target: "/healthz" });
    expect(health.status).toBe(200);
    const withToken = await rawRequest(port, {
      method: "GET",
      target: "/api/config",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(withToken.status).toBe(200);
    const upgraded = await rawRequest(port, {
      method: "GET",
      target: WS_PATH,
      headers: { ...WS_UPGRADE, authorization: `Bearer ${ONEBOT_TOKEN}` },
    });
    expect(upgraded.status).toBe(101);
  }, 120_000);

  it("takes the API token only from the Authorization header, never from ?access_token=", async () => {
    const inQuery = await rawRequest(port, { method: "GET", target: `/api/config?access_token=${TOKEN}` });
    expect(inQuery.status).toBe(401);
    expect(JSON.parse(inQuery.body)).toEqual({
      error: "unauthorized",
      message: "missing or wrong bearer token",
    });
    const inHeader = await rawRequest(port, {
      method: "GET",
      target: "/api/config",
      headers: { authorization: `Token ${TOKEN}` },
    });
    expect(inHeader.status).toBe(200);
  });

  it("answers an unknown API path 404 with the token and no console page in any spelling", async () => {
    const authorization = { authorization: `Bearer ${TOKEN}` };
    for (const target of [
      "/api/nothing-here",
      "//api/config",
      "/API/config",
      "/x/../api/config",
      "/api/config/",
    ]) {
      const answer = await rawRequest(port, { method: "GET", target, headers: authorization });
      expect(answer.status, target).toBe(404);
      expect(JSON.parse(answer.body), target).toMatchObject({ error: "not_found" });
    }
    const page = await rawRequest(port, { method: "GET", target: "/monitor/some-turn" });
    expect(isConsolePage(page, "GET")).toBe(true);
  });
});
