/** A location in the config: object keys and array indexes, printed as `llm.providers[0].baseUrl`. */
export type KeyPath = ReadonlyArray<string | number>;

export function formatKeyPath(path: KeyPath): string {
  if (path.length === 0) return "config";
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      return index === 0 ? segment : `.${segment}`;
    })
    .join("");
}

export function problemAt(path: KeyPath, reason: string): string {
  return `${formatKeyPath(path)}: ${reason}`;
}

/**
 * Turns a JSON pointer (ajv's `instancePath`) into a key path. Segments under arrays become
 * indexes; under objects they stay keys, even when they look like numbers.
 */
export function keyPathFromPointer(pointer: string, data: unknown): Array<string | number> {
  if (pointer === "") return [];
  const path: Array<string | number> = [];
  let current: unknown = data;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(current)) {
      const index = Number(key);
      path.push(index);
      current = current[index];
    } else {
      path.push(key);
      current =
        current !== null && typeof current === "object"
          ? (current as Record<string, unknown>)[key]
          : undefined;
    }
  }
  return path;
}
