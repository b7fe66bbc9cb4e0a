import { isForwardWs } from "../adapters/config.ts";
import { findPriceProblems } from "../llm/prices.ts";
import { findMcpProblems } from "../mcp/config.ts";
import { findScheduleProblems } from "../reminders/schedules.ts";
import { formatKeyPath, type KeyPath, problemAt } from "../schema/key-path.ts";
import { findSearchProblems } from "../search/config.ts";
import { isLoopbackHost } from "../server/request-access.ts";
import type { TsumugiConfig } from "./schema.ts";

/** Rules that involve more than one key, checked once the config matches the schema. */
export function findCrossFieldProblems(config: TsumugiConfig): string[] {
  return [
    ...findDuplicateIds(
      config.adapters.map((adapter) => adapter.id),
      (index) => ["adapters", index, "id"],
    ),
    ...findDuplicateIds(
      config.llm.providers.map((provider) => provider.id),
      (index) => ["llm", "providers", index, "id"],
    ),
    ...findSharedAdapterPaths(config),
    ...findUnknownProviders(config),
    ...findInvertedRanges(config),
    ...(isLoopbackHost(config.server.host) || config.server.token !== ""
      ? []
      : [problemAt(["server", "token"], "required when server.host is not a loopback address")]),
    ...findUnauthenticatedAdapters(config),
    ...findQqOfficialWithoutSecret(config),
    ...findPriceProblems(config.llm.prices),
    ...findMcpProblems(config.mcp),
    ...findSearchProblems(config.search),
    ...findClusterSecretProblems(config),
    ...findScheduleProblems(config.schedules),
    ...(config.cluster.redisUrl === "" || /^postgres(ql)?:/i.test(config.storage.url)
      ? []
      : [
          problemAt(
            ["cluster", "redisUrl"],
            "needs a postgres:// storage.url: the instances share one database",
          ),
        ]),
  ];
}

/**
 * Reverse-ws and http adapters listen on server.port, so beyond loopback each needs its own
 * credential: an access token for the WebSocket handshake, the HMAC secret for event POSTs
 * (what OneBot v11 implementations sign them with). Forward-ws only dials out.
 */
function findUnauthenticatedAdapters(config: TsumugiConfig): string[] {
  if (isLoopbackHost(config.server.host)) return [];
  const why = "required when server.host is not a loopback address";
  return config.adapters.flatMap((adapter, index) => {
    if (adapter.type !== "onebot") return [];
    if (adapter.mode === "reverse-ws" && adapter.accessToken === "") {
      return [
        problemAt(
          ["adapters", index, "accessToken"],
          `${why} (anyone who can reach the port could connect as the QQ account)`,
        ),
      ];
    }
    if (adapter.mode === "http" && adapter.secret === "") {
      return [
        problemAt(
          ["adapters", index, "secret"],
          `${why} (anyone who can reach the port could post events as the QQ account)`,
        ),
      ];
    }
    return [];
  });
}

/** A QQ official bot cannot tell the platform's events from forged ones, nor send, without its AppSecret. */
function findQqOfficialWithoutSecret(config: TsumugiConfig): string[] {
  return config.adapters.flatMap((adapter, index) =>
    adapter.type === "qq-official" && adapter.secret === ""
      ? [
          problemAt(
            ["adapters", index, "secret"],
            "required: the AppSecret checks the signature of every event and buys access tokens",
          ),
        ]
      : [],
  );
}

/** Shortest cluster.secret accepted: a short one could be guessed from a signed message. */
const MIN_CLUSTER_SECRET = 16;

/**
 * Instances trust each other's messages only when signed with cluster.secret: without it,
 * anyone who can write to Redis could change the config of every instance or run admin
 * commands, so a cluster does not start.
 */
function findClusterSecretProblems(config: TsumugiConfig): string[] {
  const { redisUrl, secret } = config.cluster;
  if (redisUrl === "" || secret.length >= MIN_CLUSTER_SECRET) return [];
  return [
    problemAt(
      ["cluster", "secret"],
      secret === ""
        ? "required with cluster.redisUrl: it signs every message between instances (e.g. the output of `openssl rand -hex 32`)"
        : `too short: at least ${MIN_CLUSTER_SECRET} characters`,
    ),
  ];
}

function findDuplicateIds(ids: string[], pathOf: (index: number) => KeyPath): string[] {
  return ids.flatMap((id, index) =>
    ids.indexOf(id) < index ? [problemAt(pathOf(index), `duplicate id "${id}"`)] : [],
  );
}

/** Reverse-ws and http adapters are served on server.port, so two must not share a path. */
function findSharedAdapterPaths(config: TsumugiConfig): string[] {
  const owners = new Map<string, number>();
  return config.adapters.flatMap((adapter, index) => {
    if (isForwardWs(adapter)) return [];
    const owner = owners.get(adapter.path);
    if (owner === undefined) {
      owners.set(adapter.path, index);
      return [];
    }
    return [problemAt(["adapters", index, "path"], `already used by adapters[${owner}]`)];
  });
}

function findUnknownProviders(config: TsumugiConfig): string[] {
  const providerIds = new Set(config.llm.providers.map((provider) => provider.id));
  return Object.entries(config.llm.models).flatMap(([task, references]) =>
    references.flatMap((reference, index) => {
      const providerId = reference.slice(0, reference.indexOf("/"));
      return providerIds.has(providerId)
        ? []
        : [problemAt(["llm", "models", task, index], `unknown provider "${providerId}"`)];
    }),
  );
}

function findInvertedRanges(config: TsumugiConfig): string[] {
  const { realtime, digest } = config.chat;
  return [
    ...notBelow(
      ["chat", "realtime", "maxWindowMs"],
      realtime.maxWindowMs,
      ["chat", "realtime", "windowMs"],
      realtime.windowMs,
    ),
    ...notBelow(
      ["chat", "digest", "maxMessages"],
      digest.maxMessages,
      ["chat", "digest", "minMessages"],
      digest.minMessages,
    ),
    ...config.adapters.flatMap((adapter, index) =>
      isForwardWs(adapter)
        ? notBelow(
            ["adapters", index, "reconnect", "maxDelayMs"],
            adapter.reconnect.maxDelayMs,
            ["adapters", index, "reconnect", "minDelayMs"],
            adapter.reconnect.minDelayMs,
          )
        : [],
    ),
  ];
}

function notBelow(path: KeyPath, value: number, boundPath: KeyPath, bound: number): string[] {
  return value < bound ? [problemAt(path, `must be >= ${formatKeyPath(boundPath)} (${bound})`)] : [];
}
