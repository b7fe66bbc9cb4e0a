#!/usr/bin/env node
// The `tsumugi` command of the package: `tsumugi new-plugin <id> [--lang ts|python|stdio] [--dir FOLDER]`.
// Its TypeScript runs through tsx, as the project's scripts do.
import { register } from "tsx/esm/api";

register();
const [command, ...rest] = process.argv.slice(2);
const { newPlugin, NEW_PLUGIN_COMMAND_LINE } = await import("../scripts/new-plugin.ts");
if (command === "new-plugin") {
  process.exitCode = newPlugin(rest, process.cwd());
} else if (command === "--help" || command === "-h") {
  console.log(NEW_PLUGIN_COMMAND_LINE.usage);
} else {
  const what = command === undefined ? "missing command" : `unknown command "${command}"`;
  console.error(`tsumugi: ${what} — ${NEW_PLUGIN_COMMAND_LINE.usage} (--help for more)`);
  process.exitCode = 2;
}
