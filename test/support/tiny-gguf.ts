/**
 * Writes a tiny random-weight GGUF model (a few hundred KB) that llama.cpp loads and runs:
 * llama architecture, a byte-level vocabulary (every byte is a token, as SentencePiece byte
 * fallback tokens), ChatML special tokens and chat template. Its answers are nonsense but
 * printable: every token embedding carries the same large value in dimension 0, which
 * survives the final RMS norm, and the output weights of that dimension act as a per-token
 * bias that favours printable ASCII (and, most, the characters in `favour`, in order).
 *
 *   writeTinyGguf("/tmp/tiny.gguf", { favour: "rn" });
 */
import { writeFileSync } from "node:fs";

export interface TinyGgufOptions {
  /**
   * Characters the model prefers over all others, strongest first, each by a wide margin
   * (8 logits), so where a grammar leaves a choice the answer is predictable at any usual
   * temperature.
   */
  favour?: string;
  /** Seed of the random weights: the same seed writes the same file. */
  seed?: number;
  /** Context length the model declares; llama.cpp refuses a longer context. Default 4096. */
  contextLength?: number;
}

const EMBEDDING = 64;
const HEADS = 4;
const FEED_FORWARD = 128;
const LAYERS = 2;
const ALIGNMENT = 32;

/** Token ids: the 256 bytes, then <|im_start|>, <|im_end|> and GPT-2's end of text. */
const IM_END = 257;
const END_OF_TEXT = 258;
const VOCABULARY = 259;

/** llama.cpp token types. */
const TOKEN_TYPE = { normal: 1, control: 3 } as const;

const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + " +
  "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** GGUF metadata value types. */
const GGUF_TYPE = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 } as const;

type MetadataValue =
  | { type: "uint32" | "int32" | "float32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "strings"; value: string[] }
  | { type: "int32s"; value: number[] };

interface Tensor {
  name: string;
  /** GGUF order: the fastest-varying dimension first. */
  shape: number[];
  data: Float32Array;
}

export function writeTinyGguf(path: string, options: TinyGgufOptions = {}): void {
  writeFileSync(path, tinyGguf(options));
}

export function tinyGguf(options: TinyGgufOptions = {}): Buffer {
  const random = seededRandom(options.seed ?? 1);
  const tokens = [...byteLevelAlphabet(), "<|im_start|>", "<|im_end|>", "<|endoftext|>"];
  const types = tokens.map((_, id) => (id < 256 ? TOKEN_TYPE.normal : TOKEN_TYPE.control));

  const metadata: Array<[string, MetadataValue]> = [
    ["general.architecture", { type: "string", value: "llama" }],
    ["general.name", { type: "string", value: "tiny-random-chatml" }],
    ["general.alignment", { type: "uint32", value: ALIGNMENT }],
    ["llama.context_length", { type: "uint32", value: options.contextLength ?? 4096 }],
    ["llama.embedding_length", { type: "uint32", value: EMBEDDING }],
    ["llama.block_count", { type: "uint32", value: LAYERS }],
    ["llama.feed_forward_length", { type: "uint32", value: FEED_FORWARD }],
    ["llama.attention.head_count", { type: "uint32", value: HEADS }],
    ["llama.attention.head_count_kv", { type: "uint32", value: HEADS }],
    ["llama.rope.dimension_count", { type: "uint32", value: EMBEDDING / HEADS }],
    ["llama.attention.layer_norm_rms_epsilon", { type: "float32", value: 1e-5 }],
    ["tokenizer.ggml.model", { type: "string", value: "gpt2" }],
    ["tokenizer.ggml.pre", { type: "string", value: "default" }],
    ["tokenizer.ggml.tokens", { type: "strings", value: tokens }],
    ["tokenizer.ggml.token_type", { type: "int32s", value: types }],
    // No merges: every byte stays its own token.
    ["tokenizer.ggml.merges", { type: "strings", value: [] }],
    ["tokenizer.ggml.bos_token_id", { type: "uint32", value: END_OF_TEXT }],
    ["tokenizer.ggml.eos_token_id", { type: "uint32", value: IM_END }],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: false }],
    ["tokenizer.chat_template", { type: "string", value: CHATML_TEMPLATE }],
  ];
  return encode(metadata, tensors(random, outputBias(options.favour ?? "")));
}

/** Per-token logit bias: printable ASCII likely, favoured characters likelier, the rest unlikely. */
function outputBias(favour: string): Float32Array {
  const bias = new Float32Array(VOCABULARY).fill(-12);
  for (let byte = 0x20; byte < 0x7f; byte++) bias[byte] = 4;
  [...favour].forEach((char, rank) => {
    bias[char.charCodeAt(0)] = 4 + 8 * (favour.length - rank);
  });
  bias[IM_END] = -6;
  return bias;
}

