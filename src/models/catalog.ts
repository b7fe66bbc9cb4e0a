/** A model Tsumugi can download by name: where from, and what the file must be. */
export interface CatalogModel {
  /** What `llm.providers[].model` and `npm run model -- pull` accept. */
  name: string;
  title: string;
  description: string;
  url: string;
  /** File name under the data directory's `models/` folder. */
  file: string;
  sizeBytes: number;
  sha256: string;
}

/**
 * Recommended small instruct models. URLs name a fixed revision, so the checksum stays true
 * however the upstream repository changes.
 */
export const RECOMMENDED_MODELS: CatalogModel[] = [
  {
    name: "qwen2.5-1.5b-instruct-q4",
    title: "Qwen2.5 1.5B Instruct (Q4_K_M)",
    description: "Small multilingual chat model, good at Chinese; about 1.1 GB, runs on 2 CPU cores.",
    url: "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/91cad51170dc346986eccefdc2dd33a9da36ead9/qwen2.5-1.5b-instruct-q4_k_m.gguf",
    file: "qwen2.5-1.5b-instruct-q4_k_m.gguf",
    sizeBytes: 1_117_320_736,
    sha256: "6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e",
  },
];

export const DEFAULT_LOCAL_MODEL = RECOMMENDED_MODELS[0]!.name;

const HUGGING_FACE = "https://huggingface.co";

/**
 * Where a catalog file is downloaded from given a mirror base URL (HF_ENDPOINT-style: a mirror
 * with Hugging Face's paths, `/<repo>/resolve/<revision>/<file>`); empty: Hugging Face itself.
 */
export function mirroredUrl(url: string, mirror: string): string {
  const base = mirror.trim().replace(/\/+$/, "");
  if (base === "" || !url.startsWith(`${HUGGING_FACE}/`)) return url;
  return base + url.slice(HUGGING_FACE.length);
}

/** The host downloads come from with this mirror, to show before a download. */
export function downloadOrigin(mirror: string): string {
  return mirror.trim().replace(/\/+$/, "") || HUGGING_FACE;
}
