/** Loading, ready, draining; requests in flight; the 503s `/readyz` and the app give. */
import { HttpError, RETRY_IN_A_SECOND } from "../http/errors.ts";
import { ERROR_MESSAGES } from "../schemas/error.ts";
import type { PetStore } from "../store/store.ts";

export type Readiness = "loading" | "ready" | "draining";

/** A request's wait for a loading store: sent before `/readyz` says 200, it is late, not failed. */
export const LOAD_WAIT_MS = 10_000;

/** Why `/readyz` answers 503 in each state (when ready, the store cannot answer). */
const NOT_READY: Record<Readiness, string> = {
  loading: ERROR_MESSAGES.loading,
  ready:
    "The store cannot serve: its database is unreachable, or its data file failed (see the log)",
  draining: ERROR_MESSAGES.shuttingDown,
};
/** A request the store could not answer (`StoreUnavailableError`). */
export const STORE_CANNOT_ANSWER = "The store cannot answer right now; retry later";

/** The 503 `unavailable`, with `Retry-After: 1`. */
export function unavailable(message: string): HttpError {
  return new HttpError(503, "unavailable", message, { headers: RETRY_IN_A_SECOND });
}

/** The lifecycle of one app: `ready` once the store loaded, `drain` at shutdown. */
export class Lifecycle {
  #readiness: Readiness;
  #store: PetStore | undefined;
  #inFlight = 0;
  #idleWaiters: (() => void)[] = [];
  #endDelay: (() => void) | undefined;
  readonly #loadWaitMs: number;
  readonly #loaded: Promise<void>;
  #storeLoaded!: () => void;
  /** The store for a request by state, made once (a drain changes only `/readyz`). */
  readonly #storeFor: Record<Readiness, () => PetStore>;

  /** `store`: one that is ready from the start (tests); otherwise call `ready(store)`. */
  constructor(options: { store?: PetStore; loadWaitMs?: number } = {}) {
    this.#store = options.store;
    this.#readiness = options.store === undefined ? "loading" : "ready";
    this.#loadWaitMs = options.loadWaitMs ?? LOAD_WAIT_MS;
    this.#loaded = new Promise<void>((resolve) => this.#storeLoaded = resolve);
    const loading = (): PetStore => {
      throw unavailable(ERROR_MESSAGES.loading);
    };
    const loaded = () => this.#store ?? loading();
    this.#storeFor = { loading, ready: loaded, draining: loaded };
  }

  get readiness(): Readiness {
    return this.#readiness;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The store a request arriving now is given (it throws 503 while the store loads). */
  storeForRequest(): () => PetStore {
    return this.#storeFor[this.#readiness];
  }

  /** As `/readyz` says: loaded, able to answer (a lost database says no), not shutting down. */
  isReady(): boolean {
    return this.#readiness === "ready" && this.#store?.isAvailable?.() !== false;
  }

  /** Why `/readyz` answers 503, or undefined when it answers 200. */
  notReady(): HttpError | undefined {
    return this.isReady() ? undefined : unavailable(NOT_READY[this.#readiness]);
  }

  ready(store: PetStore): void {
    this.#store = store;
    if (this.#readiness === "loading") this.#readiness = "ready";
    this.#storeLoaded();
  }

  /** Only `/readyz` changes (503); resolves after SHUTDOWN_DELAY or at `endDelay()`. */
  drain(delayMs = 0): Promise<void> {
    this.#readiness = "draining";
    if (delayMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.endDelay(), delayMs);
      this.#endDelay = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Ends a running SHUTDOWN_DELAY at once; false when none runs. */
  endDelay(): boolean {
    const end = this.#endDelay;
    this.#endDelay = undefined;
    end?.();
    return end !== undefined;
  }

  /** Resolves once the store is loaded, or after the load wait, whichever comes first. */
  untilLoaded(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => timer = setTimeout(resolve, this.#loadWaitMs));
    return Promise.race([this.#loaded, waited]).finally(() => clearTimeout(timer));
  }

  begin(): void {
    this.#inFlight++;
  }

  /** A request was answered; the last one out wakes those waiting for `idle()`. */
  end(): void {
    if (--this.#inFlight > 0 || this.#idleWaiters.length === 0) return;
    for (const resolve of this.#idleWaiters) resolve();
    this.#idleWaiters = [];
  }

  /** Resolves once no request is in flight (at once when none is). */
  idle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }
}
