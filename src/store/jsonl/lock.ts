/**
 * One writer per data directory. The lock (pid, its start time, host) is written and fsync'd under
 * a name of its own, then linked into place (as exclusive as O_EXCL), so it is never seen half
 * written. It is taken over when its pid is gone or reused, or it is unreadable; another host's
 * is kept. A takeover renames it aside and puts it back if it was not the one judged stale.
 */
import { link, readFile, rename, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { errorCodeOf } from "../../observe/error_code.ts";
import { type FileLayer, nodeFileLayer, writeFully } from "./file_layer.ts";

const LOCK_FILE = "animal-store.lock";

/** To tell this process's own live locks from a dead namesake's. */
const heldHere = new Set<string>();

/** `startTime`: the pid's (Linux: clock ticks after boot, /proc/<pid>/stat field 22), or null. */
type LockOwner = { pid: number; startTime: string | null; hostname: string };

export type DirectoryLock = { release(): Promise<void> };

/** Takes the lock or returns why not: "data directory DIR is in use by <the owner>". */
export async function acquireLock(
  dataDir: string,
  files: FileLayer = nodeFileLayer,
): Promise<DirectoryLock | { readonly refused: string }> {
  const path = join(dataDir, LOCK_FILE);
  const startTime = (await processStartTime(process.pid)) ?? null;
  const me: LockOwner = { pid: process.pid, startTime, hostname: hostname() };
  const refuse = (by: string) => ({ refused: `data directory ${dataDir} is in use by ${by}` });
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createLockFile(path, me, files)) {
      heldHere.add(path);
      return {
        release: () => {
          heldHere.delete(path);
          return unlink(path).catch(() => {});
        },
      };
    }
    const text = await readFile(path, "utf8").catch(() => undefined);
    if (text === undefined) continue; // removed meanwhile: try again
    const owner = parseOwner(text);
    const verdict = owner === undefined ? "gone" : await ownerVerdict(path, owner, me);
    if (verdict !== "gone") return refuse(verdict);
    if (!(await moveAside(path, text))) {
      return refuse("another process took the lock over at the same time");
    }
  }
  return refuse("the lock file keeps changing");
}

/** Start time of a running pid, undefined when it does not run, null when it cannot be told. */
export async function processStartTime(pid: number): Promise<string | null | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch((error: Error) => error);
  if (typeof stat !== "string") {
    // No readable /proc (macOS, or Deno without --allow-all): fall back to the pid alone.
    if (!(await procAvailable())) return isRunning(pid) ? null : undefined;
    return errorCodeOf(stat) === "ENOENT" ? undefined : null;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[22 - 3] ?? null;
}

/** False when a lock exists already. */
async function createLockFile(path: string, me: LockOwner, files: FileLayer): Promise<boolean> {
  // Named after this pid: no other live process writes it, and a leftover of a dead process with
  // the same pid (a container's pid 1) is simply overwritten.
  const draft = `${path}.${me.pid}.draft`;
  const file = await files.open(draft, "w");
  try {
    await writeFully(file, new TextEncoder().encode(`${JSON.stringify(me)}\n`), 0);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await link(draft, path);
    return true;
  } catch (error) {
    if (errorCodeOf(error) === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(draft).catch(() => {});
  }
}

/** "gone" when the owner is surely not running, else the reason to refuse. */
async function ownerVerdict(path: string, owner: LockOwner, me: LockOwner): Promise<string> {
  if (owner.hostname !== me.hostname) {
    return `process ${owner.pid} on host ${owner.hostname} (remove ${LOCK_FILE} if it no longer runs)`;
  }
  // Our own pid in a lock we do not hold: a previous run died (in containers we are always pid 1).
  if (owner.pid === me.pid) {
    const sameStart = owner.startTime !== null && owner.startTime === me.startTime;
    return heldHere.has(path) || sameStart ? `process ${owner.pid}` : "gone";
  }
  const startTime = await processStartTime(owner.pid);
  const reused = startTime != null && owner.startTime !== null && startTime !== owner.startTime;
  return startTime === undefined || reused ? "gone" : `process ${owner.pid}`;
}

/** False (and the file put back) when it was no longer that stale lock. */
async function moveAside(path: string, staleText: string): Promise<boolean> {
  const aside = `${path}.stale-${process.pid}-${Date.now()}`;
  const renamed = await rename(path, aside).then(() => true, () => false);
  if (!renamed) return true; // already gone: the next attempt creates it
  const moved = await readFile(aside, "utf8").catch(() => undefined);
  if (moved !== staleText) {
    await rename(aside, path).catch(() => {});
    return false;
  }
  await unlink(aside).catch(() => {});
  return true;
}

/** Undefined when unreadable. */
function parseOwner(text: string): LockOwner | undefined {
  try {
    const { pid, startTime, hostname } = JSON.parse(text) ?? {};
    const sound = Number.isSafeInteger(pid) && typeof hostname === "string" &&
      (typeof startTime === "string" || startTime === null);
    return sound ? { pid, startTime, hostname } : undefined;
  } catch {
    return undefined;
  }
}

/** Not `existsSync`: where Deno's permissions hide /proc, it throws. */
let procChecked: boolean | undefined;
async function procAvailable(): Promise<boolean> {
  procChecked ??= await stat("/proc/self/stat").then(() => true, () => false);
  return procChecked;
}

/** Only ESRCH proves a pid gone: a live owner is never taken over because we may not look. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCodeOf(error) !== "ESRCH";
  }
}
