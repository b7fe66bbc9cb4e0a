import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { sep } from "node:path";

/** What an isolated process sees of the machine's files, besides the system's own. */
export interface SandboxView {
  /** Folders (and files) shown read-only at their own paths. */
  readOnly: string[];
  /** Folders shown writable: a plugin's `data/`. */
  writable: string[];
  /**
   * Paths hidden wherever a shown folder holds them: the bot's config file (an empty file
   * instead) and data folder (an empty one).
   */
  hidden: string[];
  /** The folder the process starts in. */
  cwd: string;
  /** false: only a loopback interface of its own (the manifest's `network: false`). */
  network: boolean;
}

/** System folders shown read-only; a merged-/usr system has symbolic links for all but /usr. */
const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"];

/**
 * The pieces of /etc programs read: certificates (HTTPS), name resolution, users and groups
 * (whoami, Node's os.userInfo), the time zone, the dynamic linker's cache and Debian's
 * alternatives (`/usr/bin/java` → `/etc/alternatives/java`). Missing ones are skipped.
 */
const ETC_FILES = [
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/host.conf",
  "/etc/nsswitch.conf",
  "/etc/gai.conf",
  "/etc/passwd",
  "/etc/group",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
];

type Mount =
  | { kind: "bind"; path: string; writable: boolean; optional?: boolean }
  | { kind: "symlink"; path: string; target: string }
  | { kind: "tmpfs"; path: string; perms: string }
  | { kind: "proc" | "dev" | "hide-file"; path: string }
  /** A parent folder created for a mount (see folderArguments). */
  | { kind: "dir"; path: string };

/**
 * bubblewrap's arguments (up to the `--` before the command) for a process in new PID, IPC
 * and UTS namespaces (and mount namespace) that sees the system folders, the pieces of /etc
 * above, a /proc of its own PID namespace (so neither /proc/1 nor its parent is the bot), a
 * minimal /dev, a private /tmp, and of everything else only `view`. It dies with the bot and
 * runs in a session of its own (no typing into the bot's terminal).
 */
export function bwrapArguments(view: SandboxView): string[] {
  const mounts: Mount[] = [];
  for (const path of SYSTEM_FOLDERS) {
    const kind = fileKind(path);
    if (kind === "symlink") mounts.push({ kind: "symlink", path, target: readlinkSync(path) });
    else if (kind === "directory") mounts.push({ kind: "bind", path, writable: false });
  }
  for (const path of ETC_FILES) mounts.push({ kind: "bind", path, writable: false, optional: true });
  mounts.push(
    { kind: "proc", path: "/proc" },
    { kind: "dev", path: "/dev" },
    { kind: "tmpfs", path: "/tmp", perms: "1777" },
  );
  for (const path of view.readOnly) mounts.push({ kind: "bind", path, writable: false });
  for (const path of view.writable) mounts.push({ kind: "bind", path, writable: true });
  const shown = mounts.filter((mount) => mount.kind === "bind").map((mount) => mount.path);
  for (const path of view.hidden) {
    // Only where a shown folder would show it; elsewhere it is not there to hide.
    if (!existsSync(path) || !shown.some((folder) => isInside(path, folder))) continue;
    mounts.push(
      fileKind(path) === "directory" ? { kind: "tmpfs", path, perms: "0700" } : { kind: "hide-file", path },
    );
  }
  // Outer folders first, so a folder shown inside a hidden or temporary one is mounted over it.
  const ordered = mounts
    .map((mount, index) => ({ mount, index }))
    .sort((a, b) => depth(a.mount.path) - depth(b.mount.path) || a.index - b.index)
    .map(({ mount }) => mount);

  const args = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session"];
  if (!view.network) args.push("--unshare-net");
  const done: Mount[] = [];
  for (const mount of ordered) {
    if (mount.kind === "bind" && !mount.writable && isRedundant(mount.path, done)) continue;
    args.push(...folderArguments(mount.path, done), ...mountArguments(mount));
    done.push(mount);
  }
  args.push("--chdir", view.cwd);
  return args;
}

function mountArguments(mount: Mount): string[] {
  switch (mount.kind) {
    case "bind":
      return [
        mount.writable ? "--bind" : mount.optional ? "--ro-bind-try" : "--ro-bind",
        mount.path,
        mount.path,
      ];
    case "symlink":
      return ["--symlink", mount.target, mount.path];
    case "tmpfs":
      return ["--perms", mount.perms, "--tmpfs", mount.path];
    case "proc":
      return ["--proc", mount.path];
    case "dev":
      return ["--dev", mount.path];
    case "hide-file":
      return ["--ro-bind", "/dev/null", mount.path];
    case "dir":
      return ["--perms", "0755", "--dir", mount.path];
  }
}

/**
 * `--dir` for the parent folders of a mount that do not exist yet in the sandbox (those
 * inside a shown folder do): bubblewrap would create them readable by their owner only,
 * which a process dropped to another user could not pass through.
 */
function folderArguments(path: string, done: Mount[]): string[] {
  const args: string[] = [];
  const parts = path.split(sep).filter(Boolean);
  for (let count = 1; count < parts.length; count++) {
    const folder = `/${parts.slice(0, count).join("/")}`;
    const covering = done.findLast((mount) => isInside(folder, mount.path));
    const exists =
      covering !== undefined &&
      (covering.path === folder || covering.kind === "bind" || covering.kind === "symlink");
    if (exists) continue;
    const created: Mount = { kind: "dir", path: folder };
    args.push(...mountArguments(created));
    done.push(created);
  }
  return args;
}

/** A read-only folder already shown read-only through a folder around it (and not hidden since). */
function isRedundant(path: string, done: Mount[]): boolean {
  const covering = done.findLast((mount) => isInside(path, mount.path));
  return covering?.kind === "bind" && !covering.writable && !covering.optional;
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

function depth(path: string): number {
  return path.split(sep).filter(Boolean).length;
}

function fileKind(path: string): "symlink" | "directory" | "file" | undefined {
  try {
    const stat = lstatSync(path);
    return stat.isSymbolicLink() ? "symlink" : stat.isDirectory() ? "directory" : "file";
  } catch {
    return undefined;
  }
}
