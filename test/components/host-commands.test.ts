import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import { type SummarySettings, summarySchema } from "../../src/chat/config.ts";
import { summaryCommand } from "../../src/chat/summary-command.ts";
import { createComponentSet } from "../../src/components/component-set.ts";
import { zonedClock } from "../../src/context/clock-text.ts";
import { createLogger } from "../../src/log/logger.ts";
import { type MemorySettings, memorySchema } from "../../src/memory/config.ts";
import { memoryCommands } from "../../src/memory/memory-commands.ts";
import type { MemoryService } from "../../src/memory/memory-service.ts";
import { MonitorHub } from "../../src/monitor/monitor.ts";
import { type PluginSettings, pluginsSchema } from "../../src/plugins/config.ts";
import { ProcessIsolation } from "../../src/plugins/isolation/process-isolation.ts";
import { createPluginSystem } from "../../src/plugins/plugin-system.ts";
import { StdioChannelAdapter } from "../../src/plugins/stdio/channel-adapter.ts";
import { shippedPromptTemplates } from "../../src/prompts/templates.ts";
import type { Outbox } from "../../src/reply/outbox.ts";
import type { PluginMemoryAccess, PluginSpeech } from "../../src/sdk/types.ts";
import type { MessageStore } from "../../src/store/types.ts";
import { testPictureFetcher } from "../support/picture-fetching.ts";

/** The host's own commands are one built-in plugin: loaded with the plugin system, all gone when it stops. */
describe("the host's commands plugin", () => {
  it("registers /help, /plugins, /approve, /deny, /summary, /memory and /forget, and disposes every one", async () => {
    const components = createComponentSet();
    const settings = Value.Default(pluginsSchema, { dirs: [] }) as PluginSettings;
    const logger = createLogger({ level: "silent" });
    const system = createPluginSystem({
      components,
      settings: () => settings,
      isolation: new ProcessIsolation({ settings: () => settings, hidden: () => [], logger }),
      secrets: () => [],
      outbox: {} as Outbox,
      adapterById: () => undefined,
      messages: {} as MessageStore,
      admins: () => [],
      templates: () => shippedPromptTemplates("zh"),
      channels: new StdioChannelAdapter(() => {}),
      names: () => ["紬"],
      pictureFetcherFor: () => testPictureFetcher(),
      pluginMemory: () => ({}) as PluginMemoryAccess,
      pluginSpeech: () => ({}) as PluginSpeech,
      monitor: new MonitorHub(),
      logger,
      watch: false,
    });
    // As the composition root adds them: memory's before the plugin system starts, /summary after.
    const memorySettings = Value.Default(memorySchema, {}) as MemorySettings;
    for (const command of memoryCommands({
      memory: { enabled: () => true } as MemoryService,
      settings: () => memorySettings,
      clock: () => zonedClock("Asia/Shanghai"),
      forgetGroupExpressions: async () => 0,
    })) {
      components.hostCommands.add(command);
    }
    const registered = () => components.commands.all().map((command) => command.fullName);
    expect(registered()).toEqual([]);

    await system.start();
    components.hostCommands.add(
      summaryCommand({
        settings: () => Value.Default(summarySchema, {}) as SummarySettings,
        store: {} as MessageStore,
        submit: () => {},
      }),
    );
    expect(registered()).toEqual([
      "tsumugi.approve",
      "tsumugi.deny",
      "tsumugi.forget",
      "tsumugi.help",
      "tsumugi.memory",
      "tsumugi.plugins",
      "tsumugi.summary",
    ]);

    await system.stop();
    expect(registered()).toEqual([]);
  });
});
