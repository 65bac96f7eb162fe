/**
 * Helpers the adapters share, below them: node:process's signals and streams (Bun, Node), a timer
 * that keeps no process alive, and the drain of Deno and Bun.
 */
import process from "node:process";
import {
  HOLD_BEFORE_CLOSE_MS,
  IDLE_QUIET_MS,
  type OutputStream,
  type Respond,
  webResponse,
} from "./contract.ts";

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

/**
 * The drain of Deno and Bun (docs/operations.md, "Stopping behind a proxy"). Their servers close
 * the listener and every idle keep-alive connection in one move, and a connection in a busy proxy
 * pool is idle only between two requests, so the proxy's next request would meet the close. So
 * for `IDLE_QUIET_MS` every answer says `Connection: close` (the client, told, closes), and only
 * then is the server stopped, which closes what stayed idle all along. For the last
 * `HOLD_BEFORE_CLOSE_MS` of it new requests are `held` until the stop, so none waits unseen in a
 * queue the stop empties.
 */
export class Drain {
  #draining = false;
  /** While set, new requests wait for it before they are handled. */
  held: Promise<void> | undefined;

  /** `webResponse`, closing the connection from the drain on (a request in flight included). */
  readonly respond: Respond<Response> = (reply) => {
    if (this.#draining) reply.headers.connection = "close";
    return webResponse(reply);
  };

  /** Drains, then calls `stop`; true once it resolved, false if `graceMs` passed first. */
  async stopAfter(graceMs: number, stop: () => Promise<unknown>): Promise<boolean> {
    this.#draining = true;
    const deadline = delay(graceMs).then(() => false);
    await Promise.race([delay(Math.min(IDLE_QUIET_MS - HOLD_BEFORE_CLOSE_MS, graceMs)), deadline]);
    let release!: () => void;
    this.held = new Promise<void>((resolve) => release = resolve);
    await Promise.race([delay(Math.min(HOLD_BEFORE_CLOSE_MS, graceMs)), deadline]);
    const stopped = stop().then(() => true);
    release();
    this.held = undefined;
    return await Promise.race([stopped, deadline]);
  }
}
