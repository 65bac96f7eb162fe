/**
 * The Deno adapter: `Deno.serve` and `Deno.addSignalListener`.
 *
 * An answer given before the request body was read (401, 413) to a request over about 500 bytes
 * goes out with `Connection: close`, but Deno 2.9 then reads and drops the rest of the body for as
 * long as the client sends it, and `Deno.serve` offers no way to bound that (no handle on a
 * connection, no timeouts). For the same reason shutdown cannot close a connection that is still
 * sending: `shutdown()` is awaited only until the grace period ends, and the exit closes the rest.
 *
 * The drain is `Drain`'s (./process.ts). Deno 2.9 sends its `Connection: close` on HTTP/1.1 but
 * keeps the connection open (the client, told, closes it); `shutdown()` then sends HTTP/2
 * connections a GOAWAY. `Deno.serve` takes the TLS pair once: no `replaceTls`.
 *
 * br bodies are compressed with brotli-wasm: every brotli Deno 2.9 offers keeps resident memory
 * per call that no GC gives back (docs/caching.md, "Memory"). Lines go out through
 * `Deno.stdout.write`, not node:process's stdout, whose write in Deno 2.9 is synchronous (a full
 * pipe holds up every request) and throws on EPIPE or ENOSPC.
 */
import type { OutputStream, RunningServer, RuntimeAdapter, ServeOptions } from "./contract.ts";
import { Drain } from "./process.ts";
import { loadWasmBrotli } from "./wasm_brotli.ts";

export const denoRuntime: RuntimeAdapter = {
  name: "deno",
  version: Deno.version.deno,
  brotliEncoder: loadWasmBrotli,
  serve,
  onSignal(signal, handler) {
    Deno.addSignalListener(signal, handler);
  },
  output: (name) => denoOutput(name === "stdout" ? Deno.stdout : Deno.stderr),
};

const encoder = new TextEncoder();

/** `output`: whole writes on `file`, off the event loop; its errors (EPIPE, ENOSPC) reject. */
function denoOutput(file: { write(bytes: Uint8Array): Promise<number> }): OutputStream {
  return {
    async write(text) {
      let bytes = encoder.encode(text);
      while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
    },
  };
}

/** How long after its accept loop failed the server listens again: one cheap try per turn. */
const RELISTEN_MS = 250;
/** While accepting keeps failing, the warning is repeated at most this often. */
const WARNING_INTERVAL_MS = 10_000;

/**
 * `Deno.serve`, kept listening through a failed accept. When `accept` fails (EMFILE, ENFILE),
 * Deno 2.9's serve loop closes the listening socket and rejects `finished`, which, unhandled,
 * would end the process; the connections it accepted go on being served. So a failed loop is
 * logged and a new server listens on the same port `RELISTEN_MS` later. Nothing spins.
 */
function serve(options: ServeOptions): Promise<RunningServer> {
  return new Promise((resolve) => {
    // Every server that served a request (a failed one still serves its open connections, which
    // a shutdown must give their grace); one that failed before serving anything is let go.
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
        ...(options.tls === undefined ? {} : { cert: options.tls.cert, key: options.tls.key }),
        onListen: (address) => onListen(address.port),
        onError: () => new Response(null, { status: 500 }),
      }, (request) => {
        served = true;
        if (drain.held !== undefined) {
          return drain.held.then(() => options.handle(withTargetUrl(request), drain.respond));
        }
        return options.handle(withTargetUrl(request), drain.respond);
      });
      servers.add(server);
      server.finished.catch((error: Error) => {
        if (stopping) return;
        if (!served) servers.delete(server);
        warn(
          `Cannot accept connections: ${error.message}; open connections are still served, ` +
            `new ones are refused until it can accept again (tried every ${RELISTEN_MS} ms)`,
        );
        // The port actually bound: the setting may be 0 (any port).
        listenAgain(server.addr.port);
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
 * `request`, or when its Host header would make Deno's `request.url` name another path, a copy
 * whose URL holds the request target's path and query under `localhost`. For an origin-form
 * target Deno makes the URL scheme + `://` + Host as sent + target, so `Host: x/v1/pets?` on
 * `GET /healthz` reads as `http://x/v1/pets?/healthz`; Deno reads the Host's bytes as UTF-8 there,
 * `headers.get` as Latin-1. One case cannot be told apart: an absolute-form target that starts
 * with scheme + the Host (`GET http://x/v1/pets` with `Host: x/v1`) is read as origin-form; no
 * legitimate client sends such a pair.
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
