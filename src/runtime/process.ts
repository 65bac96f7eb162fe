/**
 * node:process's signals and streams for the adapters of Bun and Node, and a timer that keeps no
 * process alive: helpers the adapters share, below them.
 */
import process from "node:process";
import type { OutputStream } from "./contract.ts";

/** `onSignal` of Bun and Node: node:process's signal events. */
export function onProcessSignal(signal: "SIGTERM" | "SIGINT" | "SIGHUP", handler: () => void) {
  process.on(signal, handler);
}

/**
 * `output` of Bun and Node: node:process's streams, which write to a pipe without blocking
 * (a pipe's backlog waits in the stream until the reader takes it; on Node, a file or a terminal
 * is written synchronously). A stream that fails emits `error`, which ends the process unless
 * someone listens: the write's callback has the error already, so the listener only keeps the
 * process alive.
 */
export function processOutput(name: "stdout" | "stderr"): OutputStream {
  const stream = process[name];
  stream.on("error", () => {});
  return {
    write: (text) =>
      new Promise((resolve, reject) => {
        stream.write(text, (error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Resolves after `ms`, without keeping the process alive for it. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    // Node and Bun give a timer object that can be unref'd, Deno a number.
    const timer: number | { unref?: () => void } = setTimeout(resolve, ms);
    if (typeof timer === "object") timer.unref?.();
  });
}
