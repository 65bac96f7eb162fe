/**
 * The ceiling of a get by id: the runtime's bare server (`Bun.serve`, `Deno.serve` or
 * `node:http`) answering every request with the benchmark's pet `PET_COUNT / 2` (the one
 * `bench.ts` gets) and the headers our service sends on `GET /v1/pets/{id}`: the JSON content
 * type, nosniff, `Cache-Control`, `Vary`, the deprecation trio, an `ETag` and an `X-Request-Id`
 * made per request as ours are (eleven with the runtime's `Date` and `Content-Length`). No
 * routing, no key, no store, no log line: nothing that sends those headers on this runtime can
 * go faster, so ours ÷ this is how much of the runtime's speed our get keeps.
 *
 * `HEADERS=peer` sends instead the four headers an as-is peer sends (the content type and the
 * deprecation trio): `header_cost.sh` runs both to price the extra seven. Listens on
 * `HOST`:`PORT`. Dev-only benchmark peer.
 */
import process from "node:process";
import { benchPet, DEPRECATION_HEADERS, listenAddress, PET_COUNT } from "./pet_fixture.ts";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno:
  | { serve(options: object, handler: unknown): unknown }
  | undefined;

const BODY = JSON.stringify(benchPet(Math.ceil(PET_COUNT / 2)));
/** On Node the length goes with the headers, as our Node adapter sends it (Bun and Deno add it). */
const LENGTH: Record<string, string> = typeof Bun === "undefined" && typeof Deno === "undefined"
  ? { "content-length": String(new TextEncoder().encode(BODY).byteLength) }
  : {};
const AS_IS_PEER = Object.freeze({
  "content-type": "application/json",
  ...DEPRECATION_HEADERS,
  ...LENGTH,
});
const OURS = Object.freeze({
  ...LENGTH,
  "x-content-type-options": "nosniff",
  ...DEPRECATION_HEADERS,
  "content-type": "application/json",
  "cache-control": "private, no-cache",
  vary: "Accept-Encoding",
});

let served = 0;

/** The headers of one answer: ours made per request (as our service makes them), or the peer's. */
const headersOf: () => Record<string, string> = process.env.HEADERS === "peer"
  ? () => AS_IS_PEER
  : () => {
    served++;
    const headers: Record<string, string> = { ...OURS };
    headers.etag = `"${(0x8cb3d14b + (served & 7)).toString(16)}86fff2b4"`;
    headers["x-request-id"] = `e38d2f33-e22e-4069-9442-${String(served).padStart(12, "0")}`;
    return headers;
  };

const { port, host } = listenAddress();
if (typeof Bun !== "undefined") {
  Bun.serve({
    port,
    hostname: host,
    fetch: () => new Response(BODY, { status: 200, headers: headersOf() }),
  });
} else if (typeof Deno !== "undefined") {
  Deno.serve(
    { port, hostname: host, onListen() {} },
    () => new Response(BODY, { status: 200, headers: headersOf() }),
  );
} else {
  // Node: one writeHead (the length among the headers) and one end, as our Node adapter writes.
  const { createServer } = await import("node:http");
  createServer((_request, response) => {
    response.writeHead(200, headersOf());
    response.end(BODY);
  }).listen(port, host);
}
