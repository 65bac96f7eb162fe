/** Helpers the adapters share: node:process's signals and streams, an unref'd timer, the drain. */
import process from "node:process";
import type { AppRequest, Respond, RuntimeAdapter, ServeOptions } from "./contract.ts";
import { webResponse } from "./contract.ts";

/** How long a drain lets a connection stay idle before closing it (docs/operations.md: ≤ 1 s). */
export const IDLE_QUIET_MS = 500;
const HOLD_BEFORE_CLOSE_MS = 300;

/** Bun's and Node's signals and streams; a failing stream emits `error`, fatal unless heard. */
export const processEvents: Pick<RuntimeAdapter, "onSignal" | "output"> = {
  onSignal: (signal, handler) => void process.on(signal, handler),
  output(name) {
    const stream = process[name];
    stream.on("error", () => {});
    return {
      write: (text) =>
        new Promise((resolve, reject) => {
          stream.write(text, (error) => (error ? reject(error) : resolve()));
        }),
    };
  },
};

/** Resolves after `ms`, without keeping the process alive for it. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    // Node and Bun give a timer object that can be unref'd, Deno a number.
    const timer: number | { unref?: () => void } = setTimeout(resolve, ms);
    if (typeof timer === "object") timer.unref?.();
  });
}

/**
 * The drain of Deno and Bun (docs/operations.md, "Stopping behind a proxy"). Their stop closes the
 * listener and every idle connection at once, and a pooled connection is idle between requests
 * (closed then, it could meet a proxy's request): so for `IDLE_QUIET_MS` every answer says
 * `Connection: close` before the stop. The stop also resets a request accepted but not yet handed
 * to the app, so for the last `HOLD_BEFORE_CLOSE_MS` new requests wait and are answered after it.
 */
export class Drain {
  #draining = false;
  #held: Promise<void> | undefined;

  /** `webResponse`, closing the connection from the drain on (a request in flight included). */
  readonly respond: Respond<Response> = (reply) => {
    if (this.#draining) reply.headers.connection = "close";
    return webResponse(reply);
  };

  /** Hands `request` to the app, after the hold when one is on. */
  handle(options: ServeOptions, request: AppRequest): Response | Promise<Response> {
    if (this.#held === undefined) return options.handle(request, this.respond);
    return this.#held.then(() => options.handle(request, this.respond));
  }

  /** Drains, then calls `stop`; true once it resolved, false if `graceMs` passed first. */
  async stopAfter(graceMs: number, stop: () => Promise<unknown>): Promise<boolean> {
    this.#draining = true;
    const deadline = delay(graceMs).then(() => false);
    await Promise.race([delay(Math.min(IDLE_QUIET_MS - HOLD_BEFORE_CLOSE_MS, graceMs)), deadline]);
    let release!: () => void;
    this.#held = new Promise<void>((resolve) => release = resolve);
    await Promise.race([delay(Math.min(HOLD_BEFORE_CLOSE_MS, graceMs)), deadline]);
    const stopped = stop().then(() => true);
    release();
    this.#held = undefined;
    return await Promise.race([stopped, deadline]);
  }
}
