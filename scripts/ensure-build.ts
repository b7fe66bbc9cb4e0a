// Runs before `npm start` and `npm test`: rebuilds the console (web/ → web/dist/) and the server
// (src/ → dist/server/) when a build is missing or older than its sources, so nobody runs a
// stale or absent build after editing. A fresh check only compares file times (milliseconds);
// the build tools are imported only when something has to be built.
import { statSync } from "node:fs";
import { join } from "node:path";
import { buildServer, serverBuildIsStale } from "./build-server.ts";
import { newestModification } from "./newest-modification.ts";

const WEB = "web";
const WEB_DIST = join(WEB, "dist");

function webBuiltAt(): number {
  try {
    return statSync(join(WEB_DIST, "index.html")).mtimeMs;
  } catch {
    return 0;
  }
}

if (webBuiltAt() < newestModification(WEB, [WEB_DIST])) {
  process.stdout.write("building the console (web/dist)…\n");
  const { build } = await import("vite");
  await build({ configFile: join(WEB, "vite.config.ts") });
}
if (serverBuildIsStale()) {
  process.stdout.write("building the server (dist/server)…\n");
  await buildServer();
}
