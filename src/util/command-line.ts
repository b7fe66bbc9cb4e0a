// One strict parser for every command line of the project (`npm start`, doctor, backup, plugin,
// model, new-plugin, eval): Node's `util.parseArgs` with `strict: true`, so a typo, `-c` or a
// stray word is refused with one line naming it, never a command run on defaults.
import { type ParseArgsConfig, parseArgs } from "node:util";

/** Exit code of a command line that cannot be understood (as for a config that cannot be used). */
export const EXIT_USAGE = 2;

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface CommandSpec<O extends Options> {
  /** One line: `usage: npm run backup -- [FILE] [--config FILE]`. */
  usage: string;
  /** What `--help` prints after the usage line (options, examples); optional. */
  help?: string;
  options: O;
  /** How many words without a dash it takes. Default: none. */
  positionals?: { min?: number; max: number };
  /**
   * Sub-commands (`plugin install <spec>`): the first word must be one of them, and the words
   * after it are counted against its [least, most]. Replaces `positionals`.
   */
  commands?: Readonly<Record<string, readonly [least: number, most: number]>>;
}

/** A command line that cannot be understood: `message` names the argument. */
export class UsageError extends Error {}

export type ParsedCommandLine<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>
>;

/**
 * Parses `argv` against `spec`: the values and positional words, `"help"` when `--help`/`-h` was
 * given, or a UsageError naming the first argument it does not understand.
 */
export function parseCommandLine<O extends Options>(
  argv: string[],
  spec: CommandSpec<O>,
): ParsedCommandLine<O> | "help" {
  if (argv.some((word) => word === "--help" || word === "-h")) return "help";
  let parsed: ParsedCommandLine<O>;
  try {
    parsed = parseArgs({ args: argv, options: spec.options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(describeParseError(error));
  }
  const { positionals } = parsed;
  if (spec.commands) {
    const [command, ...words] = positionals;
    const arity =
      command === undefined
        ? undefined
        : Object.hasOwn(spec.commands, command)
          ? spec.commands[command]
          : undefined;
    if (!arity)
      throw new UsageError(command === undefined ? "missing command" : `unknown command "${command}"`);
    if (words.length < arity[0]) throw new UsageError(`${command}: missing argument`);
    if (words.length > arity[1]) throw new UsageError(`unexpected argument "${words[arity[1]]}"`);
  }
  const { min = 0, max } = spec.commands
    ? { max: Number.POSITIVE_INFINITY }
    : (spec.positionals ?? { max: 0 });
  if (positionals.length > max) {
    const extra = positionals[max]!;
    throw new UsageError(
      extra.endsWith(".yaml") || extra.endsWith(".yml")
        ? `unexpected argument "${extra}" (a config file is given with --config ${extra})`
        : `unexpected argument "${extra}"`,
    );
  }
  if (positionals.length < min) throw new UsageError("missing argument");
  for (const [name, option] of Object.entries(spec.options)) {
    const value = parsed.values[name as keyof typeof parsed.values];
    if (option.type === "string" && typeof value === "string" && value === "")
      throw new UsageError(`--${name} needs a value`);
  }
  return parsed;
}

/**
 * Runs a command's `main` on `process.argv`: `--help` prints the usage (exit 0), a UsageError
 * prints one line naming the argument and the usage (exit 2), anything else is the command's own.
 */
export function commandLineOrExit<O extends Options>(
  argv: string[],
  spec: CommandSpec<O>,
  name: string,
): ParsedCommandLine<O> {
  try {
    const parsed = parseCommandLine(argv, spec);
    if (parsed !== "help") return parsed;
    process.stdout.write(helpText(spec));
    process.exit(0);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(usageLine(name, error, spec));
    process.exit(EXIT_USAGE);
  }
}

/** What `--help` prints: the usage line and the help lines. */
export function helpText(spec: CommandSpec<Options>): string {
  return `${spec.usage}\n${spec.help ? `${spec.help}\n` : ""}`;
}

/** The one line a refused command line prints: `name: <what is wrong> — usage: …`. */
export function usageLine(name: string, error: UsageError, spec: CommandSpec<Options>): string {
  return `${name}: ${error.message} — ${spec.usage} (--help for more)\n`;
}

/** Node's messages are long ("To specify a positional argument…"); ours name the argument only. */
function describeParseError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const argument = /'([^']*)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && argument !== undefined)
    return `unknown option "${argument}"`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && argument !== undefined) {
    const option = argument.split(" ")[0]!;
    return /argument missing|ambiguous/.test(message)
      ? `${option} needs a value`
      : `${option} takes no value`;
  }
  return message.split(". ")[0]!;
}

/** `--config FILE`, which every command that reads the config takes. */
export const CONFIG_OPTION = { config: { type: "string" } } as const satisfies Options;

/** The `--help` line of CONFIG_OPTION. */
export const CONFIG_HELP =
  "  --config FILE   the config file (default: $TSUMUGI_CONFIG, else ./tsumugi.yaml)";
