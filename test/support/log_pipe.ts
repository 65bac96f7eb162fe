/**
 * A real pipe for the service's stdout whose reader a test controls: a FIFO read by `cat`, which
 * copies what it reads to a file. Stopping `cat` (SIGSTOP) is a log shipper that stalls: the pipe
 * fills and stays full until SIGCONT. Killing it is a reader that exits: the pipe has no reader
 * left, so every write to it fails with EPIPE.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

/** The FIFO, its reader and what the reader has read so far. */
export interface LogPipe {
  /** The FIFO: give it to `startService` as `stdoutPath`. */
  readonly path: string;
  /** Everything the reader has copied out of the pipe so far. */
  text(): string;
  /** The reader stops reading (SIGSTOP). */
  pause(): void;
  /** The reader reads again (SIGCONT). */
  resume(): void;
  /** The reader exits (SIGKILL), leaving the pipe with no reader; resolves once it is gone. */
  close(): Promise<void>;
}

/** Makes a FIFO in `dir` and starts its reader. */
export function logPipe(dir: string): LogPipe {
  const path = join(dir, "stdout.fifo");
  const copy = join(dir, "stdout.log");
  const made = spawnSync("mkfifo", [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  // `exec`, so that the signals reach cat itself.
  const reader: ChildProcess = spawn("sh", ["-c", 'exec cat "$0" >"$1"', path, copy], {
    stdio: "ignore",
  });
  const gone = new Promise<void>((resolve) => reader.on("exit", () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    if (reader.exitCode === null && reader.signalCode === null) process.kill(reader.pid!, name);
  };
  return {
    path,
    text: () => {
      try {
        return readFileSync(copy, "utf8");
      } catch {
        return ""; // cat has not opened it yet
      }
    },
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    close: () => {
      signal("SIGKILL");
      return gone;
    },
  };
}
