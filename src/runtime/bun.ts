/** The Bun adapter: `Bun.serve` and process signals. */
import process from "node:process";
import type { RuntimeAdapter, ServeOptions } from "./server.ts";

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
    fetch: (request: Request) => Promise<Response>;
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
      // Bun answers bodies over its own limit with an empty 413 before the app sees them; keep
      // its limit far above ours so every over-size body gets the contract's Error JSON.
      maxRequestBodySize: Math.max(options.maxBodyBytes * 16, 64 * 1024 * 1024),
      fetch: options.fetch,
      error: () => new Response(null, { status: 500 }),
    });
    // stop() without `true` stops listening and resolves once in-flight requests are answered.
    return Promise.resolve({ port: server.port, shutdown: () => server.stop() });
  },
  onSignal(signal, handler) {
    process.on(signal, handler);
  },
};
