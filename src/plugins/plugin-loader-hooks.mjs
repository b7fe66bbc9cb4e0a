/**
 * Node module hooks for plugin code (they run on the loader thread, so this is plain JavaScript).
 * - `tsumugi/sdk` resolves to this project's SDK from any folder.
 * - Every load of a plugin is its own module graph: the host imports the entry with
 *   `?tsumugi-plugin=N`, and each plugin file imported from it (outside node_modules) gets the
 *   same query. Node caches modules by URL for good, so a new N is how edited files are read again.
 * - Plugin script files are ES modules even without a package.json saying `"type": "module"`
 *   (a plugin folder anywhere on disk usually has none).
 * - TypeScript files are transpiled with esbuild (standard decorators lowered for Node 20), so
 *   no transpiler runs the bot itself. The output is cached on disk under the hash of the source:
 *   a start with unchanged plugins runs no esbuild at all.
 * - As in TypeScript, `./x.js` finds `./x.ts` and `./x` finds `./x.ts` when only that exists.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const VERSION_PARAM = "tsumugi-plugin";
const SCRIPT = /\.(?:[cm]?[jt]s|tsx)$/;
const TYPESCRIPT = /\.(?:[cm]?ts|tsx)$/;
const RELATIVE = /^\.{1,2}\//;
/** Part of every cache key: changing how files are transpiled must not reuse older output. */
const TRANSFORM = { format: "esm", target: "node20" };
const TRANSFORM_KEY = `esbuild-0.28.2 ${JSON.stringify(TRANSFORM)}`;

let sdkUrl = "";
let cacheDir = "";
/** esbuild's service process lives only while transforms are running (it is ~10 MB of RSS). */
let transformsRunning = 0;

export function initialize(data) {
  sdkUrl = data.sdkUrl;
  cacheDir = data.cacheDir;
}

function pluginVersion(url) {
  if (!url?.startsWith("file:")) return undefined;
  return new URL(url).searchParams.get(VERSION_PARAM) ?? undefined;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "tsumugi/sdk") return nextResolve(sdkUrl, context);
  const parentVersion = pluginVersion(context.parentURL);
  const resolved = parentVersion
    ? await resolveTypeScriptFallback(specifier, context, nextResolve)
    : await nextResolve(specifier, context);
  // A plugin's entry carries its version; the files it imports inherit it.
  const version = parentVersion ?? pluginVersion(resolved.url);
  if (version === undefined) return resolved;
  const url = new URL(resolved.url);
  if (url.protocol !== "file:" || url.pathname.includes("/node_modules/") || !SCRIPT.test(url.pathname)) {
    return resolved;
  }
  url.searchParams.set(VERSION_PARAM, version);
  return { ...resolved, url: url.href, format: "module", shortCircuit: true };
}

async function resolveTypeScriptFallback(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (error?.code !== "ERR_MODULE_NOT_FOUND" || !RELATIVE.test(specifier)) throw error;
    const candidate = /\.[cm]?js$/.test(specifier)
      ? specifier.replace(/js$/, "ts")
      : SCRIPT.test(specifier)
        ? undefined
        : `${specifier}.ts`;
    if (candidate === undefined) throw error;
    return nextResolve(candidate, context).catch(() => {
      throw error;
    });
  }
}

export async function load(url, context, nextLoad) {
  if (pluginVersion(url) === undefined || !TYPESCRIPT.test(new URL(url).pathname)) {
    return nextLoad(url, context);
  }
  const path = fileURLToPath(url);
  const source = await readFile(path, "utf8");
  return { format: "module", source: await transpiled(source, path), shortCircuit: true };
}

async function transpiled(source, path) {
  const key = createHash("sha256").update(TRANSFORM_KEY).update("\0").update(source).digest("hex");
  const cached = join(cacheDir, `${key}.mjs`);
  try {
    return await readFile(cached, "utf8");
  } catch {
    // Not cached yet.
  }
  const code = await transform(source, path);
  // Written under a temporary name and renamed, so a concurrent start never reads half a file.
  const partial = `${cached}.${process.pid}.tmp`;
  try {
    await mkdir(cacheDir, { recursive: true });
    await writeFile(partial, code);
    await rename(partial, cached);
  } catch {
    // A read-only install still runs its plugins; it only transpiles them again next start.
  }
  return code;
}

async function transform(source, path) {
  const esbuild = await import("esbuild");
  transformsRunning++;
  try {
    const loader = path.endsWith(".tsx") ? "tsx" : "ts";
    return (await esbuild.transform(source, { ...TRANSFORM, loader, sourcefile: path })).code;
  } finally {
    if (--transformsRunning === 0) await esbuild.stop();
  }
}
