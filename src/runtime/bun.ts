/**
 * The Bun adapter: `Bun.serve` and process signals; the drain is `Drain`'s. Bun 1.4.5 quirks:
 * - `server.reload({ tls })` silently keeps the old pair (oven-sh/bun#43815), and a second
 *   listener with `reusePort` closes the old one's idle connections on stop: no `replaceTls`;
 * - a pipelined request that arrives while the answer before it waits for a later turn (an
 *   fsync, a query) closes the connection unanswered (docs/operations.md, "Pipelining");
 * - `request.url` has read `\` as `/` and applied `..`, but its router matches the path as sent:
 *   one route per depth, whose params show a backslash; a path matching none has an empty segment
 *   or too many. Both are what `splitUrl` finds unroutable on Deno and Node (http/url.ts).
 */
import { MAX_PATH_SEGMENTS, type RuntimeAdapter, type ServeOptions } from "./contract.ts";
import { Drain, processEvents } from "./process.ts";

type Handler = (request: RoutedRequest) => Response | Promise<Response>;
declare const Bun: {
  readonly version: string;
  serve(options: {
    port: number;
    hostname: string;
    maxRequestBodySize: number;
    tls?: { cert: string; key: string };
    routes: Record<string, Handler>;
    fetch: (request: Request) => Response | Promise<Response>;
    error: (error: Error) => Response;
  }): { readonly port: number; stop(closeActiveConnections?: boolean): Promise<void> };
};

/** A request matched by one of `routes`: `params` holds its segments as sent, decoded. */
type RoutedRequest = Request & { readonly params: Record<string, string> };

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
      if (unroutable) Object.assign(request, { unroutable });
      return drain.handle(options, request);
    };
    // One param per segment, for paths of 1 to MAX_PATH_SEGMENTS segments.
    const routes: Record<string, Handler> = {};
    const routed: Handler = (request) => handle(request, holdsBackslash(request.params));
    for (let depth = 1, pattern = ""; depth <= MAX_PATH_SEGMENTS; depth++) {
      pattern += `/:s${depth}`;
      routes[pattern] = routed;
    }
    const server = Bun.serve({
      port: options.port,
      hostname: options.host,
      ...(options.tls && { tls: { cert: options.tls.cert, key: options.tls.key } }),
      // Bun's own limit answers a bare 413 before the app sees the request, even one that must
      // get 401; Infinity is "no limit". The app stops reading at MAX_BODY_BYTES.
      maxRequestBodySize: Number.POSITIVE_INFINITY,
      routes,
      // Matched by no route: an empty segment (`//`, a trailing `/`, the root) or too many.
      fetch: (request) => handle(request, true),
      error: () => new Response(null, { status: 500 }),
    });
    return Promise.resolve({
      port: server.port,
      // stop() resolves once requests in flight are answered; stop(true) closes every connection.
      shutdown: async (graceMs: number) => {
        if (!await drain.stopAfter(graceMs, () => server.stop())) await server.stop(true);
      },
    });
  },
  ...processEvents,
};
