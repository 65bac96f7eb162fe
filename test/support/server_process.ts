/**
 * Starting the real service as a child process, on the runtime under test, on a free port and a
 * temporary data directory. The runtime is `TARGET_RUNTIME` (deno, bun, node or executable),
 * defaulting to the one running the tests; node runs the esbuild bundle (`npm run build` first),
 * executable the single executable (`npm run compile` first).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";

/** A runtime, or `executable`: the single executable `npm run compile` builds (dist/animal-store). */
export type RuntimeName = "deno" | "bun" | "node" | "executable";

/**
 * The repository root: the nearest directory above this module with a deno.json. Searched, not
 * fixed, because the benchmarks run this module bundled from node_modules/.cache/….
 */
const ROOT = findRoot(import.meta.dirname ?? new URL(".", import.meta.url).pathname);

function findRoot(start: string): string {
  for (let dir = resolve(start); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "deno.json")) && !dir.includes("node_modules")) return dir;
  }
  return process.cwd();
}

/** The single executable built by `npm run compile` (scripts/compile_bun.sh). */
export const EXECUTABLE = join(ROOT, "dist/animal-store");

/** The runtime the HTTP suites start the service on. */
export function targetRuntime(): RuntimeName {
  const requested = process.env.TARGET_RUNTIME;
  if (
    requested === "deno" || requested === "bun" || requested === "node" ||
    requested === "executable"
  ) return requested;
  const globals = globalThis as { Deno?: unknown; Bun?: unknown };
  return globals.Deno !== undefined ? "deno" : globals.Bun !== undefined ? "bun" : "node";
}

/** The permission flags of `deno task start` (deno.json), the one place they are written. */
export function denoStartFlags(): string[] {
  const denoJson = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
  return (denoJson.tasks.start as string).split(" ").filter((word) => word.startsWith("--"));
}

/** The command line that runs the service (with `args` as sub-command) on a runtime. */
export function serviceCommand(runtime: RuntimeName, args: string[] = []): [string, string[]] {
  const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);
  switch (runtime) {
    case "deno":
      return [bin("deno"), ["run", ...denoStartFlags(), join(ROOT, "src/main.ts"), ...args]];
    case "bun":
      return [bin("bun"), [join(ROOT, "src/main.ts"), ...args]];
    case "node": {
      // Only Node's own execPath will do: under Deno or Bun, execPath is that runtime (and its
      // path contains "node_modules"), which would run the bundle on the wrong runtime.
      const globals = globalThis as { Deno?: unknown; Bun?: unknown };
      const onNode = globals.Deno === undefined && globals.Bun === undefined;
      return [onNode ? process.execPath : "node", [
        join(ROOT, "dist/animal-store.mjs"),
        ...args,
      ]];
    }
    case "executable":
      return [EXECUTABLE, args];
  }
}

/** A fresh temporary directory, removed by the returned function. */
export function temporaryDirectory(prefix = "animal-store-"): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A running service process. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
  /** Sends a signal without waiting. */
  kill(signal: NodeJS.Signals): void;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface StartOptions {
  readonly dataDir: string;
  readonly env?: Record<string, string>;
  readonly runtime?: RuntimeName;
  /** A command that runs the service as its last arguments (e.g. `strace -o FILE`). */
  readonly wrapper?: readonly string[];
  /**
   * A file or FIFO the service's stdout goes to (opened by a shell, for appending) instead of the
   * pipe `stdout()` reads. The port is then picked beforehand, and the service is ready once
   * `/readyz` answers 200.
   */
  readonly stdoutPath?: string;
}

/** Runs a command of the service to completion (verify, healthcheck, bad settings...). */
export function runService(
  args: string[],
  options: { env?: Record<string, string>; runtime?: RuntimeName; timeoutMs?: number } = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const [command, commandArgs] = serviceCommand(options.runtime ?? targetRuntime(), args);
  const child = spawn(command, commandArgs, {
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")} did not finish: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      // Let the pipes drain before reporting.
      setTimeout(() => resolvePromise({ code: code ?? signal ?? -1, stdout, stderr }), 20);
    });
  });
}

