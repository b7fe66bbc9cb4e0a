import { ACCESS_RULE_PROBLEM, parseAccessRule } from "../chat/access-rule.ts";
import { ADMIN_ENTRY_PROBLEM, parseAdminEntry } from "../plugins/admin-entry.ts";
import { type ConfigFormat, type ConfigFormatName, stringFormats } from "../schema/formats.ts";

/** Every format the schema names: the plain string formats and the domain ones, whose parsers live above schema/. */
export const configFormats: Record<ConfigFormatName, ConfigFormat> = {
  ...stringFormats,
  "admin-id": { validate: (value) => parseAdminEntry(value) !== undefined, problem: ADMIN_ENTRY_PROBLEM },
  "access-rule": { validate: (value) => parseAccessRule(value) !== undefined, problem: ACCESS_RULE_PROBLEM },
};
