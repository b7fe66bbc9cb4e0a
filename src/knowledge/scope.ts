import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Type } from "@sinclair/typebox";
import { Ajv, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { STDIO_PLATFORM } from "../message/message-source.ts";
import { parseSessionId, type SessionAddress } from "../message/session-id.ts";
import type { KnowledgeScope } from "../store/knowledge-types.ts";

/**
 * Where a document may be used: in every chat, in the listed groups only, or in private chats
 * only; `autoRetrieve: false` keeps its passages out of prompts (the tool still finds them).
 */
export const scopeSchema = Type.Object(
  {
    chats: Type.Union([Type.Literal("all"), Type.Literal("groups"), Type.Literal("private")], {
      default: "all",
    }),
    groups: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    autoRetrieve: Type.Boolean({ default: true }),
  },
  { additionalProperties: false },
);

export const ALL_CHATS: KnowledgeScope = { chats: "all", groups: [], autoRetrieve: true };

/** A folder's `scopes.yaml`: file name (within the folder) → scope. */
const SCOPES_FILE = "scopes.yaml";
/** A document's own sidecar: `<file>.scope.yaml` beside it. */
export const SIDECAR_SUFFIX = ".scope.yaml";

let validate: ValidateFunction<KnowledgeScope> | undefined;

/** A scope as the files or the console give it, defaults filled in; or what is wrong with it. */
export function checkScope(value: unknown): { scope: KnowledgeScope } | { problem: string } {
  validate ??= new Ajv({ useDefaults: true, allErrors: true, strict: false }).compile<KnowledgeScope>(
    scopeSchema,
  );
  const copy = typeof value === "object" && value !== null ? structuredClone(value) : value;
  if (validate(copy)) return { scope: copy };
  const problem = (validate.errors ?? [])
    .map((error) => `${error.instancePath.slice(1) || "scope"} ${error.message}`)
    .join("; ");
  return { problem };
}

/** Whether a document of `scope` may be used in the chat `sessionId`. */
export function admits(scope: KnowledgeScope, sessionId: string): boolean {
  const address = parseSessionId(sessionId);
  if (address === undefined) return false;
  if (scope.chats === "all") return true;
  if (scope.chats === "private") return address.chatType === "private";
  return address.chatType === "group" && scope.groups.some((entry) => namesGroup(entry, address));
}

/** The platforms whose groups a bare group number names: QQ's, through OneBot or the official API. */
const QQ_PLATFORMS = new Set(["onebot", "qq-official"]);

/**
 * Whether a `groups` entry names the group chat at `address`. A bare id is a QQ group; any
 * other chat's group is named with its users' namespace, as memory keys them (`stdio.webchat:5`
 * for group 5 of the stdio channel plugin `webchat`): a channel choosing the chat id `group:5`
 * must not read what QQ group 5 may.
 */
function namesGroup(entry: string, address: SessionAddress): boolean {
  const colon = entry.indexOf(":");
  if (colon < 0) return QQ_PLATFORMS.has(address.platform) && entry === address.peerId;
  const namespace =
    address.platform === STDIO_PLATFORM ? `${STDIO_PLATFORM}.${address.selfId}` : address.platform;
  return entry.slice(0, colon) === namespace && entry.slice(colon + 1) === address.peerId;
}

/**
 * A document's scope: its sidecar, else its entry in the folder's `scopes.yaml`, else all
 * chats. A sidecar or entry that cannot be read gives the document no chat at all (a typo
 * must not publish a private document everywhere), with the reason.
 */
export async function scopeOfFile(path: string): Promise<{ scope: KnowledgeScope; problem?: string }> {
  const sidecar = await readYaml(`${path}${SIDECAR_SUFFIX}`);
  if (sidecar.found) return scopeFrom(sidecar, basename(`${path}${SIDECAR_SUFFIX}`));
  const folder = await readYaml(join(dirname(path), SCOPES_FILE));
  if (!folder.found) return { scope: ALL_CHATS };
  if ("problem" in folder) return scopeFrom(folder, SCOPES_FILE);
  const entries = folder.value as Record<string, unknown> | null;
  const entry = entries?.[basename(path)];
  return entry === undefined ? { scope: ALL_CHATS } : scopeFrom({ found: true, value: entry }, SCOPES_FILE);
}

/** No chat at all: what a document whose scope cannot be read is given. */
const NO_CHAT: KnowledgeScope = { chats: "groups", groups: [], autoRetrieve: false };

type YamlRead = { found: false } | { found: true; value: unknown } | { found: true; problem: string };

function scopeFrom(read: YamlRead, file: string): { scope: KnowledgeScope; problem?: string } {
  if (!read.found) return { scope: ALL_CHATS };
  if ("problem" in read) return { scope: NO_CHAT, problem: `${file}: ${read.problem}` };
  const checked = checkScope(read.value);
  return "scope" in checked ? checked : { scope: NO_CHAT, problem: `${file}: ${checked.problem}` };
}

async function readYaml(path: string): Promise<YamlRead> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { found: false };
    return { found: true, problem: (error as Error).message };
  }
  try {
    return { found: true, value: parse(text) };
  } catch (error) {
    return { found: true, problem: (error as Error).message.split("\n")[0]! };
  }
}

/** Whether a path is a scope file rather than a document. */
export function isScopeFile(path: string): boolean {
  return path.endsWith(SIDECAR_SUFFIX) || basename(path) === SCOPES_FILE;
}
