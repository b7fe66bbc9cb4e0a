export interface ModelRef {
  provider: string;
  model: string;
}

/** Splits `"provider/model"` at the first "/": `main/Qwen/Qwen2.5-7B` → main + `Qwen/Qwen2.5-7B`. */
export function parseModelRef(ref: string): ModelRef {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) {
    throw new Error(`model reference "${ref}" must look like "provider/model"`);
  }
  return { provider: ref.slice(0, slash), model: ref.slice(slash + 1) };
}

/** Names an unusable reference in failure reports as well as it can. */
export function describeRef(ref: string): ModelRef {
  try {
    return parseModelRef(ref);
  } catch {
    return { provider: ref, model: "" };
  }
}
