import type { Built } from "../../components/builders.ts";
import type { Component } from "../../components/types.ts";
import type { Logger } from "../../log/logger.ts";
import { errorMessage } from "../../util/values.ts";
import type { ComponentFactory } from "./component-factory.ts";
import {
  type ActivateAnswer,
  type CommandDeclaration,
  type DeclarationKind,
  type EnricherDeclaration,
  type HookDeclaration,
  isJsonObject,
  type ProtocolValidators,
  problemsOf,
  type ReplyExtensionDeclaration,
  type ToolDeclaration,
} from "./protocol.ts";

/**
 * Validates what a plugin declared and builds a component of each declaration; a bad one
 * is left out with a log line and the rest load.
 */
export class Declarations {
  constructor(
    private readonly protocol: ProtocolValidators,
    private readonly factory: ComponentFactory,
    private readonly logger: Logger,
    /** Keeps the skipped declarations as the status's last error, for the console. */
    private readonly noteError: (text: string) => void,
  ) {}

  /** The tools, hooks, enrichers, reply extensions and commands of an `activate` answer. */
  ofActivation(answer: ActivateAnswer): Built<Component>[] {
    const taken = new Set<string>();
    const skipped: string[] = [];
    const built: Built<Component>[] = [
      ...this.buildEach("tool", answer.tools, taken, skipped, (tool: ToolDeclaration) =>
        this.factory.tool(tool),
      ),
      ...this.buildEach("hook", answer.hooks, taken, skipped, (hook: HookDeclaration, index) =>
        this.factory.hook(hook, index),
      ),
      ...this.buildEach("enricher", answer.enrichers, taken, skipped, (enricher: EnricherDeclaration) =>
        this.factory.enricher(enricher),
      ),
      ...this.buildEach(
        "reply_extension",
        answer.reply_extensions,
        taken,
        skipped,
        (extension: ReplyExtensionDeclaration) => this.factory.replyExtension(extension),
      ),
      ...this.buildEach("command", answer.commands, taken, skipped, (command: CommandDeclaration) =>
        this.factory.command(command),
      ),
    ];
    this.noteSkipped(skipped);
    return built;
  }

  /**
   * The tools of a `tools` push (every session) or a `channel_tools` push (scoped to the
   * channel's sessions by `sessionPrefix`); the names of `declared` are taken.
   */
  ofTools(tools: unknown[], declared: Built<Component>[], sessionPrefix?: string): Built<Component>[] {
    const taken = new Set(declared.map(({ component }) => componentKey(component)));
    const skipped: string[] = [];
    const built = this.buildEach("tool", tools, taken, skipped, (tool: ToolDeclaration) =>
      this.factory.tool(tool, sessionPrefix),
    );
    this.noteSkipped(skipped);
    return built;
  }

  /**
   * Builds each declaration of one list; a bad one (wrong shape, no description, parameters
   * that do not compile, a name already taken) is left out and the rest load.
   */
  private buildEach<T>(
    kind: DeclarationKind,
    list: unknown[] | null | undefined,
    taken: Set<string>,
    skipped: string[],
    build: (declaration: T, index: number) => Built<Component>,
  ): Built<Component>[] {
    const validate = this.protocol.declaration[kind];
    const built: Built<Component>[] = [];
    (list ?? []).forEach((declaration, index) => {
      try {
        if (!validate(declaration)) throw new Error(problemsOf(validate, "the declaration"));
        const one = build(declaration as T, index);
        const key = componentKey(one.component);
        if (taken.has(key)) throw new Error(`the name "${one.component.name}" is declared twice`);
        taken.add(key);
        built.push(one);
      } catch (error) {
        skipped.push(`${declarationLabel(kind, declaration, index)}: ${errorMessage(error)}`);
      }
    });
    return built;
  }

  /** A log line for each left-out declaration; together they are the status's last error, for the console. */
  private noteSkipped(skipped: string[]): void {
    if (skipped.length === 0) return;
    for (const problem of skipped) this.logger.warn(`plugin declaration skipped: ${problem}`);
    this.noteError(`declarations skipped: ${skipped.join("; ")}`);
  }
}

/** Components of one kind share a namespace. */
function componentKey(component: Component): string {
  return `${component.kind}:${component.name}`;
}

/** How a log line names a declaration: its kind and name, else its place in the list. */
function declarationLabel(kind: DeclarationKind, declaration: unknown, index: number): string {
  const named = isJsonObject(declaration) ? (declaration.name ?? declaration.event) : undefined;
  return typeof named === "string" && named ? `${kind} "${named}"` : `${kind} #${index + 1}`;
}
