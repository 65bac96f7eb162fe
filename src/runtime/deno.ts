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
 * For the same reason shutdown cannot close a connection that is still sending: `shutdown()`
 * closes idle connections and waits for the others, so it is awaited only until the grace period
 * ends; the process then exits, which closes whatever is left.
 *
 * With TLS, `Deno.serve` takes the PEM pair once: it has no way to swap it while serving, so a
 * renewed certificate needs a restart (no `replaceTls`).
 */
import { delay, type RuntimeAdapter, type ServeOptions } from "./server.ts";

export const denoRuntime: RuntimeAdapter = {
  name: "deno",
  version: Deno.version.deno,
  serve(options: ServeOptions) {
    return new Promise((resolve) => {
      const server = Deno.serve({
        port: options.port,
        hostname: options.host,
        ...(options.tls === undefined ? {} : { cert: options.tls.cert, key: options.tls.key }),
        // Deno reads request bodies as streams with no limit of its own: the app enforces ours.
        onListen: (address) =>
          resolve({
            port: address.port,
            shutdown: (graceMs) => Promise.race([server.shutdown(), delay(graceMs)]),
          }),
        onError: () => new Response(null, { status: 500 }),
      }, options.fetch);
    });
  },
  onSignal(signal, handler) {
    Deno.addSignalListener(signal, handler);
  },
};
