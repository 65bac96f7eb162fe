/**
 * The contract every runtime adapter fulfils. Adapters are the only modules that know which
 * runtime runs; each owns listening, signals and graceful shutdown for its runtime.
 */
import type { BrotliEncoder } from "../http/compression.ts";
import type { ResponseConstructor } from "../http/responses.ts";

/** What an adapter needs to serve the app. */
export interface ServeOptions {
  readonly fetch: (request: Request) => Response | Promise<Response>;
  readonly port: number;
  readonly host: string;
  /** The app enforces the body limit itself; runtimes must not answer over-size bodies first. */
  readonly maxBodyBytes: number;
  /** PEM certificate chain and key: when given, the port speaks HTTPS only. */
  readonly tls?: TlsMaterial;
}

/** What a runtime needs to serve HTTPS: PEM text, already checked by the settings. */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

/** A listening server. */
export interface RunningServer {
  /** The port actually bound (differs from the requested one when that was 0). */
  readonly port: number;
  /**
   * Stops accepting connections and closes idle keep-alive ones at once; requests in flight get
   * up to `graceMs` to finish, then every connection still open is closed (a trickled header or
   * body, a client that never reads). Resolves within about `graceMs`, whatever clients do.
   */
  shutdown(graceMs: number): Promise<void>;
  /**
   * Serves `tls` to connections opened from now on, leaving open ones as they are. Absent where
   * the runtime cannot swap the certificate of a running server (Deno 2.9, Bun 1.4): a new pair
   * then needs a restart.
   */
  readonly replaceTls?: (tls: TlsMaterial) => void;
}

/** One runtime: its name and version, how to serve, and how to hear shutdown signals. */
export interface RuntimeAdapter {
  readonly name: string;
  readonly version: string;
  serve(options: ServeOptions): Promise<RunningServer>;
  /**
   * A lighter Response-compatible class for the app to answer with, when this runtime's server
   * can write it more cheaply than a global `Response` (Node); absent, the app uses `Response`.
   */
  readonly Response?: ResponseConstructor;
  /**
   * The brotli encoder for br bodies, when this runtime's node:zlib one must not be used (Deno:
   * its memory grows with every call); absent, node:zlib's. Called once, at start.
   */
  readonly brotliEncoder?: () => BrotliEncoder;
  /** Calls `handler` once per SIGTERM / SIGINT / SIGHUP the process receives. */
  onSignal(signal: "SIGTERM" | "SIGINT" | "SIGHUP", handler: () => void): void;
}

/** Picks the adapter for the runtime this process runs on; the others are never loaded. */
export async function detectRuntime(): Promise<RuntimeAdapter> {
  const globals = globalThis as { Deno?: unknown; Bun?: unknown };
  if (globals.Deno !== undefined) return (await import("./deno.ts")).denoRuntime;
  if (globals.Bun !== undefined) return (await import("./bun.ts")).bunRuntime;
  return (await import("./node.ts")).nodeRuntime;
}

/** Resolves after `ms`, without keeping the process alive for it. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms) as unknown as { unref?: () => void };
    timer.unref?.();
  });
}
