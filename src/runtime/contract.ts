/**
 * The seam between the app and the runtime adapters, and the contract every adapter fulfils.
 * Adapters are the only modules that know which runtime runs; each owns listening, signals and
 * graceful shutdown for its runtime. The app adds the request's own headers to a route's `Reply`
 * and hands it, once per request, to the adapter's `Respond`: `webResponse` on Deno and Bun (and
 * in tests); on Node the adapter writes the reply itself with one `writeHead` and one `end`.
 */

/**
 * The parts of a request the app reads. A web `Request` has them (Deno, Bun, tests); the Node
 * adapter builds just these from node:http's request.
 */
export interface AppRequest {
  readonly method: string;
  /** Absolute (`http://host/path?query`) or the origin-form target itself (`/path?query`). */
  readonly url: string;
  readonly headers: {
    get(name: string): string | null;
    has(name: string): boolean;
  };
  /** Null for a request without a body (GET, HEAD). */
  readonly body: ReadableStream<Uint8Array> | null;
  arrayBuffer(): Promise<ArrayBuffer>;
  /**
   * Set (true) by an adapter whose runtime's `url` no longer shows the path as sent (Bun) when
   * that path names nothing (`splitUrl`'s `unroutable`); the others leave it unset.
   */
  readonly unroutable?: boolean;
}

/** What a route answers, and what the app hands the adapter's `Respond` once per request. */
export interface Reply {
  readonly status: number;
  /** Text, UTF-8 bytes, or null for no content. */
  readonly body: string | Uint8Array<ArrayBuffer> | null;
  /** Lower-case names; a fresh object per reply, since the app adds the request's headers. */
  readonly headers: Record<string, string>;
}

/** Makes a runtime's response of the request's whole reply (every header included). */
export type Respond<R> = (reply: Reply) => R;

export function webResponse(reply: Reply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

/** A standard stream of the process, as the runtime adapter writes to it. */
export interface OutputStream {
  /**
   * Resolves once the operating system took all of `text`; rejects with its error (EPIPE,
   * ENOSPC, …). Never blocks the event loop, however long the stream takes.
   */
  write(text: string): Promise<void>;
}

/** A brotli encoder: `body` as one brotli stream at `quality` (the window is the default, 22). */
export type BrotliEncoder = (body: Uint8Array, quality: number) => Uint8Array;

/**
 * A path as sent with more segments than this names nothing, on every runtime: Bun's adapter sees
 * the path as sent only through Bun's router, one route per depth up to this one (runtime/bun.ts),
 * so the others apply the same cut (`splitUrl`'s `unroutable`) and every runtime answers alike.
 */
export const MAX_PATH_SEGMENTS = 64;

export interface ServeOptions {
  /**
   * The app's handler (`App.handle`): each adapter passes the `Respond` that makes what its
   * server writes, a web Response (Deno, Bun) or the reply itself (Node).
   */
  readonly handle: <R>(request: AppRequest, respond: Respond<R>) => R | Promise<R>;
  readonly port: number;
  readonly host: string;
  /** PEM certificate chain and key: when given, the port speaks HTTPS only. */
  readonly tls?: TlsMaterial;
  /** Told what went wrong around the server that the service survives (out of descriptors). */
  readonly onWarning?: (message: string) => void;
}

/** What a runtime needs to serve HTTPS: PEM text, already checked by the settings. */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

export interface RunningServer {
  /** The port actually bound (differs from the requested one when that was 0). */
  readonly port: number;
  /**
   * Drains: every answer from now on carries `Connection: close` (HTTP/2: a GOAWAY); the listener
   * closes; a connection idle for `IDLE_QUIET_MS` is closed, never one that just fell idle.
   * Requests in flight get up to `graceMs`, then every connection is closed. Resolves within
   * about `graceMs`, whatever clients do.
   */
  shutdown(graceMs: number): Promise<void>;
  /**
   * Serves `tls` to connections opened from now on, leaving open ones as they are. Absent where
   * the runtime cannot swap the certificate of a running server (Deno 2.9, Bun 1.4): a new pair
   * then needs a restart.
   */
  readonly replaceTls?: (tls: TlsMaterial) => void;
}

/**
 * How long a drain lets a keep-alive connection stay idle before closing it (at most 1 s, as
 * docs/operations.md promises): one closed the instant it fell idle could meet the request a
 * proxy was sending on it, which the proxy then reports as lost.
 */
export const IDLE_QUIET_MS = 500;

/**
 * Deno's and Bun's stop resets a request accepted but not yet handed to the app (queued while the
 * event loop is busy). For this long before it, their adapters hold new requests instead: the
 * loop goes idle, so whatever arrives is handed over, and a held request keeps its connection
 * busy, so it is answered after the stop (`Drain`, ./process.ts).
 */
export const HOLD_BEFORE_CLOSE_MS = 100;

/** One runtime: its name and version, how to serve, and how to hear shutdown signals. */
export interface RuntimeAdapter {
  readonly name: string;
  readonly version: string;
  serve(options: ServeOptions): Promise<RunningServer>;
  /**
   * The brotli encoder for br bodies, when this runtime's node:zlib one must not be used (Deno:
   * its memory grows with every call); absent, node:zlib's. Called once, at start.
   */
  readonly brotliEncoder?: () => BrotliEncoder;
  /** Calls `handler` once per SIGTERM / SIGINT / SIGHUP the process receives. */
  onSignal(signal: "SIGTERM" | "SIGINT" | "SIGHUP", handler: () => void): void;
  /**
   * The process's stdout or stderr for the service's own lines: a write never blocks the event
   * loop (a reader that stopped reading leaves it pending), and a failing stream (EPIPE, ENOSPC)
   * rejects it instead of ending the process.
   */
  output(name: "stdout" | "stderr"): OutputStream;
}
