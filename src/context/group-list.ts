import { Type } from "@sinclair/typebox";
import { Ajv, type ValidateFunction } from "ajv";
import type { ChatAdapter } from "../adapters/types.ts";
import type { Logger } from "../log/logger.ts";
import { formatSessionId } from "../message/session-id.ts";

/** A group an account is in, as its platform lists it. */
export interface ListedGroup {
  sessionId: string;
  platform: string;
  selfId: string;
  groupId: string;
  name: string;
  memberCount: number | null;
}

/** How long the console waits for an account's group list. */
const GROUP_LIST_TIMEOUT_MS = 5_000;

const wireId = Type.Union([Type.Integer(), Type.String({ minLength: 1 })]);
/** One entry of OneBot's `get_group_list`; implementations add fields of their own. */
const listedGroupSchema = Type.Object({
  group_id: wireId,
  group_name: Type.Optional(Type.String()),
  member_count: Type.Optional(Type.Integer({ minimum: 0 })),
});
const groupListSchema = Type.Array(Type.Unknown());

let validators: { list: ValidateFunction<unknown[]>; entry: ValidateFunction<WireGroup> } | undefined;

interface WireGroup {
  group_id: number | string;
  group_name?: string;
  member_count?: number;
}

/**
 * The groups every connected account of the adapters is in (OneBot's `get_group_list`). An
 * account that cannot answer (no such action, a timeout, a console or stdio channel) is left
 * out with one debug line; an entry of the wrong shape is dropped alone.
 */
export async function listGroups(adapters: Iterable<ChatAdapter>, logger: Logger): Promise<ListedGroup[]> {
  validators ??= (() => {
    const ajv = new Ajv({ strict: false });
    return {
      list: ajv.compile<unknown[]>(groupListSchema),
      entry: ajv.compile<WireGroup>(listedGroupSchema),
    };
  })();
  const calls = [...adapters].flatMap((adapter) =>
    adapter
      .accounts()
      .filter((account) => account.connected)
      .map(async (account): Promise<ListedGroup[]> => {
        try {
          const data = await adapter.callAction(
            account.selfId,
            "get_group_list",
            {},
            {
              timeoutMs: GROUP_LIST_TIMEOUT_MS,
            },
          );
          if (!validators!.list(data)) throw new Error("get_group_list did not answer a list");
          return data
            .filter((entry) => validators!.entry(entry))
            .map((entry) => {
              const group = entry as WireGroup;
              const groupId = String(group.group_id);
              return {
                sessionId: formatSessionId({
                  platform: adapter.platform,
                  selfId: account.selfId,
                  chatType: "group",
                  peerId: groupId,
                }),
                platform: adapter.platform,
                selfId: account.selfId,
                groupId,
                name: group.group_name ?? "",
                memberCount: group.member_count ?? null,
              };
            });
        } catch (error) {
          logger.debug(
            { err: error, adapterId: adapter.id, selfId: account.selfId },
            "no group list from this account",
          );
          return [];
        }
      }),
  );
  return (await Promise.all(calls)).flat();
}
