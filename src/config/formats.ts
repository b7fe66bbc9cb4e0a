import { ACCESS_RULE_PROBLEM, parseAccessRule } from "./access-rule.ts";
import { ADMIN_ENTRY_PROBLEM, parseAdminEntry } from "./admin-entry.ts";

/**
 * The string `format`s the config schema uses. They are registered with ajv by the validator;
 * each carries the reason shown when a value does not match, so problems read like
 * `llm.providers[0].baseUrl: must be a URL` rather than a regular expression.
 */
export interface ConfigFormat {
  validate(value: string): boolean;
  problem: string;
}

function hasProtocol(value: string, protocols: readonly string[]): boolean {
  if (!URL.canParse(value)) return false;
  return protocols.includes(new URL(value).protocol);
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const configFormats = {
  "http-url": {
    validate: (value) => hasProtocol(value, ["http:", "https:"]),
    problem: "must be a URL",
  },
  "ws-url": {
    validate: (value) => hasProtocol(value, ["ws:", "wss:"]),
    problem: "must be a ws:// or wss:// URL",
  },
  "url-path": {
    validate: (value) => /^\/\S*$/.test(value),
    problem: 'must be a path starting with "/"',
  },
  identifier: {
    validate: (value) => /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(value),
    problem: 'must contain only letters, digits, "_" and "-"',
  },
  "model-ref": {
    validate: (value) => /^[^/\s]+\/\S+$/.test(value),
    problem: 'must be "provider/model"',
  },
  "plugin-ref": {
    validate: (value) => /^[a-z0-9][a-z0-9_-]{0,63}(\.[^.\s]+)?$/.test(value),
    problem: 'must be "pluginId" or "pluginId.component"',
  },
  "time-zone": {
    validate: (value) => value === "" || isTimeZone(value),
    problem: 'must be an IANA time zone such as "Asia/Shanghai"',
  },
  "admin-id": {
    validate: (value) => parseAdminEntry(value) !== undefined,
    problem: ADMIN_ENTRY_PROBLEM,
  },
  "access-rule": {
    validate: (value) => parseAccessRule(value) !== undefined,
    problem: ACCESS_RULE_PROBLEM,
  },
  "sqlite-url": {
    validate: (value) => /^sqlite:.+$/.test(value),
    problem: 'must be "sqlite:PATH"',
  },
} satisfies Record<string, ConfigFormat>;

export type ConfigFormatName = keyof typeof configFormats;
