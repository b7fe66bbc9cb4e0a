import { isRecord } from "../util/values.ts";
import type { ReplyExtensionComponent } from "./types.ts";

/** An extension the planner selected, with its validated parameters (defaults filled). */
export interface SelectedExtension {
  extension: ReplyExtensionComponent;
  parameters: Record<string, unknown>;
}

export type Selection = { ok: true; selected: SelectedExtension[] } | { ok: false; problem: string };

/**
 * Reads the reply tool's `plugin_options` against the extensions active in the chat. A key
 * present selects its extension (an absent key means the extension is not called), and only
 * a selected extension gets its defaults. Unknown keys and invalid parameters refuse the
 * whole call, so the model is told before anything is generated or sent.
 */
export function selectExtensions(raw: unknown, available: ReplyExtensionComponent[]): Selection {
  if (raw === undefined || raw === null) return { ok: true, selected: [] };
  if (!isRecord(raw)) return refuse('plugin_options must be an object keyed by "pluginId.component"');
  const byName = new Map(available.map((extension) => [extension.fullName, extension]));
  const unknown = Object.keys(raw).filter((name) => !byName.has(name));
  if (unknown.length > 0) {
    const known = [...byName.keys()];
    return refuse(
      `plugin_options has unknown ${unknown.map((name) => `"${name}"`).join(", ")}; ` +
        (known.length > 0 ? `available here: ${known.join(", ")}` : "no reply extension is available here"),
    );
  }
  const problems: string[] = [];
  const selected: SelectedExtension[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const extension = byName.get(name)!;
    if (!isRecord(value)) {
      problems.push(`plugin_options["${name}"] must be an object of that extension's parameters`);
      continue;
    }
    // Validation fills defaults in place: the model's arguments stay as it sent them.
    const parameters = structuredClone(value);
    const problem = extension.validate(parameters);
    if (problem === undefined) selected.push({ extension, parameters });
    else problems.push(`plugin_options["${name}"]: ${problem}`);
  }
  if (problems.length > 0) return refuse(problems.join("; "));
  return { ok: true, selected: selected.sort(chainOrder) };
}

/** Ascending priority, ties by full component name in dictionary order. */
function chainOrder(a: SelectedExtension, b: SelectedExtension): number {
  const byPriority = a.extension.priority - b.extension.priority;
  if (byPriority !== 0) return byPriority;
  const [x, y] = [a.extension.fullName, b.extension.fullName];
  return x < y ? -1 : x > y ? 1 : 0;
}

function refuse(problem: string): Selection {
  return { ok: false, problem };
}
