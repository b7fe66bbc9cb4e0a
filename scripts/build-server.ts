// Compiles the server (src/ → dist/server/) with esbuild, so `npm start` runs plain JavaScript
// with no transpiler at run time: one bundle of our code and the packages it uses (native
// modules stay imports). Beside it: the SDK that plugins import, and the plugin loader hooks.
import { rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { _ } from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import type { Plugin } from "esbuild";
import { configAjv } from "../src/config/compiled-schema.ts";
import { configJsonSchema } from "../src/config/schema.ts";
import { newestModification } from "./newest-modification.ts";

export const SERVER_DIST = join("dist", "server");
const SOURCES = ["src", "package.json", "scripts/build-server.ts"];

/** True when dist/server/main.mjs is missing or older than any source file. */
export function serverBuildIsStale(): boolean {
  let builtAt: number;
  try {
    builtAt = statSync(join(SERVER_DIST, "main.mjs")).mtimeMs;
  } catch {
    return true;
  }
  return SOURCES.some((path) => newestModification(path) > builtAt);
}

const ENTRY_POINTS = {
  main: "src/main.ts",
  sdk: "src/sdk/index.ts",
  "plugin-loader-hooks": "src/plugins/plugin-loader-hooks.mjs",
  // Worker threads' modules (util/off-thread.ts finds each beside main.mjs).
  "silk-decode-worker": "src/media/silk-decode-worker.ts",
  "extract-worker": "src/knowledge/extract-worker.ts",
};

export async function buildServer(outdir = SERVER_DIST): Promise<void> {
  const { build } = await import("esbuild");
  // New files, never written in place: a checkout copied with hard links (cp -al, a worktree
  // farm) shares its dist/ files with its siblings, and one build would change all of them.
  for (const name of Object.keys(ENTRY_POINTS)) rmSync(join(outdir, `${name}.mjs`), { force: true });
  await build({
    entryPoints: ENTRY_POINTS,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    // Packages are bundled too: one file parses much faster than the few thousand module files
    // fastify, TypeBox and the AI SDK are made of. Kept as imports: native modules and whatever
    // finds its own files at run time.
    // pg-native: pg's optional native binding, which we do not use. sharp loads libvips for
    // the platform it finds at run time.
    // The voice codec and the knowledge base's document readers are imported on first use and
    // stay packages: silk-wasm reads its WebAssembly file beside itself, and none of them should
    // cost a start that never sees a voice message or a document.
    external: [
      "better-sqlite3",
      "esbuild",
      "pg-native",
      "sharp",
      "silk-wasm",
      "unpdf",
      "mammoth",
      "linkedom",
      "@mozilla/readability",
    ],
    // CommonJS packages in an ES module bundle still call require() for Node's built-ins.
    banner: {
      js: 'import { createRequire as __tsumugiRequire } from "node:module"; const require = __tsumugiRequire(import.meta.url);',
    },
    platform: "node",
    format: "esm",
    target: "node20",
    // Error and class names appear in logs and status texts; bundling must not rename them.
    keepNames: true,
    logLevel: "warning",
    plugins: [precompiledConfigSchema()],
  });
}

const COMPILED_SCHEMA_MODULE = resolve("src/config/compiled-schema.ts");

/**
 * Compiling the config schema with Ajv was most of a start's CPU. The bundle gets the validator
 * generated here instead (Ajv's standalone code, same options and formats), in place of
 * src/config/compiled-schema.ts, whose compileConfigSchema() then returns it.
 */
function precompiledConfigSchema(): Plugin {
  return {
    name: "precompiled-config-schema",
    setup(build) {
      build.onLoad({ filter: /compiled-schema\.ts$/ }, (args) => {
        if (resolve(args.path) !== COMPILED_SCHEMA_MODULE) return undefined;
        const ajv = configAjv({ source: true, esm: true, formats: _`configFormats` });
        const validator = standaloneCode.default(ajv, ajv.compile(configJsonSchema));
        return {
          contents: `import { configFormats } from "./config-formats.ts";
${validator}
export function compileConfigSchema() { return validate; }
`,
          loader: "js",
          resolveDir: dirname(COMPILED_SCHEMA_MODULE),
        };
      });
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await buildServer();
}
