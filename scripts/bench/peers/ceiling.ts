/**
 * The get ceiling: the runtime's bare server (`Bun.serve`, `Deno.serve`, `node:http`) answering
 * every request with pet `PET_COUNT / 2` and the headers our get sends, an `ETag` and an
 * `X-Request-Id` made per request as ours are (eleven with `Date` and `Content-Length`). No
 * routing, key, store or log line: nothing that sends those headers on this runtime can go
 * faster, so ours ÷ it is how much of the runtime's speed our get keeps. Dev-only peer.
 */
import { benchPet, DEPRECATION_HEADERS, listenAddress, PET_COUNT } from "./fixture.ts";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno: { serve(options: object, handler: unknown): unknown } | undefined;

const BODY = JSON.stringify(benchPet(Math.ceil(PET_COUNT / 2)));
/** On Node the length goes with the headers, as our Node adapter sends it (Bun and Deno add it). */
const LENGTH: Record<string, string> = typeof Bun === "undefined" && typeof Deno === "undefined"
  ? { "content-length": String(new TextEncoder().encode(BODY).byteLength) }
  : {};
const OURS = Object.freeze({
  ...LENGTH,
  "x-content-type-options": "nosniff",
  ...DEPRECATION_HEADERS,
  "content-type": "application/json",
  "cache-control": "private, no-cache",
  vary: "Accept-Encoding",
});

let served = 0;
/** The headers of one answer, made per request as our service makes them. */
const headersOf = () => {
  served++;
  const headers: Record<string, string> = { ...OURS };
  headers.etag = `"${(0x8cb3d14b + (served & 7)).toString(16)}86fff2b4"`;
  headers["x-request-id"] = `e38d2f33-e22e-4069-9442-${String(served).padStart(12, "0")}`;
  return headers;
};

const { port, host } = listenAddress();
if (typeof Bun !== "undefined") {
  Bun.serve({ port, hostname: host, fetch: () => new Response(BODY, { headers: headersOf() }) });
} else if (typeof Deno !== "undefined") {
  const handler = () => new Response(BODY, { headers: headersOf() });
  Deno.serve({ port, hostname: host, onListen() {} }, handler);
} else {
  // One writeHead (the length among the headers) and one end, as our Node adapter writes.
  const { createServer } = await import("node:http");
  createServer((_request, response) => {
    response.writeHead(200, headersOf());
    response.end(BODY);
  }).listen(port, host);
}
