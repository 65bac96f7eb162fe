/**
 * The Bun adapter: `Bun.serve` and process signals.
 *
 * With TLS, the pair is given once at start. Bun 1.4.5's `server.reload({ tls })` accepts a new
 * pair and silently keeps serving the old one (checked against a live server; oven-sh/bun#43815),
 * and the other way out, a second listener on the same port with `reusePort`, closes the old
 * server's idle keep-alive connections when it stops. So no `replaceTls`: a restart is needed.
 *
 * Pipelining: Bun 1.4.5's `Bun.serve` closes a connection, sending nothing, when a request
 * arrives while the answer before it still waits for a later turn of the event loop (a create's
 * fsync, a PostgreSQL query); the waiting handler runs on, so the pet is made. Answers completed
 * within the handler's microtasks are written in time, which is why reads from memory pipeline
 * fine. No way of reading the body or building the answer avoids it (scripts/repro/
 * bun_pipelining.ts), and Bun's node:http, which answers in order, serves reads about a quarter
 * slower: see docs/operations.md, "Pipelining", and test/service/pipelining.test.ts.
 */
import { webResponse } from "../http/responses.ts";
import { delay, onProcessSignal, type RuntimeAdapter, type ServeOptions } from "./server.ts";

interface BunServer {
  readonly port: number;
  stop(closeActiveConnections?: boolean): Promise<void>;
}
declare const Bun: {
  readonly version: string;
  serve(options: {
    port: number;
    hostname: string;
    maxRequestBodySize: number;
    tls?: { cert: string; key: string };
    fetch: (request: Request) => Response | Promise<Response>;
    error: (error: Error) => Response;
  }): BunServer;
};

export const bunRuntime: RuntimeAdapter = {
  name: "bun",
  version: Bun.version,
  serve(options: ServeOptions) {
    const server = Bun.serve({
      port: options.port,
      hostname: options.host,
      ...(options.tls && { tls: { cert: options.tls.cert, key: options.tls.key } }),
      // Bun answers a body over its own limit with a bare 413 before the app sees the request,
      // even one without a key (which must get 401). Infinity is its "no limit" (it saturates to
      // the largest int64). Memory stays bounded all the same: the app stops reading at
      // MAX_BODY_BYTES, and Bun discards the unread rest of a body instead of buffering it
      // (200 MB streamed at a 401 or a 413: RSS grew by about 2 MiB).
      maxRequestBodySize: Number.POSITIVE_INFINITY,
      fetch: (request) => options.handle(request, webResponse),
      error: () => new Response(null, { status: 500 }),
    });
    return Promise.resolve({
      port: server.port,
      // stop() stops listening, closes idle connections and resolves once requests in flight are
      // answered; stop(true) closes every connection still open.
      shutdown: async (graceMs: number) => {
        const graceful = server.stop().then(() => true);
        if (!await Promise.race([graceful, delay(graceMs).then(() => false)])) {
          await server.stop(true);
        }
      },
    });
  },
  onSignal: onProcessSignal,
};
