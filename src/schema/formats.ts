/**
 * The string `format`s the config schema uses. They are registered with ajv by the validator;
 * each carries the reason shown when a value does not match, so problems read like
 * `llm.providers[0].baseUrl: must be a URL` rather than a regular expression. The formats
 * whose parsers belong to a domain (`admin-id`, `access-rule`) are named here and defined by
 * the config composition (config/validate.ts), which sits above those domains.
 */
export interface ConfigFormat {
  validate(value: string): boolean;
  problem: string;
}

/** A plugin's id; also the start of a `plugin-ref` and the instance of a `stdio.<pluginId>` source. */
export const PLUGIN_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const PLUGIN_REF = new RegExp(`${PLUGIN_ID.source.slice(0, -1)}(\\.[^.\\s]+)?$`);
/** An MCP server's tools are owned by `mcp:<serverId>`; its tool names may hold dots. */
const MCP_REF = new RegExp(`^mcp:${PLUGIN_ID.source.slice(1, -1)}(\\.\\S+)?$`);

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

export const stringFormats = {
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
    validate: (value) => PLUGIN_REF.test(value) || MCP_REF.test(value),
    problem: 'must be "pluginId", "pluginId.component", "mcp:serverId" or "mcp:serverId.tool"',
  },
  "plugin-id": {
    validate: (value) => PLUGIN_ID.test(value),
    problem: 'must be 1-64 lowercase letters, digits, "_" or "-", starting with a letter or digit',
  },
  "redis-url": {
    validate: (value) => value === "" || /^rediss?:\/\/[^\s]+$/.test(value),
    problem: 'must be empty or "redis://[:password@]host[:port][/db]" (rediss:// for TLS)',
  },
  "instance-id": {
    validate: (value) => value === "" || PLUGIN_ID.test(value),
    problem: 'must be empty or 1-64 lowercase letters, digits, "_" or "-", starting with a letter or digit',
  },
  "time-zone": {
    validate: (value) => value === "" || isTimeZone(value),
    problem: 'must be an IANA time zone such as "Asia/Shanghai"',
  },
  "storage-url": {
    validate: (value) => /^(sqlite:.+|postgres(ql)?:\/\/[^\s]+)$/i.test(value),
    problem: 'must be "sqlite:PATH" or "postgres://user:password@host:5432/database"',
  },
} satisfies Record<string, ConfigFormat>;

/** Formats defined by the composition with a domain's parser (see above). */
export type DomainFormatName = "admin-id" | "access-rule";

export type ConfigFormatName = keyof typeof stringFormats | DomainFormatName;
