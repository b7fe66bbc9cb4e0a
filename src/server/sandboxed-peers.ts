import { readdirSync, readlinkSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Socket } from "node:net";
import { isLoopbackHost } from "./request-access.ts";

/**
 * Tells whether a connection to the bot's server comes from an untrusted plugin or MCP
 * server process (docs/security.md, "Plugins"). Such a process shares the machine's network,
 * so it reaches the server over loopback like the console does; what sets it apart is who
 * holds the other end of the socket. Linux lists every TCP socket of this network namespace
 * in /proc/net/tcp(6) with its owner and inode:
 * - a bot running as root starts every untrusted process as `plugins.sandboxUid`, so a socket
 *   of that user is one of them;
 * - otherwise they run as the bot's own user, but an isolated one always in a PID namespace
 *   of its own: the socket's inode is looked for among the open files of the processes in
 *   another PID namespace than the bot's.
 * Looked up once per connection, and only for requests that carry no credential (the caller
 * decides): reading the tables takes a while on a machine with thousands of sockets. Elsewhere
 * than on Linux there is no sandbox and no answer.
 */
export function sandboxedPeers(sandboxUid: () => number): (socket: Socket) => Promise<boolean> {
  const known = new WeakMap<Socket, Promise<boolean>>();
  return (socket) => {
    let answer = known.get(socket);
    if (answer === undefined) {
      answer = isSandboxed(socket, sandboxUid()).catch(() => false);
      known.set(socket, answer);
    }
    return answer;
  };
}

async function isSandboxed(socket: Socket, sandboxUid: number): Promise<boolean> {
  if (process.platform !== "linux") return false;
  const { remoteAddress, remotePort, localPort } = socket;
  if (!remoteAddress || !isLoopbackHost(remoteAddress) || !remotePort || !localPort) return false;
  const asRoot = process.getuid?.() === 0;
  for (const peer of await peerSockets(remotePort, localPort)) {
    if (asRoot ? peer.uid === sandboxUid : inForeignPidNamespace(peer.inode)) return true;
  }
  return false;
}

interface PeerSocket {
  uid: number;
  inode: string;
}

/** The sockets of this machine from local port `from` to port `to` (the client's ends of our connection). */
async function peerSockets(from: number, to: number): Promise<PeerSocket[]> {
  const ports = `:${hexPort(from)} `;
  const remote = `:${hexPort(to)} `;
  const found: PeerSocket[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = await readFile(table, "latin1");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
      const [, local = "", rem = "", , , , , uid = "", , inode = ""] = line.trim().split(/\s+/);
      if (`${local} `.endsWith(ports) && `${rem} `.endsWith(remote)) found.push({ uid: Number(uid), inode });
    }
  }
  return found;
}

/** Whether a process in another PID namespace than the bot's (a sandbox) holds the socket. */
function inForeignPidNamespace(inode: string): boolean {
  const own = readLink("/proc/self/ns/pid");
  if (!own || inode === "0") return false;
  const socket = `socket:[${inode}]`;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const namespace = readLink(`/proc/${pid}/ns/pid`);
    if (!namespace || namespace === own) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    if (fds.some((fd) => readLink(`/proc/${pid}/fd/${fd}`) === socket)) return true;
  }
  return false;
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, "0");
}
