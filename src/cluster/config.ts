import { type Static, Type } from "@sinclair/typebox";
import { formattedString, group, milliseconds } from "../schema/fields.ts";

/** The `cluster` config key: several instances sharing the work over Redis. */
export const clusterSchema = group(
  "Several instances sharing the work over Redis (needs a postgres:// storage.url). Empty redisUrl: this instance works alone.",
  {
    redisUrl: formattedString("redis-url", {
      default: "",
      writeOnly: true,
      description:
        'Redis that the instances coordinate through, e.g. "redis://:password@10.0.0.5:6379/0"; empty: no cluster.',
    }),
    secret: Type.String({
      default: "",
      writeOnly: true,
      description:
        'Shared by every instance and by nobody else: each message between instances is signed with it (HMAC-SHA256) and one without a valid signature is refused. Required with redisUrl, at least 16 characters, e.g. the output of "openssl rand -hex 32", best kept in an environment variable.',
    }),
    instanceId: formattedString("instance-id", {
      default: "",
      description:
        "This instance's name among the others (1-64 lowercase letters, digits, _ or -); empty: the host name and process id. A fixed name lets a restarted instance settle its own interrupted turns at once.",
    }),
    leaseMs: milliseconds(
      "How long an instance's claim on a session or account lasts without renewal: a dead instance's work is taken over after about this long",
      5_000,
      1_000,
    ),
    keyPrefix: formattedString("plugin-id", {
      default: "tsumugi",
      description: "Prefix of every Redis key, so several clusters can share one Redis.",
    }),
  },
);

export type ClusterSettings = Static<typeof clusterSchema>;
