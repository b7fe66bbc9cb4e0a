import { closeSync, existsSync, openSync, readdirSync, readSync, rmSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { CatalogModel } from "./catalog.ts";

/** A model file that cannot be used: missing, not a GGUF, or cut short. The message says what to do. */
export class ModelFileError extends Error {
  override readonly name = "ModelFileError";
}

export interface InstalledModel {
  /** The catalog name, or the file name for other files in the folder. */
  name: string;
  path: string;
  sizeBytes: number;
  catalog?: CatalogModel;
}

const GGUF_MAGIC = "GGUF";

/**
 * The models folder under the data directory and what `llm.providers[].model` names: a
 * recommended model by name (stored here once downloaded) or a `.gguf` path of its own.
 */
export class ModelFiles {
  constructor(
    readonly dir: string,
    readonly catalog: CatalogModel[],
  ) {}

  /** The file a model reference stands for; relative paths resolve against the working directory. */
  resolve(reference: string): { path: string; entry?: CatalogModel } {
    const entry = this.catalog.find((candidate) => candidate.name === reference);
    if (entry) return { path: this.pathOf(entry), entry };
    if (reference.toLowerCase().endsWith(".gguf")) return { path: resolve(reference) };
    const names = this.catalog.map((candidate) => candidate.name).join(", ");
    throw new ModelFileError(`unknown model "${reference}": give a .gguf file path or one of: ${names}`);
  }

  pathOf(entry: CatalogModel): string {
    return join(this.dir, entry.file);
  }

  /** The checked path of a model before it is loaded; any problem is one ModelFileError. */
  verify(reference: string): string {
    const { path, entry } = this.resolve(reference);
    const fix = entry
      ? `run "npm run model -- pull ${entry.name}"`
      : "point llm.providers[].model at a GGUF file";
    if (!existsSync(path)) throw new ModelFileError(`model file ${path} is missing: ${fix}`);
    if (readMagic(path) !== GGUF_MAGIC) {
      throw new ModelFileError(`model file ${path} is not a GGUF model (corrupt or incomplete): ${fix}`);
    }
    const expected = entry?.sizeBytes;
    const actual = statSync(path).size;
    if (expected !== undefined && actual !== expected) {
      throw new ModelFileError(
        `model file ${path} has ${actual} bytes instead of ${expected} (corrupt or incomplete): ${fix}`,
      );
    }
    return path;
  }

  /** Recommended models present in the folder, then any other GGUF files in it. */
  list(): InstalledModel[] {
    const installed: InstalledModel[] = [];
    const known = new Set<string>();
    for (const entry of this.catalog) {
      const path = this.pathOf(entry);
      known.add(path);
      if (existsSync(path))
        installed.push({ name: entry.name, path, sizeBytes: statSync(path).size, catalog: entry });
    }
    const files = existsSync(this.dir) ? readdirSync(this.dir) : [];
    for (const file of files.filter((name) => name.toLowerCase().endsWith(".gguf"))) {
      const path = join(this.dir, file);
      if (!known.has(path)) installed.push({ name: file, path, sizeBytes: statSync(path).size });
    }
    return installed;
  }

  /** Deletes a model of the folder with its partial download; false when there was none. */
  remove(reference: string): boolean {
    const entry = this.catalog.find((candidate) => candidate.name === reference);
    const path = entry ? this.pathOf(entry) : join(this.dir, basename(reference));
    const found = [path, partialPath(path)].filter((file) => existsSync(file));
    for (const file of found) rmSync(file, { force: true });
    return found.length > 0;
  }
}

/** Where a download in progress is kept until its checksum matched. */
export function partialPath(path: string): string {
  return `${path}.part`;
}

function readMagic(path: string): string {
  const descriptor = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(GGUF_MAGIC.length);
    const read = readSync(descriptor, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString("latin1");
  } finally {
    closeSync(descriptor);
  }
}