/** Starts the service and waits until it is ready. */
export async function startService(options: StartOptions): Promise<ServiceProcess> {
  const [serviceBinary, serviceArgs] = serviceCommand(options.runtime ?? targetRuntime());
  const { stdoutPath } = options;
  // `exec`, so that the child is the service itself, not a shell around it.
  const redirect = stdoutPath === undefined
    ? []
    : ["sh", "-c", 'out=$1; shift; exec "$@" >>"$out"', "sh", stdoutPath];
  const [command, ...args] = [
    ...redirect,
    ...options.wrapper ?? [],
    serviceBinary,
    ...serviceArgs,
  ];
  const fixedPort = stdoutPath === undefined ? 0 : await freePort();
  const env = {
    ...process.env,
    PORT: String(fixedPort),
    HOST: "127.0.0.1",
    DATA_DIR: options.dataDir,
    ...options.env,
  };
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const stdoutText = new OutputTail();
  const stderrText = new OutputTail();
  child.stdout!.on("data", (chunk) => stdoutText.add(String(chunk)));
  child.stderr!.on("data", (chunk) => stderrText.add(String(chunk)));
  const stdout = () => stdoutText.text();
  const stderr = () => stderrText.text();
  const exited = new Promise<number | string>((resolvePromise) => {
    child.on("exit", (code, signal) => setTimeout(() => resolvePromise(code ?? signal ?? -1), 20));
  });

  const port = await new Promise<number>((resolvePromise, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`service did not start:\n${stdout()}\n${stderr()}`)),
      20_000,
    );
    const listening = (port: number) => {
      clearTimeout(timer);
      resolvePromise(port);
    };
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${stdout()}\n${stderr()}`));
    });
    if (stdoutPath !== undefined) {
      pollReady(fixedPort, exited).then(() => listening(fixedPort), () => {});
      return;
    }
    const check = () => {
      const match = /"port":(\d+)/.exec(stdout());
      if (match !== null) {
        child.stdout!.off("data", check);
        listening(Number(match[1]));
      }
    };
    child.stdout!.on("data", check);
  });
  const url = `http://127.0.0.1:${port}`;
  const kill = (signal: NodeJS.Signals) => {
    // process.kill, not child.kill: after child.kill, Deno's child_process reports the signal
    // as the exit status even when the service handled it and exited 0.
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
  };
  return {
    child,
    url,
    port,
    stdout,
    stderr,
    exited,
    kill,
    stop(signal: NodeJS.Signals = "SIGTERM") {
      kill(signal);
      return exited;
    },
  };
}

/**
 * A child's output as text, bounded: a long soak logs gigabytes, more than a string may hold. The
 * first 1 MB (start-up lines) and the last 4 MB are kept.
 */
class OutputTail {
  static readonly HEAD = 1024 * 1024;
  static readonly TAIL = 4 * 1024 * 1024;
  private head = "";
  private tail = "";
  private dropped = 0;

  add(chunk: string): void {
    if (this.head.length < OutputTail.HEAD) {
      this.head += chunk;
      return;
    }
    this.tail += chunk;
    if (this.tail.length > 2 * OutputTail.TAIL) {
      this.dropped += this.tail.length - OutputTail.TAIL;
      this.tail = this.tail.slice(-OutputTail.TAIL);
    }
  }

  text(): string {
    const gap = this.dropped === 0 ? "" : `\n[… ${this.dropped} characters not kept …]\n`;
    return this.head + gap + this.tail;
  }
}

/** Resolves once `/readyz` on `port` answers 200; never, if the process exits first. */
async function pollReady(port: number, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  exited.then(() => (gone = true));
  while (!gone) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`, {
        signal: AbortSignal.timeout(1_000),
      });
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("exited");
}

/** A free loopback port: bound, then released for a child to take. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * A free port below the kernel's ephemeral range (32768 and up by default), for a service that is
 * restarted on the same port: one from that range (as `freePort` gives) can be taken, while the
 * service is down, as the local port of some outgoing connection, and the restart then fails.
 */
export async function freeFixedPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error("no free port between 20000 and 32000");
}

/** Polls `check` until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
