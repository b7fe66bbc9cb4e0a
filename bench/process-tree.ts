import { readdirSync, readFileSync } from "node:fs";

/** Resident memory (kB) of one process, from /proc/<pid>/status; 0 once it is gone. */
function vmRssKb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The ids of every process below `pid` (children, grandchildren, …). */
function descendants(pid: number): number[] {
  const children = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent id; the name in field 2 may hold spaces.
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** Resident memory of a process and all its descendants (Linux), and how many there are. */
export function treeRss(pid: number): { mb: number; processes: number } {
  const pids = [pid, ...descendants(pid)];
  const kb = pids.reduce((sum, each) => sum + vmRssKb(each), 0);
  return { mb: kb / 1024, processes: pids.length };
}

/** CPU time (user + system, ms) one process has used so far (Linux; clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields 14 and 15 (utime, stime), counted after the name in field 2, which may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
