/**
 * The ceiling: the runtime's own server answering every request with the fixed body of a 20-pet
 * first page (`Bun.serve`, `Deno.serve`, or `node:http`). No routing, no auth, no store: nothing
 * built on the same server can go faster. Listens on `HOST`:`PORT`. Dev-only benchmark peer.
 */
import { fixedPageBody, listenAddress } from "./pet_fixture.ts";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno: { serve(options: object, handler: unknown): unknown } | undefined;

const body = new TextEncoder().encode(fixedPageBody());
const { port, host } = listenAddress();
if (typeof Bun !== "undefined") {
  Bun.serve({
    port,
    hostname: host,
    fetch: () => new Response(body, { headers: { "content-type": "application/json" } }),
  });
} else if (typeof Deno !== "undefined") {
  Deno.serve(
    { port, hostname: host, onListen() {} },
    () => new Response(body, { headers: { "content-type": "application/json" } }),
  );
} else {
  const { createServer } = await import("node:http");
  createServer((_request, response) => {
    response.writeHead(200, {
      "content-type": "application/json",
      "content-length": body.byteLength,
    });
    response.end(body);
  }).listen(port, host);
}
