/**
 * The storage and cluster keys as an operator writes them: what start-up accepts,
 * and the one line per problem it refuses with — never the password in it.
 */
import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/validate.ts";

const problemsOf = (config: Record<string, unknown>): string[] => {
  const validation = validateConfig(config);
  return validation.ok ? [] : validation.problems;
};

describe("storage.url and cluster.*", () => {
  it("accepts PostgreSQL storage with a cluster over Redis", () => {
    expect(
      problemsOf({
        storage: { url: "postgresql://tsumugi:s3cret@10.0.0.4:5432/tsumugi" },
        cluster: {
          redisUrl: "rediss://:s3cret@10.0.0.5:6380/2",
          secret: "0123456789abcdef0123456789abcdef",
          instanceId: "edge-1",
          leaseMs: 3000,
        },
      }),
    ).toEqual([]);
  });

  it("refuses a cluster on SQLite: the instances must share one database", () => {
    expect(
      problemsOf({ cluster: { redisUrl: "redis://127.0.0.1:6379", secret: "0123456789abcdef" } }),
    ).toEqual(["cluster.redisUrl: needs a postgres:// storage.url: the instances share one database"]);
  });

  it("refuses a cluster without a secret, or one short enough to guess: anyone on Redis could speak for an instance", () => {
    const storage = { url: "postgres://tsumugi@10.0.0.4/tsumugi" };
    expect(problemsOf({ storage, cluster: { redisUrl: "redis://127.0.0.1:6379" } })).toEqual([
      "cluster.secret: required with cluster.redisUrl: it signs every message between instances (e.g. the output of `openssl rand -hex 32`)",
    ]);
    expect(
      problemsOf({ storage, cluster: { redisUrl: "redis://127.0.0.1:6379", secret: "hunter2" } }),
    ).toEqual(["cluster.secret: too short: at least 16 characters"]);
  });

  it("names the key of a misspelt url, an odd instance name or a lease too short to renew", () => {
    const problems = problemsOf({
      storage: { url: "postgress://u:hunter2@db/x" },
      cluster: { redisUrl: "http://:hunter2@cache:6379", instanceId: "Edge One", leaseMs: 200 },
    });
    expect(problems.map((problem) => problem.split(":")[0])).toEqual(
      expect.arrayContaining(["storage.url", "cluster.redisUrl", "cluster.instanceId", "cluster.leaseMs"]),
    );
    expect(problems.join("\n")).not.toContain("hunter2");
  });
});