function tensors(random: () => number, bias: Float32Array): Tensor[] {
  const normal = (count: number, scale: number) =>
    Float32Array.from({ length: count }, () => (random() * 2 - 1) * scale);
  const ones = (count: number) => new Float32Array(count).fill(1);

  // Dimension 0 of every embedding is large and the same for all tokens: after RMS norm it
  // dominates the hidden state, so output weight [token, 0] works as that token's bias.
  const embeddings = normal(EMBEDDING * VOCABULARY, 0.02);
  for (let token = 0; token < VOCABULARY; token++) embeddings[token * EMBEDDING] = 4;
  const output = normal(EMBEDDING * VOCABULARY, 0.02);
  const normalisedDimension = Math.sqrt(EMBEDDING);
  for (let token = 0; token < VOCABULARY; token++) {
    output[token * EMBEDDING] = bias[token]! / normalisedDimension;
  }

  const list: Tensor[] = [
    { name: "token_embd.weight", shape: [EMBEDDING, VOCABULARY], data: embeddings },
    { name: "output_norm.weight", shape: [EMBEDDING], data: ones(EMBEDDING) },
    { name: "output.weight", shape: [EMBEDDING, VOCABULARY], data: output },
  ];
  for (let layer = 0; layer < LAYERS; layer++) {
    const block = (name: string, shape: number[], data: Float32Array) =>
      list.push({ name: `blk.${layer}.${name}.weight`, shape, data });
    block("attn_norm", [EMBEDDING], ones(EMBEDDING));
    for (const name of ["attn_q", "attn_k", "attn_v", "attn_output"]) {
      block(name, [EMBEDDING, EMBEDDING], normal(EMBEDDING * EMBEDDING, 0.02));
    }
    block("ffn_norm", [EMBEDDING], ones(EMBEDDING));
    block("ffn_gate", [EMBEDDING, FEED_FORWARD], normal(EMBEDDING * FEED_FORWARD, 0.02));
    block("ffn_up", [EMBEDDING, FEED_FORWARD], normal(EMBEDDING * FEED_FORWARD, 0.02));
    block("ffn_down", [FEED_FORWARD, EMBEDDING], normal(EMBEDDING * FEED_FORWARD, 0.02));
  }
  return list;
}

/** GGUF v3: header, metadata, tensor infos, then the aligned tensor data (all F32). */
function encode(metadata: Array<[string, MetadataValue]>, list: Tensor[]): Buffer {
  const out = new ByteWriter();
  out.bytes(Buffer.from("GGUF", "ascii"));
  out.u32(3);
  out.u64(list.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const tensor of list) {
    out.string(tensor.name);
    out.u32(tensor.shape.length);
    for (const dimension of tensor.shape) out.u64(dimension);
    out.u32(0); // GGML_TYPE_F32
    out.u64(offset);
    offsets.push(offset);
    offset = align(offset + tensor.data.byteLength);
  }
  out.padTo(align(out.length));
  const dataStart = out.length;
  for (const [index, tensor] of list.entries()) {
    out.padTo(dataStart + offsets[index]!);
    out.bytes(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
  }
  return out.toBuffer();
}

function writeValue(out: ByteWriter, value: MetadataValue): void {
  switch (value.type) {
    case "uint32":
      out.u32(GGUF_TYPE.uint32);
      out.u32(value.value);
      return;
    case "int32":
      out.u32(GGUF_TYPE.int32);
      out.i32(value.value);
      return;
    case "float32":
      out.u32(GGUF_TYPE.float32);
      out.f32(value.value);
      return;
    case "bool":
      out.u32(GGUF_TYPE.bool);
      out.bytes(Buffer.from([value.value ? 1 : 0]));
      return;
    case "string":
      out.u32(GGUF_TYPE.string);
      out.string(value.value);
      return;
    case "strings":
      out.u32(GGUF_TYPE.array);
      out.u32(GGUF_TYPE.string);
      out.u64(value.value.length);
      for (const item of value.value) out.string(item);
      return;
    case "int32s":
      out.u32(GGUF_TYPE.array);
      out.u32(GGUF_TYPE.int32);
      out.u64(value.value.length);
      for (const item of value.value) out.i32(item);
      return;
  }
}

function align(offset: number): number {
  return Math.ceil(offset / ALIGNMENT) * ALIGNMENT;
}

/** Little-endian append-only buffer. */
class ByteWriter {
  private readonly chunks: Buffer[] = [];
  length = 0;

  bytes(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  u32(value: number): void {
    const chunk = Buffer.alloc(4);
    chunk.writeUInt32LE(value);
    this.bytes(chunk);
  }

  i32(value: number): void {
    const chunk = Buffer.alloc(4);
    chunk.writeInt32LE(value);
    this.bytes(chunk);
  }

  u64(value: number): void {
    const chunk = Buffer.alloc(8);
    chunk.writeBigUInt64LE(BigInt(value));
    this.bytes(chunk);
  }

  f32(value: number): void {
    const chunk = Buffer.alloc(4);
    chunk.writeFloatLE(value);
    this.bytes(chunk);
  }

  string(value: string): void {
    const encoded = Buffer.from(value, "utf8");
    this.u64(encoded.length);
    this.bytes(encoded);
  }

  /** Zero bytes up to `target`. */
  padTo(target: number): void {
    if (target > this.length) this.bytes(Buffer.alloc(target - this.length));
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/**
 * GPT-2's byte-level alphabet: printable Latin-1 bytes stand for themselves, the others are
 * shifted to code points from 256 on, so every byte is a visible one-character token.
 */
function byteLevelAlphabet(): string[] {
  const visible = (byte: number) =>
    (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
  let shifted = 256;
  return Array.from({ length: 256 }, (_, byte) => String.fromCodePoint(visible(byte) ? byte : shifted++));
}

/** mulberry32: small, fast and reproducible. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
