import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * A Lua script run by its SHA1 (EVALSHA): each call sends the hash, not the whole script. A
 * server that does not hold it yet (just started, flushed) answers NOSCRIPT, and the call is
 * sent once more with the script, which loads it.
 */
export class RedisScript {
  readonly #sha: string;

  constructor(private readonly lua: string) {
    this.#sha = createHash("sha1").update(lua).digest("hex");
  }

  async run(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
      return redis.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}
