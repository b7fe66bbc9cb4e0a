/**
 * A SILK voice message an attacker crafts: 1 MB of empty packets. Each decodes to 20 ms of
 * concealment, so the file became 480 MB of PCM on the event loop (12.9 s held) before its
 * length was checked. Its packets are counted first now, and a voice within the bound is
 * decoded in a worker thread with a memory and time limit.
 */
import { describe, expect, it } from "vitest";
import { MAX_SILK_SECONDS, playableAudio, silkPacketCount } from "../../src/media/voice-audio.ts";
import { lagDuring } from "../support/event-loop-lag.ts";
import { silkTone } from "../support/voices.ts";

/** QQ's header (`\x02#!SILK_V3`) and then half a million packets of length 0. */
function emptyPacketBomb(bytes = 1024 * 1024): Buffer {
  return Buffer.concat([Buffer.from("\x02#!SILK_V3", "latin1"), Buffer.alloc(bytes)]);
}

describe("a SILK voice message of empty packets", { timeout: 60_000 }, () => {
  it("is refused by its packet count, without decoding, the event loop free", async () => {
    const { value, lagMs } = await lagDuring(() => playableAudio(emptyPacketBomb()));
    expect(value).toEqual({
      ok: false,
      reason: `SILK over ${MAX_SILK_SECONDS} s (more than 9000 packets), not decoded`,
    });
    expect(lagMs).toBeLessThan(100);
  });

  it("counts packets as their lengths say, stopping past the bound", async () => {
    const tone = await silkTone(2);
    expect(silkPacketCount(tone)).toBe(100);
    expect(silkPacketCount(emptyPacketBomb())).toBe(9001);
  });

  it("still decodes a real voice message of a minute (QQ's longest), off the event loop", async () => {
    const tone = await silkTone(60);
    const { value, lagMs } = await lagDuring(() => playableAudio(tone));
    expect(value.ok).toBe(true);
    if (!value.ok) return;
    expect(value.audio.mime).toBe("audio/wav");
    // The encoder ends with a packet or two of its own.
    expect(value.audio.durationMs).toBeGreaterThanOrEqual(60_000);
    expect(value.audio.durationMs).toBeLessThan(60_100);
    expect(value.audio.bytes.length).toBeGreaterThanOrEqual(44 + 60_000 * 48);
    expect(value.audio.bytes.length).toBeLessThanOrEqual(44 + value.audio.durationMs! * 48);
    // The decode itself (a few hundred ms of WebAssembly) ran in the worker.
    expect(lagMs).toBeLessThan(150);
  });
});
