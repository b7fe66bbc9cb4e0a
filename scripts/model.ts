// Local models from the terminal: `npm run model -- <command>`.
//
//   runtime          install node-llama-cpp into the data directory (done by pull when needed)
//   pull [name]      download a recommended model (default: the first), resumable and checked
//   list             recommended and downloaded models
//   remove <name>    delete a downloaded model
//
// The data directory is the one of the config in use (`--config FILE`, else ./tsumugi.yaml, else ./data).
import { ConfigError, loadConfig } from "../src/config/load.ts";
import { createLogger } from "../src/log/logger.ts";
import { DEFAULT_LOCAL_MODEL } from "../src/models/catalog.ts";
import { dataDirectory } from "../src/models/data-directory.ts";
import { createLocalModelStack } from "../src/models/local-model-stack.ts";
import { formatBytes, formatDuration } from "../src/models/progress-text.ts";
import type { TransferProgress } from "../src/models/transfer-meter.ts";
import { CONFIG_HELP, CONFIG_OPTION, commandLineOrExit } from "../src/util/command-line.ts";

const COMMAND_LINE = {
  usage: "usage: npm run model -- runtime | pull [name] | list | remove <name> [--config FILE]",
  help: [
    "  runtime         install node-llama-cpp into the data directory (pull does it when needed)",
    "  pull [name]     download a recommended model (default: the first), resumable and checked",
    "  list            recommended and downloaded models",
    "  remove <name>   delete a downloaded model",
    CONFIG_HELP,
  ].join("\n"),
  options: CONFIG_OPTION,
  commands: { runtime: [0, 0], pull: [0, 1], list: [0, 0], remove: [1, 1] },
} as const;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = commandLineOrExit(argv, COMMAND_LINE, "model");
  const [command, name] = positionals;
  const loaded = loadConfig({ file: values.config, env: process.env, cwd: process.cwd() });
  const dataDir = dataDirectory(loaded.config.storage.url);
  // A mirror for people huggingface.co does not reach: the config's, else HF_ENDPOINT.
  const mirror = loaded.config.llm.modelMirror || (process.env.HF_ENDPOINT ?? "");
  const { service } = createLocalModelStack(
    dataDir,
    createLogger({ level: "silent" }),
    undefined,
    () => mirror,
  );

  switch (command) {
    case "runtime": {
      service.subscribe((event) => {
        if (event.type === "runtime" && event.line) console.log(event.line);
      });
      await service.installRuntime();
      console.log(`node-llama-cpp ${service.runtimeState().version} is installed in ${dataDir}/runtime`);
      return 0;
    }
    case "pull": {
      const bar = new ProgressBar();
      service.subscribe((event) => {
        if (event.type === "runtime" && event.line) console.log(event.line);
        if (event.type === "download" && event.download.progress) bar.draw(event.download.progress);
      });
      const model = await service.pull(name ?? DEFAULT_LOCAL_MODEL);
      bar.done();
      console.log(`${model.name} is ready: ${model.path}`);
      console.log(`use it with  llm.providers: [{ id: local, type: llama-cpp, model: ${model.name} }]`);
      return 0;
    }
    case "list": {
      const snapshot = service.snapshot();
      const installed = new Map(snapshot.installed.map((model) => [model.name, model]));
      console.log(
        `runtime: node-llama-cpp ${snapshot.runtime.version} ${snapshot.runtime.installed ? "installed" : "not installed"}`,
      );
      for (const entry of snapshot.recommended) {
        const state = installed.has(entry.name)
          ? "downloaded"
          : `not downloaded (${formatBytes(entry.sizeBytes)})`;
        console.log(`${entry.name}  ${entry.title}: ${state}`);
      }
      for (const model of snapshot.installed.filter((model) => !model.catalog)) {
        console.log(`${model.name}  ${formatBytes(model.sizeBytes)}: ${model.path}`);
      }
      return 0;
    }
    default: {
      // remove <name>: the command line allows nothing else.
      const removed = service.remove(name!);
      console.log(removed ? `${name} removed` : `${name} is not downloaded`);
      return removed ? 0 : 1;
    }
  }
}

/** One line redrawn in place on a terminal; a line per 10% elsewhere (logs, CI). */
class ProgressBar {
  private lastTenth = -1;

  draw(progress: TransferProgress): void {
    const fraction = progress.totalBytes > 0 ? progress.receivedBytes / progress.totalBytes : 0;
    const width = 30;
    const filled = Math.round(fraction * width);
    const eta = progress.etaSeconds === undefined ? "--:--" : formatDuration(progress.etaSeconds);
    const line =
      `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}%  ` +
      `${formatBytes(progress.receivedBytes)} / ${formatBytes(progress.totalBytes)}  ` +
      `${formatBytes(progress.bytesPerSecond)}/s  ETA ${eta}`;
    if (process.stdout.isTTY) {
      process.stdout.write(`\r${line}\u001b[K`);
      return;
    }
    const tenth = Math.floor(fraction * 10);
    if (tenth > this.lastTenth) {
      this.lastTenth = tenth;
      console.log(line);
    }
  }

  done(): void {
    if (process.stdout.isTTY) process.stdout.write("\n");
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) console.error(problem);
      process.exit(2);
    }
    console.error(`model: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
