import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The console front end: Preact through Vite's built-in JSX transform, built to web/dist,
// which the bot's HTTP server serves.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 300 },
  logLevel: "warn",
});
