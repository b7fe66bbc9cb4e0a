import { currentLang } from "../i18n.ts";

export type ProviderType = "openai-compatible" | "openai" | "gemini" | "anthropic";

/** A provider people here use: its wire type, base URL and an example model; all can be changed. */
export interface ProviderPreset {
  id: string;
  /** Its name in Chinese and in English. */
  name: [string, string];
  type: ProviderType;
  baseUrl: string;
  model: string;
  /** Runs on this machine: no API key needed. */
  local?: boolean;
}

/**
 * Base URLs from each provider's OpenAI-compatible API docs (the `/v1`-style root the chat
 * completions path is appended to); the models are examples the providers list.
 */
export const PROVIDER_PRESETS: ProviderPreset[] = [
  {
    id: "siliconflow",
    name: ["硅基流动 SiliconFlow", "SiliconFlow"],
    type: "openai-compatible",
    baseUrl: "https://api.siliconflow.cn/v1",
    model: "deepseek-ai/DeepSeek-V3",
  },
  {
    id: "deepseek",
    name: ["DeepSeek 深度求索", "DeepSeek"],
    type: "openai-compatible",
    baseUrl: "https://api.deepseek.com/v1",
    model: "deepseek-chat",
  },
  {
    id: "moonshot",
    name: ["月之暗面 Kimi", "Moonshot (Kimi)"],
    type: "openai-compatible",
    baseUrl: "https://api.moonshot.cn/v1",
    model: "moonshot-v1-8k",
  },
  {
    id: "dashscope",
    name: ["阿里云百炼 通义千问", "DashScope (Qwen)"],
    type: "openai-compatible",
    baseUrl: "https://dashscope.aliyuncs.com/compatible-mode/v1",
    model: "qwen-plus",
  },
  {
    id: "zhipu",
    name: ["智谱 GLM", "Zhipu GLM"],
    type: "openai-compatible",
    baseUrl: "https://open.bigmodel.cn/api/paas/v4",
    model: "glm-4-flash",
  },
  {
    id: "openrouter",
    name: ["OpenRouter", "OpenRouter"],
    type: "openai-compatible",
    baseUrl: "https://openrouter.ai/api/v1",
    model: "deepseek/deepseek-chat",
  },
  {
    id: "ollama",
    name: ["Ollama（本机）", "Ollama (this machine)"],
    type: "openai-compatible",
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "qwen2.5:7b",
    local: true,
  },
  { id: "openai", name: ["OpenAI", "OpenAI"], type: "openai", baseUrl: "", model: "gpt-4o-mini" },
  {
    id: "gemini",
    name: ["Google Gemini", "Google Gemini"],
    type: "gemini",
    baseUrl: "",
    model: "gemini-2.0-flash",
  },
  {
    id: "anthropic",
    name: ["Anthropic Claude", "Anthropic Claude"],
    type: "anthropic",
    baseUrl: "",
    model: "claude-3-5-haiku-latest",
  },
  {
    id: "other",
    name: ["其他 OpenAI 兼容接口", "Other OpenAI-compatible API"],
    type: "openai-compatible",
    baseUrl: "",
    model: "",
  },
];

export function presetName(preset: ProviderPreset): string {
  return preset.name[currentLang() === "zh" ? 0 : 1];
}
