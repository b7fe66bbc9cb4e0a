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
