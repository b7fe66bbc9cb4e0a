// Builds the console (web/ → web/dist/) when the build is missing or older than its sources,
// so `npm start` and `npm test` never serve a stale or absent front end.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { build } from "vite";

const WEB = "web";
const BUILT = join(WEB, "dist", "index.html");

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== join(WEB, "dist")) newest = Math.max(newest, newestSource(path));
    } else {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

function builtAt(): number {
  try {
    return statSync(BUILT).mtimeMs;
  } catch {
    return 0;
  }
}

if (builtAt() < newestSource(WEB)) {
  process.stdout.write("building the console (web/dist)…\n");
  await build({ configFile: join(WEB, "vite.config.ts") });
}
