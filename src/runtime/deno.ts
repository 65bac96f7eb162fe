/**
 * The Deno adapter: `Deno.serve` and `Deno.addSignalListener`; the drain is `Drain`'s.
 * Deno 2.9 quirks:
 * - after an early answer (401, 413) to a body over about 500 bytes it reads and drops the rest
 *   for as long as the client sends, unbounded; nor can shutdown close such a connection, so it is
 *   awaited only until the grace period ends and the exit closes the rest;
 * - its `Connection: close` keeps the HTTP/1.1 connection open (the client closes it);
 * - `Deno.serve` takes the TLS pair once: no `replaceTls`;
 * - every brotli it offers keeps memory per call (docs/caching.md, "Memory"): brotli-wasm instead;
 * - node:process's stdout write is synchronous and throws on EPIPE: `Deno.stdout.write` instead.
 */
import type { RunningServer, RuntimeAdapter, ServeOptions } from "./contract.ts";
import { Drain } from "./process.ts";
import { loadWasmBrotli } from "./wasm_brotli.ts";

export const denoRuntime: RuntimeAdapter = {
  name: "deno",
  version: Deno.version.deno,
  brotliEncoder: loadWasmBrotli,
  serve,
  onSignal: (signal, handler) => Deno.addSignalListener(signal, handler),
  output: (name) => ({
    async write(text) {
      const file = name === "stdout" ? Deno.stdout : Deno.stderr;
      let bytes = encoder.encode(text);
      while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
    },
  }),
};

const encoder = new TextEncoder();

/** After a failed accept loop, when to listen again, and how often to warn while it fails. */
const RELISTEN_MS = 250;
const WARNING_INTERVAL_MS = 10_000;

/**
 * `Deno.serve`, listening again after a failed accept: on EMFILE or ENFILE Deno 2.9's serve loop
 * closes the listener and rejects `finished` (unhandled, fatal) while still serving its
 * connections.
 */
function serve(options: ServeOptions): Promise<RunningServer> {
  return new Promise((resolve) => {
    // Every server that served a request: a failed one still serves its open connections.
    const servers = new Set<Deno.HttpServer<Deno.NetAddr>>();
    let stopping = false;
    const drain = new Drain();
    let lastWarning = Number.NEGATIVE_INFINITY;
    const warn = (message: string) => {
      if (performance.now() - lastWarning < WARNING_INTERVAL_MS) return;
      lastWarning = performance.now();
      options.onWarning?.(message);
    };
    const listen = (port: number, onListen: (port: number) => void) => {
      let served = false;
      const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
        port,
        hostname: options.host,
        ...(options.tls && { cert: options.tls.cert, key: options.tls.key }),
        onListen: (address) => onListen(address.port),
        onError: () => new Response(null, { status: 500 }),
      }, (request) => {
        served = true;
        return drain.handle(options, withTargetUrl(request));
      });
      servers.add(server);
      server.finished.catch((error: Error) => {
        if (stopping) return;
        if (!served) servers.delete(server);
        warn(
          `Cannot accept connections: ${error.message}; open connections are still served, ` +
            `new ones are refused until it can accept again (tried every ${RELISTEN_MS} ms)`,
        );
        listenAgain(server.addr.port); // the port bound: the setting may be 0
      });
    };
    const listenAgain = (port: number) =>
      setTimeout(() => {
        if (stopping) return;
        try {
          listen(port, () => {});
        } catch (error) {
          warn(`Cannot listen again on port ${port}: ${(error as Error).message}`);
          listenAgain(port);
        }
      }, RELISTEN_MS);
    listen(options.port, (port) =>
      resolve({
        port,
        shutdown: async (graceMs) => {
          stopping = true;
          const all = () =>
            Promise.all([...servers].map((server) => server.shutdown().catch(() => {})));
          await drain.stopAfter(graceMs, all);
        },
      }));
  });
}

/**
 * `request`, or a copy whose URL holds the target under `localhost` when Deno's `request.url`
 * (scheme + Host as sent, read as UTF-8 + target) names another path: `Host: x/v1/pets?` on
 * `GET /healthz` reads `http://x/v1/pets?/healthz` (`headers.get` reads the Host as Latin-1).
 * `GET http://x/v1/pets` with `Host: x/v1` is misread as origin-form; no client sends that.
 */
function withTargetUrl(request: Request): Request {
  const host = request.headers.get("host");
  // `/`, `?` and `#` end a URL's authority (RFC 3986 §3.2), and so have no place in a Host.
  if (host === null || !/[/?#]/.test(host)) return request;
  const url = request.url;
  const authorityStart = url.indexOf("://") + 3;
  const hostInUrl = asUtf8(host);
  if (hostInUrl === undefined || !url.startsWith(hostInUrl, authorityStart)) return request;
  const targetStart = authorityStart + hostInUrl.length;
  if (url.charCodeAt(targetStart) !== 0x2f /* "/" */) return request;
  return new Request(`${url.slice(0, authorityStart)}localhost${url.slice(targetStart)}`, request);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A header value as Deno reads it (one char per byte) decoded as UTF-8; undefined if not UTF-8. */
function asUtf8(value: string): string | undefined {
  // deno-lint-ignore no-control-regex
  if (/^[\x00-\x7f]*$/.test(value)) return value;
  try {
    return utf8.decode(Uint8Array.from(value, (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
