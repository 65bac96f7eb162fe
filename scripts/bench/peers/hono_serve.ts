/**
 * Serves a Hono app the way each runtime's Hono docs show: `Bun.serve` with `app.fetch` on Bun,
 * `Deno.serve` on Deno, `@hono/node-server` on Node. Listens on `HOST`:`PORT`. Dev-only
 * benchmark code.
 */
import type { Hono } from "hono";
import { listenAddress } from "./pet_fixture.ts";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno: { serve(options: object, handler: unknown): unknown } | undefined;

/** Starts serving `app` on this runtime. */
// deno-lint-ignore no-explicit-any
export async function serveHono(app: Hono<any>): Promise<void> {
  const { port, host } = listenAddress();
  if (typeof Bun !== "undefined") {
    Bun.serve({ port, hostname: host, fetch: app.fetch });
  } else if (typeof Deno !== "undefined") {
    Deno.serve({ port, hostname: host, onListen() {} }, app.fetch);
  } else {
    const { serve } = await import("@hono/node-server");
    serve({ fetch: app.fetch, port, hostname: host });
  }
}
