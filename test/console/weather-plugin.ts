import { classPlugin } from "../plugins/plugin-fixtures.ts";

/** A plugin with one tool whose answer depends on its config. */
export const WEATHER_PLUGIN = classPlugin(`
  @Tool("get_weather", {
    description: "查询城市天气",
    parameters: [{ name: "city", type: "string", description: "城市", required: true }],
  })
  async weather(args: { city: string }) {
    const units = (this.config as { units: string }).units;
    return { city: args.city, forecast: units === "f" ? "77°F" : "25°C" };
  }`);

export const WEATHER_MANIFEST = {
  name: "Weather",
  description: "天气查询",
  config: {
    type: "object",
    properties: {
      units: { type: "string", enum: ["c", "f"], default: "c", description: "温度单位" },
      max_cities: { type: "integer", minimum: 1, default: 3, description: "一次最多查几个城市" },
    },
    additionalProperties: false,
  },
};

/** A plugin whose tool sends a voice message itself (a local WAV file) and ends the turn. */
export function singerPlugin(wavFile: string): string {
  return classPlugin(
    `
  @Tool("sing", { description: "唱一句歌", parameters: [] })
  async sing(_args: object, ctx: { bot: { send(event: unknown, message: unknown): Promise<unknown> }; event: unknown }) {
    await ctx.bot.send(ctx.event, [Voice(${JSON.stringify(`file://${wavFile}`)})]);
  }`,
    "Plugin, Tool, Voice",
  );
}

/** A short 440 Hz tone as 16-bit mono PCM WAV. */
export function toneWav(seconds = 0.3, rate = 8_000): Buffer {
  const samples = Math.round(seconds * rate);
  const buffer = Buffer.alloc(44 + samples * 2);
  buffer.write("RIFF", 0);
  buffer.writeUInt32LE(36 + samples * 2, 4);
  buffer.write("WAVEfmt ", 8);
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(rate, 24);
  buffer.writeUInt32LE(rate * 2, 28);
  buffer.writeUInt16LE(2, 32);
  buffer.writeUInt16LE(16, 34);
  buffer.write("data", 36);
  buffer.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) {
    buffer.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 12_000), 44 + i * 2);
  }
  return buffer;
}
