/**
 * Two instances over PostgreSQL and Redis, each a real process, and the ways one of them stops
 * on an operator's bad day (fenced leases). In every scene each trigger is answered exactly once,
 * within 15 s of being sent, by an instance that is alive, with the history the other stored.
 *
 * 1. The owner hangs and is SIGKILLed; the account reconnects to the survivor at once with a
 *    message 50 ms later: the message is routed to the dying owner's inbox, where Redis hands
 *    it to the read the owner left waiting, and survives it (reliable inbox).
 * 2. SIGSTOP for longer than two leases, then SIGCONT: the survivor takes the session over;
 *    the woken instance's turn is refused by the store (fenced lease) and sends nothing.
 * 3. Redis restarts while a message and its reply are handed between the instances.
 * 4. Redis restarts (empty) after the owner was SIGKILLed mid-turn, before the take-over: the
 *    survivor still takes the dead instance's turn over (from the database).
 * 5. PostgreSQL restarts while a turn waits on the model.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createPostgresDatabase, startPostgresServer } from "../support/postgres-server.ts";
import { startRedisServer } from "../support/redis-server.ts";
import { LEASE_MS, TwoInstanceScene as Scene, sharedStorage } from "../support/two-instances.ts";
import { Gate, sleep, waitFor } from "../support/wait.ts";

describe("two instances when one of them stops", () => {
  let scene: Scene | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await scene?.dispose();
    scene = undefined;
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it("answers a message handed to an owner that hangs and is SIGKILLed, sent 50 ms after the account moved", async () => {
    scene = await Scene.start();
    const group = await scene.startChat(await sharedStorage());
    // Its log line of that send is read before it hangs: a frozen or killed process's unread
    // output is lost, and the count below would miss a send that happened.
    await waitFor(() => scene?.sentBy(group).a === 1, 5_000, "a's send to be logged");

    // a owns the chat and dies: it hangs first (its sockets open, its inbox read still waiting
    // in Redis), the account reconnects to b at once and says something, then a is killed.
    const a = scene.bot("a");
    a.child.kill("SIGSTOP");
    await scene.reconnectTo("b");
    const reconnectedAt = Date.now();
    await sleep(50);
    scene.trigger(group, "第二句：还在吗");
    expect(Date.now() - reconnectedAt).toBeLessThan(100);
    await sleep(300); // b hands the message to a's inbox: a's read takes it
    await a.kill("SIGKILL");

    await scene.allAnswered();
    await scene.expectEachAnsweredOnce();
    expect(scene.sentBy(group)).toEqual({ a: 1, b: 1 });
    expect(scene.sawWithHistory("第二句：还在吗", "第一句：早上好")).toBe(true);
  }, 120_000);

  it("refuses the turn of an instance woken after SIGSTOP: the taker answers, the woken one sends nothing", async () => {
    scene = await Scene.start();
    const group = await scene.startChat(await sharedStorage());

    // a thinks about the next trigger; it freezes with its sockets open.
    const a = scene.bot("a");
    scene.gates.set("慢慢想", new Gate());
    scene.trigger(group, "慢慢想：周末去哪");
    await waitFor(() => scene!.llm.requests.some((request) => request.promptText.includes("慢慢想")), 10_000);
    a.child.kill("SIGSTOP");
    const frozenAt = Date.now();
    await scene.reconnectTo("b");
    scene.trigger(group, "第三句：有人吗");
    // The model answers a's question while a is frozen: a reads it only when it wakes.
    scene.gates.get("慢慢想")!.open();

    await sleep(Math.max(0, frozenAt + 2 * LEASE_MS + 1_000 - Date.now()));
    a.child.kill("SIGCONT");
    await scene.allAnswered();
    await scene.expectEachAnsweredOnce();
    // The woken instance sent nothing more: both later triggers were answered by b.
    expect(scene.sentBy(group)).toEqual({ a: 1, b: 2 });
    await waitFor(
      () => a.logs.some((line) => line.msg.startsWith("this instance was paused longer than a lease")),
      10_000,
    );
    expect(
      a.logs.some((line) => line.msg.startsWith("turn stopped: another instance holds its session now")),
    ).toBe(true);
    expect(scene.sawWithHistory("第三句：有人吗", "第一句：早上好")).toBe(true);

    // The conversation goes on through b.
    scene.trigger(group, "第四句：好了");
    await scene.allAnswered();
    await scene.expectEachAnsweredOnce();
  }, 120_000);

  it("answers once when Redis restarts while a message and its reply are handed between the instances", async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    const { databaseUrl } = await sharedStorage();
    scene = await Scene.start();
    const group = await scene.startChat({ databaseUrl, redisUrl: redis.url, keyPrefix: "fencing" });

    // The account moves to b while a owns the chat: b hands the next message to a, whose reply
    // goes back through b's connection. Redis goes away while a thinks about it, and a's reply
    // is ready before Redis is back (empty): a must keep trying, without locking itself up, until
    // its connection is back.
    scene.gates.set("慢慢想", new Gate());
    await scene.reconnectTo("b");
    scene.trigger(group, "慢慢想：周末去哪");
    await waitFor(() => scene!.llm.requests.some((request) => request.promptText.includes("慢慢想")), 10_000);
    await redis.stop();
    scene.gates.get("慢慢想")!.open();
    await sleep(1_500);
    const again = await startRedisServer({ port: redis.port });
    cleanups.push(() => again.stop());

    await scene.allAnswered();
    await scene.expectConversationGoesOn(group);
  }, 120_000);

  it("takes over the turn of an owner SIGKILLed mid-turn when Redis restarts empty before the take-over", async () => {
    const redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    const { databaseUrl } = await sharedStorage();
    scene = await Scene.start();
    const group = await scene.startChat({ databaseUrl, redisUrl: redis.url, keyPrefix: "fencing" });
    await waitFor(() => scene?.sentBy(group).a === 1, 5_000, "a's send to be logged");

    // a thinks about the next trigger (its turn is recorded as running) and is killed; Redis
    // restarts with nothing in it before b notices a is gone, and the account moves to b.
    scene.gates.set("慢慢想", new Gate());
    scene.trigger(group, "慢慢想：周末去哪");
    await waitFor(() => scene!.llm.requests.some((request) => request.promptText.includes("慢慢想")), 10_000);
    await scene.bot("a").kill("SIGKILL");
    await redis.stop();
    const again = await startRedisServer({ port: redis.port });
    cleanups.push(() => again.stop());
    await scene.reconnectTo("b");
    scene.gates.get("慢慢想")!.open();

    await scene.allAnswered();
    await scene.expectEachAnsweredOnce();
    expect(scene.sentBy(group)).toEqual({ a: 1, b: 1 });
    expect(
      scene
        .bot("b")
        .logs.some((line) => line.msg.startsWith("Redis lost its data (restarted without persistence)")),
    ).toBe(true);
    await scene.expectConversationGoesOn(group);
  }, 120_000);

  it("answers once when PostgreSQL restarts while a turn waits on the model", async () => {
    const postgres = await startPostgresServer();
    cleanups.push(() => postgres.stop());
    const { redisUrl, keyPrefix } = await sharedStorage();
    const databaseUrl = await createPostgresDatabase(postgres.adminUrl, "fencing");
    scene = await Scene.start();
    const group = await scene.startChat({ databaseUrl, redisUrl, keyPrefix });

    scene.gates.set("慢慢想", new Gate());
    scene.trigger(group, "慢慢想：周末去哪");
    await waitFor(() => scene!.llm.requests.some((request) => request.promptText.includes("慢慢想")), 10_000);
    await postgres.restart();
    scene.gates.get("慢慢想")!.open();

    await scene.allAnswered();
    await scene.expectConversationGoesOn(group);
  }, 120_000);
});
