/**
 * CPU time a PostgreSQL server has spent, from `/proc` (Linux): its postmaster and every process
 * it forked (backends, WAL writer, checkpointer…), user + system. A backend that exits during a
 * run is not lost: the postmaster reaps it, and the kernel adds its time to the postmaster's
 * `cutime`/`cstime`, which are counted too. So the difference of two readings is what the
 * database spent between them, whatever connections came and went.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** The fields after the command name of /proc/<pid>/stat (the name may hold spaces). */
function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // gone between the listing and the read
  }
}

const TICKS_PER_SECOND = 100;

/** CPU seconds the server of `postmasterPid` has used so far, its exited children included. */
export function postgresCpuSeconds(postmasterPid: number): number {
  const own = statFields(postmasterPid);
  if (own === undefined) throw new Error(`Cannot read the CPU time of postmaster ${postmasterPid}`);
  // utime, stime, cutime, cstime are fields 14–17 of stat: 11–14 after the name.
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    // ppid is field 4: 1 after the name.
    if (fields === undefined || Number(fields[1]) !== postmasterPid) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}

/** The postmaster's pid from the first line of `postmaster.pid` in its data directory. */
export function postmasterPidOf(dataDirectory: string): number {
  const file = `${dataDirectory}/postmaster.pid`;
  if (!existsSync(file)) throw new Error(`Cannot find the postmaster: no ${file}`);
  return Number(readFileSync(file, "utf8").split("\n")[0]);
}
