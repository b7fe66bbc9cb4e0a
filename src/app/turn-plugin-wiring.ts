import type { BuiltinTool } from "../agent/builtin-tools.ts";
import type { ToolDeferralSettings } from "../agent/tool-deferral.ts";
import { TurnPlugins } from "../agent/turn-plugins.ts";
import type { ComponentSet } from "../components/component-set.ts";
import { HookRunner } from "../components/hooks.ts";
import type { CallContexts } from "../components/types.ts";
import type { Logger } from "../log/logger.ts";
import type { Monitor } from "../monitor/monitor.ts";

/** What plugins add to agent turns, read from the component set; hooks report their decisions to `monitor`. */
export function turnPluginsOf(
  components: ComponentSet,
  builtins: readonly BuiltinTool[],
  contexts: CallContexts,
  monitor: Monitor,
  logger: Logger,
  deferral: () => ToolDeferralSettings,
): TurnPlugins {
  const { tools, enrichers, systemParts, approvals } = components;
  const hooks = new HookRunner(components.hooks, monitor, logger);
  return new TurnPlugins({
    tools,
    builtins,
    enrichers,
    systemParts,
    approvals,
    hooks,
    contexts,
    deferral,
    logger,
  });
}
