/**
 * The Deno adapter: `Deno.serve` and `Deno.addSignalListener`.
 *
 * An answer given before the request body was read to its end (401, 413) keeps the connection
 * when the whole request fits in about 500 bytes; past that it goes out whole and with
 * `Connection: close`, but Deno (2.9) then reads and drops the rest of the body for as long
 * as the client sends it, and `Deno.serve` offers no way to bound that: no handle on a connection,
 * no timeouts, and cancelling `request.body` or answering `Connection: close` changes nothing. So
 * a client that streams without end keeps its connection (and costs the reading) until it stops;
 * Node closes it 2 s after the answer (./node/unread_body.ts), Bun after about 12 s.
 *
 * For the same reason shutdown cannot close a connection that is still sending: `shutdown()`
 * closes idle connections and waits for the others, so it is awaited only until the grace period
 * ends; the process then exits, which closes whatever is left.
 *
 * The drain is `Drain`'s (./process.ts). Deno 2.9 sends its `Connection: close` on HTTP/1.1 but
 * keeps the connection open (the client, told, closes it); `shutdown()` then sends HTTP/2
 * connections a GOAWAY (Deno drops a `Connection` header there).
 *
 * With TLS, `Deno.serve` takes the PEM pair once: it has no way to swap it while serving, so a
 * renewed certificate needs a restart (no `replaceTls`).
 *
 * br bodies are compressed with brotli-wasm, not Deno's own brotli: every brotli Deno 2.9 offers
 * (node:zlib, sync or not, and `CompressionStream("brotli")`) keeps about 4–8 KB of resident
 * memory per call that no GC gives back, hundreds of MiB over a day's requests (docs/caching.md,
 * "Memory"). The WebAssembly one gives the same bytes, within a bounded memory.
 *
 * The service's lines go out through `Deno.stdout.write`, not node:process's stdout: Deno 2.9's
 * `process.stdout.write` is a synchronous write, which holds up every request while the pipe is
 * full (a log shipper that stopped reading), and throws on EPIPE or ENOSPC. `Deno.stdout.write`
 * runs on a thread of its own and waits there; it may take part of the bytes (a pipe opened
 * non-blocking by another process), so the rest is written in turn.
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
 * whose URL holds the request target's path and query under `localhost`.
 *
 * For an origin-form target Deno makes the URL scheme + `://` + Host + target (a missing or
 * empty Host becomes `localhost:PORT`), the Host as sent, so `Host: x/v1/pets?` on `GET /healthz`
 * reads as `http://x/v1/pets?/healthz`. An absolute-form target (RFC 9112 §3.2.2) is the URL
 * itself, whatever the Host. So when the Host holds a character that ends an authority and the
 * URL starts with scheme + Host + `/`, the target is what follows the Host. Deno's URL reads the
 * Host's bytes as UTF-8, `headers.get` as Latin-1; bytes that are not UTF-8 make Deno use
 * `localhost:PORT` instead (probed on Deno 2.9.5).
 *
 * One case cannot be told apart: an absolute-form target that starts with scheme + the Host
 * itself (`GET http://x/v1/pets` with `Host: x/v1` gives the same URL as `GET /pets` with that
 * Host). It is read as the origin-form request, a legitimate client sends neither such a Host
 * nor such a pair, and the path read is then a tail of the target's path.
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
