import { spawn } from "node:child_process";

export interface SpeechSettings {
  /** The espeak-ng program. */
  command: string;
  voice: string;
  /** Words per minute. */
  speed: number;
}

/**
 * Speaks `text` with espeak-ng (the Debian package `espeak-ng`) and returns a WAV file. The
 * text goes through stdin, so nothing in it is read as an option.
 */
export async function synthesize(
  text: string,
  settings: SpeechSettings,
  signal: AbortSignal,
): Promise<Buffer> {
  const args = ["--stdout", "--stdin", "-v", settings.voice, "-s", String(settings.speed)];
  const child = spawn(settings.command, args, { signal, stdio: ["pipe", "pipe", "pipe"] });
  const audio: Buffer[] = [];
  const errors: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => audio.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => errors.push(chunk));
  // A program that never started closes stdin at once; its own error says why.
  child.stdin.on("error", () => {});
  child.stdin.end(text);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") return reject(error);
      reject(
        new Error(
          `${settings.command} is not installed: install the Debian package espeak-ng (apt-get install espeak-ng) or set plugins.config.voice_plugin.command`,
        ),
      );
    });
    child.once("close", resolve);
  });
  if (code !== 0) {
    const why = Buffer.concat(errors).toString("utf8").trim();
    throw new Error(`${settings.command} exited with code ${code}${why ? `: ${why}` : ""}`);
  }
  return withSizes(Buffer.concat(audio));
}

/**
 * espeak-ng writing to a pipe cannot go back to fill in the RIFF and data sizes, so it writes
 * placeholders; players that trust them read past the end. The sizes are set from the bytes.
 */
function withSizes(wav: Buffer): Buffer {
  if (wav.length < 12 || wav.toString("ascii", 0, 4) !== "RIFF" || wav.toString("ascii", 8, 12) !== "WAVE") {
    throw new Error("espeak-ng did not write a WAV file");
  }
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const size = wav.readUInt32LE(offset + 4);
    if (wav.toString("ascii", offset, offset + 4) === "data") {
      if (wav.length - offset - 8 <= 0) throw new Error("espeak-ng produced no audio");
      wav.writeUInt32LE(wav.length - 8, 4);
      wav.writeUInt32LE(wav.length - offset - 8, offset + 4);
      return wav;
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error("espeak-ng wrote a WAV file without audio data");
}
