/** The seam between the app and the runtime adapters, the only modules that know the runtime. */

/** The parts of a request the app reads: a web `Request` has them; Node's adapter builds them. */
export interface AppRequest {
  readonly method: string;
  /** Absolute (`http://host/path?query`) or the origin-form target itself (`/path?query`). */
  readonly url: string;
  readonly headers: { get(name: string): string | null; has(name: string): boolean };
  readonly body: ReadableStream<Uint8Array> | null;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** Set by Bun's adapter when the path as sent names nothing (`splitUrl`'s `unroutable`). */
  readonly unroutable?: boolean;
}

/** What a route answers, and what the app hands the adapter's `Respond`. */
export interface Reply {
  readonly status: number;
  readonly body: string | Uint8Array<ArrayBuffer> | null;
  /** Lower-case names; a fresh object per reply, since the app adds the request's headers. */
  readonly headers: Record<string, string>;
}

/** Makes the runtime's response of the whole reply: a web Response, or on Node the reply itself. */
export type Respond<R> = (reply: Reply) => R;

export function webResponse(reply: Reply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

export interface OutputStream {
  /** Resolves once the OS took all of `text`, rejects with its error (EPIPE); never blocks. */
  write(text: string): Promise<void>;
}

/** `body` as one brotli stream at `quality` (the window is the default, 22). */
export type BrotliEncoder = (body: Uint8Array, quality: number) => Uint8Array;

/** More segments name nothing, on every runtime: Bun's router needs one route per depth. */
export const MAX_PATH_SEGMENTS = 64;

export interface ServeOptions {
  /** The app's handler, given the `Respond` that makes what this runtime's server writes. */
  readonly handle: <R>(request: AppRequest, respond: Respond<R>) => R | Promise<R>;
  readonly port: number;
  readonly host: string;
  readonly tls?: TlsMaterial;
  /** Told what went wrong around the server that the service survives (out of descriptors). */
  readonly onWarning?: (message: string) => void;
}

export type TlsMaterial = { readonly cert: string; readonly key: string };

export interface RunningServer {
  readonly port: number;
  /** Drains (`Connection: close`, listener closed, idle connections closed); all at `graceMs`. */
  shutdown(graceMs: number): Promise<void>;
  /** Serves `tls` to new connections; absent where the runtime cannot (Deno 2.9, Bun 1.4). */
  readonly replaceTls?: (tls: TlsMaterial) => void;
}

export interface RuntimeAdapter {
  readonly name: string;
  readonly version: string;
  serve(options: ServeOptions): Promise<RunningServer>;
  /** Called once at start; absent, node:zlib's brotli is used (Deno's grows memory per call). */
  readonly brotliEncoder?: () => BrotliEncoder;
  /** Calls `handler` once per SIGTERM / SIGINT / SIGHUP the process receives. */
  onSignal(signal: "SIGTERM" | "SIGINT" | "SIGHUP", handler: () => void): void;
  /** stdout or stderr: a write never blocks the loop, and a failing stream rejects, never exits. */
  output(name: "stdout" | "stderr"): OutputStream;
}
