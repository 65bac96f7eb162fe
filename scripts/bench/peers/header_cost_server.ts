/**
 * A bare server (`Bun.serve` or `Deno.serve`) answering every request with one pet's JSON and,
 * by `HEADERS`, either the four headers an as-is peer sends on a get by id (`peer`: the content
 * type and the deprecation trio) or the eleven our service sends (`ours`: also nosniff,
 * `Cache-Control`, `Vary`, `ETag` and `X-Request-Id`), the last two made per request as ours are.
 * Nothing else happens per request, so the difference between the two is what the extra headers
 * cost the runtime. Served by `header_cost.sh`. Dev-only benchmark peer.
 */
import process from "node:process";
import { listenAddress } from "./pet_fixture.ts";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno: { serve(options: object, handler: unknown): unknown } | undefined;

const BODY = '{"id":500,"name":"Pet 500","categoryId":500,"status":"available"}';
const DEPRECATION = {
  deprecation: "@1893456000",
  sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
  link: '</v1/pets>; rel="successor-version"',
};
const PEER = { "content-type": "application/json", ...DEPRECATION };
const OURS = Object.freeze({
  "x-content-type-options": "nosniff",
  ...DEPRECATION,
  "content-type": "application/json",
  "cache-control": "private, no-cache",
  vary: "Accept-Encoding",
});

let served = 0;
const handle = process.env.HEADERS === "ours"
  ? () => {
    served++;
    const headers: Record<string, string> = { ...OURS };
    headers.etag = `"p${served & 7}-0123456789abcdef"`;
    headers["x-request-id"] = `2c5ea4c0-4067-11e9-8bad-${String(served).padStart(12, "0")}`;
    return new Response(BODY, { status: 200, headers });
  }
  : () => new Response(BODY, { status: 200, headers: PEER });

const { port, host } = listenAddress();
if (typeof Bun !== "undefined") Bun.serve({ port, hostname: host, fetch: handle });
else if (typeof Deno !== "undefined") Deno.serve({ port, hostname: host, onListen() {} }, handle);
else throw new Error("Run this with bun or deno");
