import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { buildReplyExtension } from "../../src/components/extension-builder.ts";
import type { ReplyExtensionOptions } from "../../src/sdk/types.ts";

const build = (options: ReplyExtensionOptions) =>
  buildReplyExtension(
    { pluginId: "voice_plugin", name: "voice" },
    options,
    new Ajv({ useDefaults: true, allErrors: true, strict: false }),
    async () => ({}),
  );

describe("@ReplyExtension options (the decorator signature reply extensions are written with)", () => {
  it("defaults description to empty, priority to 0, timeout_ms to 60000, chat_scope to all and enabled to true", () => {
    const { component, enabled } = build({ parameters: { attach_voice: { type: "boolean" } } });
    expect(component).toMatchObject({
      fullName: "voice_plugin.voice",
      description: "",
      priority: 0,
      timeoutMs: 60_000,
      scope: { chatScope: "all" },
    });
    expect(component.scope.allowedSessions).toBeUndefined();
    expect(enabled).toBe(true);
  });

  it("keeps the declared options", () => {
    const { component, enabled } = build({
      description: "需要语音回复时启用",
      parameters: [{ name: "attach_voice", type: "boolean", required: true }],
      priority: -2,
      timeout_ms: 1_500,
      chat_scope: "private",
      allowed_session: ["private:30001"],
      enabled: false,
    });
    expect(component).toMatchObject({
      description: "需要语音回复时启用",
      priority: -2,
      timeoutMs: 1_500,
      scope: { chatScope: "private", allowedSessions: ["private:30001"] },
    });
    expect(enabled).toBe(false);
  });

  it("refuses a declaration without parameters, a fractional priority or a bad timeout", () => {
    expect(() => build({} as ReplyExtensionOptions)).toThrow(
      "reply extension voice_plugin.voice needs parameters",
    );
    expect(() => build({ parameters: {}, priority: 0.5 })).toThrow("priority must be an integer");
    expect(() => build({ parameters: {}, timeout_ms: 0 })).toThrow("timeout_ms must be a positive integer");
  });
});
