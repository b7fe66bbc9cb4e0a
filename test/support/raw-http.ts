/**
 * HTTP/1.1 over a plain socket: the request target and headers go out byte for byte (fetch
 * would normalise the path and refuse to set Host), as an attacker's client would send them.
 */
import { connect, type Socket } from "node:net";

export interface RawRequest {
  method: string;
  /** Sent as is: `/%61pi/config`, `//api/x`, `http://127.0.0.1:1/api/x`, … */
  target: string;
  /** Host defaults to `127.0.0.1:<port>`, Connection to `close`. */
  headers?: Record<string, string>;
  body?: string;
  /** How long to wait for an answer before settling with what arrived; default 5 s. */
  timeoutMs?: number;
}

export interface RawAnswer {
  /** 0 when the server closed without a status line. */
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/** A stream (SSE) never ends: its answer is what arrived before it went quiet this long. */
const QUIET_MS = 300;
const TIMEOUT_MS = 5_000;

export function rawRequest(port: number, request: RawRequest): Promise<RawAnswer> {
  const { body } = request;
  const headers =
    body === undefined
      ? request.headers
      : { ...request.headers, "content-length": String(Buffer.byteLength(body)) };
  const { socket, answer } = openRequest(port, { ...request, headers });
  if (body !== undefined) socket.write(body);
  return answer;
}

export interface OpenRequest {
  /** Where the test writes the body, as slowly or as much as it likes. */
  socket: Socket;
  /** Settles once the server answered (or closed) and went quiet. */
  answer: Promise<RawAnswer>;
}

/** Sends the request line and headers only; the body is the caller's to write on `socket`. */
export function openRequest(port: number, request: Omit<RawRequest, "body">): OpenRequest {
  const headers: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    connection: "close",
    ...request.headers,
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const socket = connect(port, "127.0.0.1");
  socket.write(`${request.method} ${request.target} HTTP/1.1\r\n${head}\r\n`);
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let quiet: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(quiet);
      clearTimeout(deadline);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks)));
    };
    const deadline = setTimeout(finish, request.timeoutMs ?? TIMEOUT_MS);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(quiet);
      quiet = setTimeout(finish, QUIET_MS);
    });
    socket.on("end", finish);
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET" || error.code === "EPIPE") finish();
      else reject(error);
    });
  });
  return { socket, answer };
}

function parseAnswer(bytes: Buffer): RawAnswer {
  const split = bytes.indexOf("\r\n\r\n");
  const head = (split === -1 ? bytes : bytes.subarray(0, split)).toString("latin1");
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const raw = split === -1 ? Buffer.alloc(0) : bytes.subarray(split + 4);
  const body = headers["transfer-encoding"] === "chunked" ? dechunk(raw) : raw;
  return { status, headers, body: body.toString("utf8") };
}

/** Chunk sizes count bytes, so this works on the bytes; a cut-off stream keeps what arrived. */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let rest = raw;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    const size = lineEnd === -1 ? 0 : Number.parseInt(rest.subarray(0, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    rest = rest.subarray(lineEnd + 2 + size + 2);
  }
}
