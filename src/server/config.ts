import { Type } from "@sinclair/typebox";
import { group } from "../schema/fields.ts";

export const serverSchema = group(
  "The one HTTP server: console, API, /healthz and the OneBot reverse WebSocket.",
  {
    host: Type.String({
      minLength: 1,
      default: "127.0.0.1",
      description: "Address to listen on; a non-loopback address requires server.token.",
    }),
    port: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 6180,
      description: "Port; 0 picks a free one.",
    }),
    token: Type.String({
      default: "",
      writeOnly: true,
      description: "Bearer token for the console and /api/; empty means no token (loopback only).",
    }),
    allowedHosts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'With no token: host names besides loopback ones that requests may be addressed to, "host" (any port) or "host:port", e.g. behind a reverse proxy.',
    }),
  },
);
