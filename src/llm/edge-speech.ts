import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A Mandarin voice of Edge's read-aloud service, for a persona that names none. */
export const EDGE_DEFAULT_VOICE = "zh-CN-XiaoxiaoNeural";
/** The format node-edge-tts asks for by default, which the read-aloud service always serves. */
const EDGE_FORMAT = "audio-24khz-48kbitrate-mono-mp3";
/** That format's constant bitrate. */
export const EDGE_BITS_PER_SECOND = 48_000;
/** node-edge-tts's own limit for the whole synthesis; the caller's signal may end it sooner. */
const EDGE_TIMEOUT_MS = 20_000;

export interface EdgeSpeechOptions {
  voice: string | undefined;
  proxy: string | undefined;
  signal: AbortSignal;
}

/**
 * Speaks `text` with Edge's read-aloud voices through node-edge-tts (a WebSocket to Microsoft's
 * service, so it needs the internet). The package writes to a file: a temporary folder of our
 * own, removed afterwards. The voice's locale is the `lang` of the SSML it sends.
 */
export async function edgeSpeech(
  text: string,
  options: EdgeSpeechOptions,
): Promise<{ audio: Buffer; voice: string }> {
  options.signal.throwIfAborted();
  const voice = options.voice ?? EDGE_DEFAULT_VOICE;
  // Loaded on the first voice reply, not at start-up.
  const { EdgeTTS } = await import("node-edge-tts");
  const tts = new EdgeTTS({
    voice,
    lang: voice.split("-").slice(0, 2).join("-"),
    outputFormat: EDGE_FORMAT,
    timeout: EDGE_TIMEOUT_MS,
    ...(options.proxy === undefined ? {} : { proxy: options.proxy }),
  });
  const folder = await mkdtemp(join(tmpdir(), "tsumugi-edge-tts-"));
  try {
    const file = join(folder, "voice.mp3");
    const aborted = new Promise<never>((_, reject) => {
      options.signal.addEventListener("abort", () => reject(options.signal.reason), { once: true });
    });
    // Nobody listens once the race is over: a later abort must not be an unhandled rejection.
    aborted.catch(() => {});
    await Promise.race([
      tts.ttsPromise(text, file).catch((error: unknown) => {
        // The package rejects with bare strings ("Timed out") or socket errors.
        throw new Error(`Edge read-aloud failed: ${error instanceof Error ? error.message : String(error)}`);
      }),
      aborted,
    ]);
    const audio = await readFile(file);
    if (audio.length === 0) throw new Error("Edge read-aloud returned no audio");
    return { audio, voice };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
