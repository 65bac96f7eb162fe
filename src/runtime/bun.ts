/**
 * The Bun adapter: `Bun.serve` and process signals. Its drain is `Drain`'s (./process.ts); Bun
 * closes the connection after an answer that says `Connection: close`.
 *
 * With TLS, the pair is given once: Bun 1.4.5's `server.reload({ tls })` silently keeps the old
 * pair (oven-sh/bun#43815), and a second listener with `reusePort` closes the old server's idle
 * connections when it stops. So no `replaceTls`.
 *
 * Pipelining: Bun 1.4.5 closes a connection, sending nothing, when a request arrives while the
 * answer before it waits for a later turn of the event loop (a create's fsync, a query); the
 * handler runs on, so the pet is made (scripts/repro/bun_pipelining.ts; docs/operations.md,
 * "Pipelining").
 *
 * The path as sent: Bun's `request.url` has read `\` as `/` and applied `..`. Its router matches
 * the path as sent: one route per depth up to `MAX_PATH_SEGMENTS`, whose params are the segments
 * (percent-decoded), shows a backslash; a path that matches none has an empty segment or too
 * many. Both are what `splitUrl` finds unroutable on Deno and Node (http/url.ts).
 */
import {
  type AppRequest,
  MAX_PATH_SEGMENTS,
  type RuntimeAdapter,
  type ServeOptions,
} from "./contract.ts";
import { Drain, onProcessSignal, processOutput } from "./process.ts";

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
    routes: Record<string, (request: RoutedRequest) => Response | Promise<Response>>;
    fetch: (request: Request) => Response | Promise<Response>;
    error: (error: Error) => Response;
  }): BunServer;
};

/** A request matched by one of `routes`: `params` holds its segments as sent, decoded. */
type RoutedRequest = Request & { readonly params: Record<string, string> };

/** The routes of one param per segment, for paths of 1 to MAX_PATH_SEGMENTS segments. */
function segmentRoutes(
  handle: (request: Request, unroutable: boolean) => Response | Promise<Response>,
) {
  const routes: Record<string, (request: RoutedRequest) => Response | Promise<Response>> = {};
  const serve = (request: RoutedRequest) => handle(request, holdsBackslash(request.params));
  let pattern = "";
  for (let depth = 1; depth <= MAX_PATH_SEGMENTS; depth++) {
    pattern += `/:s${depth}`;
    routes[pattern] = serve;
  }
  return routes;
}

function holdsBackslash(params: Record<string, string>): boolean {
  for (const name in params) if (params[name].includes("\\")) return true;
  return false;
}

export const bunRuntime: RuntimeAdapter = {
  name: "bun",
  version: Bun.version,
  serve(options: ServeOptions) {
    const drain = new Drain();
    const handle = (request: Request, unroutable: boolean) => {
      // Marked on the request itself (Bun takes the property): the app reads it as an AppRequest.
      if (unroutable) {
        (request as { -readonly [K in keyof AppRequest]?: AppRequest[K] }).unroutable = true;
      }
      if (drain.held !== undefined) {
        return drain.held.then(() => options.handle(request, drain.respond));
      }
      return options.handle(request, drain.respond);
    };
    const server = Bun.serve({
      port: options.port,
      hostname: options.host,
      ...(options.tls && { tls: { cert: options.tls.cert, key: options.tls.key } }),
      // Bun answers a body over its own limit with a bare 413 before the app sees the request,
      // even one without a key (which must get 401); Infinity is its "no limit". Memory stays
      // bounded: the app stops reading at MAX_BODY_BYTES, and Bun discards the unread rest.
      maxRequestBodySize: Number.POSITIVE_INFINITY,
      routes: segmentRoutes(handle),
      // Matched by no route: an empty segment (`//`, a trailing `/`, the root) or too many.
      fetch: (request) => handle(request, true),
      error: () => new Response(null, { status: 500 }),
    });
    return Promise.resolve({
      port: server.port,
      // stop() stops listening, closes idle connections and resolves once requests in flight are
      // answered; stop(true) closes every connection still open.
      shutdown: async (graceMs: number) => {
        if (!await drain.stopAfter(graceMs, () => server.stop())) await server.stop(true);
      },
    });
  },
  onSignal: onProcessSignal,
  output: processOutput,
};
