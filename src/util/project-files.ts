import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where the project's own files are. This module sits two folders below the project both in
 * the sources (src/util/) and in the compiled build (dist/server/, one bundle), so the same
 * relative path finds the project folder either way.
 */
export const PROJECT_DIR = fileURLToPath(new URL("../../", import.meta.url));

/** True when running the compiled build (`npm start`), false when running sources (tsx, vitest). */
export const RUNNING_COMPILED = import.meta.url.endsWith(".mjs");

/** A path inside the project folder. */
export function projectPath(...parts: string[]): string {
  return join(PROJECT_DIR, ...parts);
}
