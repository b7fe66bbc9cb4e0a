import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forbiddenAddressKind } from "../../src/media/forbidden-addresses.ts";
import type { PictureFetchSettings } from "../../src/media/picture-fetcher.ts";
import type { HostResolver } from "../../src/media/vetted-get.ts";
import { failureReason, testPictureFetcher } from "../support/picture-fetching.ts";
import { type PictureServer, startPictureServer } from "../support/picture-server.ts";
import { PNG_1X1 } from "../support/pictures.ts";

/**
 * A picture URL in a chat must not reach this machine or its networks (SSRF): with the default
 * settings every loopback, private, link-local… address is refused before any connection, in
 * every spelling of it, directly or through a host name.
 */

let server: PictureServer;
let port: number;

beforeAll(async () => {
  server = await startPictureServer();
  port = server.port;
  server.serve("/ok.png", { body: PNG_1X1 });
});

afterAll(async () => {
  await server.close();
});

/** Names only the hosts of a test (`*.test`); anything else is not found, as in real DNS. */
function resolverOf(hosts: Record<string, string[]>): HostResolver {
  return async (hostname) => {
    const addresses = hosts[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

async function reasonFor(
  url: string,
  settings: Partial<PictureFetchSettings> = {},
  resolveHost?: HostResolver,
) {
  const fetcher = testPictureFetcher(settings, resolveHost ? { resolveHost } : {});
  return failureReason(await fetcher.fetch({ kind: "image", url }));
}

describe("media.allowPrivateNetworks: false (the default)", () => {
  it.each([
    ["http://127.0.0.1:PORT/ok.png", "refused: 127.0.0.1 is a loopback address"],
    ["http://[::1]:PORT/ok.png", "refused: ::1 is a loopback address"],
    ["http://2130706433:PORT/ok.png", "refused: 127.0.0.1 is a loopback address"],
    ["http://0x7f.1:PORT/ok.png", "refused: 127.0.0.1 is a loopback address"],
    ["http://017700000001:PORT/ok.png", "refused: 127.0.0.1 is a loopback address"],
    ["http://[::ffff:127.0.0.1]:PORT/ok.png", "refused: ::ffff:7f00:1 is a loopback address"],
    ["http://0.0.0.0:PORT/ok.png", "refused: 0.0.0.0 is an unspecified address"],
    ["http://10.0.0.5/a.png", "refused: 10.0.0.5 is a private address"],
    ["http://192.168.1.1/a.png", "refused: 192.168.1.1 is a private address"],
    ["https://172.20.0.1/a.png", "refused: 172.20.0.1 is a private address"],
    ["http://169.254.169.254/latest/meta-data/", "refused: 169.254.169.254 is a link-local address"],
    ["http://100.64.0.1/a.png", "refused: 100.64.0.1 is a shared (CGNAT) address"],
    ["http://[fd00::1]/a.png", "refused: fd00::1 is a private address"],
    ["http://[fe80::1]/a.png", "refused: fe80::1 is a link-local address"],
    ["http://224.0.0.1/a.png", "refused: 224.0.0.1 is a multicast address"],
    ["http://[::ffff:a9fe:a9fe]/a.png", "refused: ::ffff:a9fe:a9fe is a link-local address"],
    // IPv6 forms with an IPv4 address inside, which a NAT64 translator or a 6to4 relay reaches.
    [
      "http://[64:ff9b::127.0.0.1]:PORT/ok.png",
      "refused: 64:ff9b::7f00:1 is a loopback address (127.0.0.1) in NAT64 form",
    ],
    [
      "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/",
      "refused: 64:ff9b::a9fe:a9fe is a link-local address (169.254.169.254) in NAT64 form",
    ],
    ["http://[2002:a00:5::1]/a.png", "refused: 2002:a00:5::1 is a private address (10.0.0.5) in 6to4 form"],
    [
      "http://[2002:7f00:1::]:PORT/ok.png",
      "refused: 2002:7f00:1:: is a loopback address (127.0.0.1) in 6to4 form",
    ],
    ["http://[64:ff9b:1::808:808]/a.png", "refused: 64:ff9b:1::808:808 is a private address"],
    ["http://[::127.0.0.1]:PORT/ok.png", "refused: ::7f00:1 is a reserved address"],
  ])("refuses %s without connecting", async (template, reason) => {
    const before = server.requests.length;

    expect(await reasonFor(template.replace("PORT", String(port)))).toBe(reason);
    expect(server.requests.length).toBe(before);
  });

  it("refuses localhost by what it resolves to", async () => {
    expect(await reasonFor(`http://localhost:${port}/ok.png`)).toMatch(
      /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    );
  });

  it("refuses a host when any one of its addresses is private", async () => {
    const resolve = resolverOf({ "mixed.test": ["93.184.216.34", "10.0.0.5"] });

    expect(await reasonFor("http://mixed.test/a.png", {}, resolve)).toBe(
      "refused: mixed.test resolves to 10.0.0.5, a private address",
    );
  });

  it("refuses a host that resolves to a NAT64 form of a private address", async () => {
    const resolve = resolverOf({ "nat64.test": ["64:ff9b::c0a8:101"] });

    expect(await reasonFor("http://nat64.test/a.png", {}, resolve)).toBe(
      "refused: nat64.test resolves to 64:ff9b::c0a8:101, a private address (192.168.1.1) in NAT64 form",
    );
  });

  it("lets NAT64 and 6to4 forms of public addresses through", () => {
    for (const address of ["64:ff9b::808:808", "64:ff9b::8.8.8.8", "2002:808:808::1", "2606:4700::1111"]) {
      expect(forbiddenAddressKind(address)).toBeUndefined();
    }
  });

  it("refuses schemes other than http and https", async () => {
    expect(await reasonFor("file:///etc/passwd")).toBe("refused: file: URLs are not fetched");
    expect(await reasonFor("ftp://example.com/a.png")).toBe("refused: ftp: URLs are not fetched");
    expect(await reasonFor("data:image/png;base64,AAAA")).toBe("refused: data: URLs are not fetched");
  });

  it("says when a host does not resolve", async () => {
    expect(await reasonFor("http://nowhere.test/a.png", {}, resolverOf({}))).toBe(
      "cannot resolve nowhere.test (ENOTFOUND)",
    );
  });
});

describe("media.allowPrivateNetworks: true", () => {
  it("fetches from loopback, connecting to the address the host resolved to", async () => {
    // Real DNS knows no `pictures.test`: the picture can only come through the vetted address.
    const resolve = resolverOf({ "pictures.test": ["127.0.0.1"] });

    const result = await testPictureFetcher({ allowPrivateNetworks: true }, { resolveHost: resolve }).fetch({
      kind: "image",
      url: `http://pictures.test:${port}/ok.png`,
    });

    expect(result.ok && result.picture.bytes.equals(PNG_1X1)).toBe(true);
  });
});
