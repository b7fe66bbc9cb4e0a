#!/usr/bin/env node
// The `tsumugi` command of the package: `tsumugi new-plugin <id> [--lang ts|python|stdio] [--dir FOLDER]`.
// Its TypeScript runs through tsx, as the project's scripts do.
import { register } from "tsx/esm/api";

register();
const [command, ...rest] = process.argv.slice(2);
if (command === "new-plugin") {
  const { newPlugin } = await import("../scripts/new-plugin.ts");
  process.exitCode = newPlugin(rest, process.cwd());
} else {
  console.error("usage: tsumugi new-plugin <id> [--lang ts|python|stdio] [--dir FOLDER]");
  process.exitCode = 2;
}
