/**
 * The default set-up (loopback, no token) against a web page the admin happens to visit: DNS
 * rebinding (the page's own name resolving to 127.0.0.1) and cross-site requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classPlugin, PluginSandbox } from "../plugins/plugin-fixtures.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { ALICE, GROUP, groupSession } from "../support/messages.ts";
import { startPictureServer } from "../support/picture-server.ts";
import { JPEG_2X2 } from "../support/pictures.ts";
import { type RawRequest, rawRequest } from "../support/raw-http.ts";
import { startScene } from "../support/scene.ts";

const EVIL = "http://evil.example";

describe("the API without a token, against other sites", () => {
  const sandbox = new PluginSandbox();
  let bot: BotHarness;
  let port: number;
  const send = (request: RawRequest) => rawRequest(port, request);
  const pingState = async () => {
    const answer = await send({ method: "GET", target: "/api/plugins" });
    const plugins = JSON.parse(answer.body).plugins as Array<{ id: string; state: string }>;
    return plugins.find((plugin) => plugin.id === "ping")?.state;
  };

  beforeAll(async () => {
    sandbox.add("ping", { "index.ts": classPlugin("", "Plugin") });
    bot = await startBot({ config: { plugins: { dirs: [sandbox.root] } } });
    port = bot.app.address.port;
  });
  afterAll(async () => {
    await bot.dispose();
    sandbox.remove();
  });

  it("refuses requests addressed to a name that is not the server's own (DNS rebinding)", async () => {
    for (const host of [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, "localhost:1", ""]) {
      for (const target of ["/api/config", "/healthz"]) {
        const answer = await send({ method: "GET", target, headers: { host } });
        expect(answer.status, `${host} ${target}`).toBe(403);
        expect(JSON.parse(answer.body)).toEqual({
          error: "forbidden",
          message: `host "${host}" is not this server's address; add it to server.allowedHosts`,
        });
      }
    }
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `tsumugi.localhost:${port}`,
    ]) {
      const answer = await send({ method: "GET", target: "/api/config", headers: { host } });
      expect(answer.status, host).toBe(200);
    }
  });

  it("refuses a cross-site POST, even body-less, while the console itself and curl still work", async () => {
    const crossSite = await send({
      method: "POST",
      target: "/api/plugins/ping/disable",
      headers: { origin: EVIL },
    });
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.body)).toEqual({
      error: "forbidden",
      message: `origin "${EVIL}" is not this console`,
    });
    // What an HTML form can send: text/plain, no custom header.
    const form = await send({
      method: "POST",
      target: "/api/plugins/ping/disable",
      headers: { origin: EVIL, "content-type": "text/plain" },
      body: "x=1",
    });
    expect(form.status).toBe(403);
    const sandboxed = await send({
      method: "POST",
      target: "/api/plugins/ping/disable",
      headers: { origin: "null" },
    });
    expect(sandboxed.status).toBe(403);
    const readFromElsewhere = await send({ method: "GET", target: "/api/config", headers: { origin: EVIL } });
    expect(readFromElsewhere.status).toBe(403);
    const noOriginNoHeader = await send({ method: "POST", target: "/api/plugins/ping/disable" });
    expect(noOriginNoHeader.status).toBe(403);
    expect(JSON.parse(noOriginNoHeader.body).message).toBe(
      "POST without an Origin needs the x-tsumugi-console header",
    );
    expect(await pingState()).toBe("enabled");

    const sameOrigin = await send({
      method: "POST",
      target: "/api/plugins/ping/disable",
      headers: { origin: `http://127.0.0.1:${port}` },
    });
    expect(sameOrigin.status).toBe(200);
    expect(await pingState()).toBe("disabled");
    const curl = await send({
      method: "POST",
      target: "/api/plugins/ping/enable",
      headers: { "x-tsumugi-console": "1" },
    });
    expect(curl.status).toBe(200);
    expect(await pingState()).toBe("enabled");

    // A cross-site fetch could send the header only after a CORS preflight, never granted.
    const preflight = await send({
      method: "OPTIONS",
      target: "/api/plugins/ping/disable",
      headers: {
        origin: EVIL,
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-tsumugi-console",
      },
    });
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("the server's own names", () => {
  it("answers a reverse proxy's name listed in server.allowedHosts, and no other", async () => {
    const bot = await startBot({ config: { server: { allowedHosts: ["bot.example.com"] } } });
    try {
      const port = bot.app.address.port;
      const proxied = await rawRequest(port, {
        method: "POST",
        target: "/api/plugins/nothing/reload",
        headers: { host: "bot.example.com", origin: "https://bot.example.com" },
      });
      expect(proxied.status).toBe(404); // through the guard; the plugin just does not exist
      const other = await rawRequest(port, {
        method: "GET",
        target: "/api/config",
        headers: { host: "evil.example" },
      });
      expect(other.status).toBe(403);
    } finally {
      await bot.dispose();
    }
  });

  it("with a token, lets the token decide: any host name, never ?access_token=", async () => {
    const bot = await startBot({ config: { server: { token: "cross-site-token" } } });
    try {
      const port = bot.app.address.port;
      const behindProxy = await rawRequest(port, {
        method: "GET",
        target: "/api/config",
        headers: { host: "bot.example.com", authorization: "Bearer cross-site-token" },
      });
      expect(behindProxy.status).toBe(200);
      const noToken = await rawRequest(port, {
        method: "POST",
        target: "/api/plugins/nothing/reload",
        headers: { origin: `http://127.0.0.1:${port}`, "x-tsumugi-console": "1" },
      });
      expect(noToken.status).toBe(401);
      const inQuery = await rawRequest(port, {
        method: "GET",
        target: "/api/config?access_token=cross-site-token",
      });
      expect(inQuery.status).toBe(401);
    } finally {
      await bot.dispose();
    }
  });
});

describe("requests a browser marks as coming from another site", () => {
  it("are refused on every API method, reads included, and the bot fetches nothing for them", async () => {
    const pictures = await startPictureServer();
    const scene = await startScene({ config: { media: { allowPrivateNetworks: true } } });
    try {
      const port = scene.bot.app.address.port;
      const url = pictures.serve("/photo.jpg", { body: JPEG_2X2 });
      const messageId = scene.qq.pushGroupMessage({
        groupId: GROUP,
        userId: ALICE,
        message: [{ type: "image", data: { file: "photo.jpg", url } }],
      });
      await scene.bot.waitForEvent("message.ingested", (event) => event.data.messageId === messageId);
      const picture = `/api/pictures?sessionId=${encodeURIComponent(groupSession())}&messageId=${messageId}&index=0`;

      // What an <img> on another site (or another port of localhost: same-site) sends: no Origin.
      for (const site of ["cross-site", "same-site"]) {
        for (const [method, target] of [
          ["GET", picture],
          ["GET", "/api/config"],
          ["DELETE", "/api/memory/1"],
          ["POST", "/api/plugins/none/reload"],
        ] as const) {
          const answer = await rawRequest(port, {
            method,
            target,
            headers: { "sec-fetch-site": site, "x-tsumugi-console": "1" },
          });
          expect(answer.status, `${site} ${method} ${target}`).toBe(403);
          expect(JSON.parse(answer.body)).toEqual({
            error: "forbidden",
            message: `requests from another site (Sec-Fetch-Site: ${site}) are refused`,
          });
        }
      }
      expect(pictures.requests).toEqual([]);

      // The console itself (same-origin), a typed address (none) and curl (nothing) still read it.
      const allowed: Array<Record<string, string>> = [
        { "sec-fetch-site": "same-origin" },
        { "sec-fetch-site": "none" },
        {},
      ];
      for (const headers of allowed) {
        const answer = await rawRequest(port, { method: "GET", target: picture, headers });
        expect(answer.status, JSON.stringify(headers)).toBe(200);
      }
      expect(pictures.requests).toContain("/photo.jpg");
    } finally {
      await scene.close();
      await pictures.close();
    }
  });
});
