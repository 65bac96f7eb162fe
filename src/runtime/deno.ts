/** The Deno adapter: `Deno.serve` and `Deno.addSignalListener`. */
import type { RuntimeAdapter, ServeOptions } from "./server.ts";

export const denoRuntime: RuntimeAdapter = {
  name: "deno",
  version: Deno.version.deno,
  serve(options: ServeOptions) {
    return new Promise((resolve) => {
      const server = Deno.serve({
        port: options.port,
        hostname: options.host,
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
