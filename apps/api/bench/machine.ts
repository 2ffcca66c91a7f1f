import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/** Busy and total CPU time of the whole machine, from `/proc/stat` (Linux); `null` elsewhere. */
export interface MachineTicks {
  busyMs: number;
  totalMs: number;
}

/** USER_HZ, the unit of `/proc/stat`: 100 on every Linux architecture Node runs on. */
const ticksPerSecond = 100;

export function machineTicks(): MachineTicks | null {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    const busy = user + nice + system + irq + softirq + steal;
    return { busyMs: (busy * 1000) / ticksPerSecond, totalMs: ((busy + idle + iowait) * 1000) / ticksPerSecond };
  } catch {
    return null;
  }
}

/** CPU time of this process in milliseconds. */
export function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU time of every process named `postgres` (server and backends) in milliseconds; 0 when `/proc` cannot be read. */
export function postgresCpuMs(): number {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    if (/^\d+$/.test(entry)) total += processStat(Number(entry), "postgres");
  }
  return total;
}

/** CPU time in milliseconds of process `pid` (0 when gone, or when its name is not `name`). */
function processStat(pid: number, name?: string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    if (name !== undefined && stat.slice(stat.indexOf("(") + 1, close) !== name) return 0;
    // After "pid (comm) ", utime and stime are the 12th and 13th fields (man 5 proc).
    const fields = stat.slice(close + 2).split(" ");
    return ((Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 1000) / ticksPerSecond;
  } catch {
    return 0;
  }
}

/** A snapshot of where CPU went, to tell the targets' cost from other load on the machine. */
export interface CpuSnapshot {
  machine: MachineTicks | null;
  /** This process, the load generator. */
  ownMs: number;
  /** This process and every target server, busy or idle. */
  benchMs: number;
  postgresMs: number;
  wallMs: number;
}

export function cpuSnapshot(childPids: number[]): CpuSnapshot {
  const ownMs = processCpuMs();
  return {
    machine: machineTicks(),
    ownMs,
    benchMs: ownMs + childPids.reduce((total, pid) => total + processStat(pid), 0),
    postgresMs: postgresCpuMs(),
    wallMs: performance.now(),
  };
}
