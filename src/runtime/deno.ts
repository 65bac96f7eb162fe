/**
 * The Deno adapter: `Deno.serve` and `Deno.addSignalListener`.
 *
 * An answer given before the request body was read to its end (401, 413) goes out whole and
 * with `Connection: close`, but Deno (2.9) then reads and drops the rest of the body for as long
 * as the client sends it, and `Deno.serve` offers no way to bound that: no handle on a connection,
 * no timeouts, and cancelling `request.body` or answering `Connection: close` changes nothing. So
 * a client that streams without end keeps its connection (and costs the reading) until it stops;
 * Node closes it 2 s after the answer (./node/unread_body.ts), Bun after about 12 s.
 *
 * With TLS, `Deno.serve` takes the PEM pair once: it has no way to swap it while serving, so a
 * renewed certificate needs a restart (no `replaceTls`).
 *
 * br bodies are compressed with brotli-wasm, not Deno's own brotli: every brotli Deno 2.9 offers
 * (node:zlib, sync or not, and `CompressionStream("brotli")`) keeps about 4–8 KB of resident
 * memory per call that no GC gives back, hundreds of MiB over a day's requests (docs/caching.md,
 * "Memory"). The WebAssembly one gives the same bytes, within a bounded memory.
 */
import { loadWasmBrotli } from "../http/compression.ts";
import type { RuntimeAdapter, ServeOptions } from "./server.ts";

export const denoRuntime: RuntimeAdapter = {
  name: "deno",
  version: Deno.version.deno,
  brotliEncoder: loadWasmBrotli,
  serve(options: ServeOptions) {
    return new Promise((resolve) => {
      const server = Deno.serve({
        port: options.port,
        hostname: options.host,
        ...(options.tls === undefined ? {} : { cert: options.tls.cert, key: options.tls.key }),
        // Deno reads request bodies as streams with no limit of its own: the app enforces ours.
        onListen: (address) => resolve({ port: address.port, shutdown: () => server.shutdown() }),
        onError: () => new Response(null, { status: 500 }),
      }, options.fetch);
    });
  },
  onSignal(signal, handler) {
    Deno.addSignalListener(signal, handler);
  },
};
