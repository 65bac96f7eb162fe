/**
 * Micro-benchmark: what building one Response with a GET-pet's header set costs on this runtime,
 * by how the headers are handed over (a plain object literal, a copy of a prebuilt plain object,
 * a copy of a prebuilt `Headers`). Isolated, the prebuilt `Headers` wins on Deno and Bun; served,
 * it lost when served (docs/performance.md, "Get by id"): check a finding here with
 * scripts/bench/revisions.sh before acting on it.
 *
 *   node_modules/.bin/bun scripts/bench/response_headers.ts
 *   node_modules/.bin/deno run scripts/bench/response_headers.ts
 */
const body = new TextEncoder().encode('{"id":500,"name":"Pet 500","categoryId":500}');
const constant: Record<string, string> = {
  "content-type": "application/json",
  "cache-control": "private, no-cache",
  vary: "Accept-Encoding",
  deprecation: "@1767225600",
  sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
  link: '<http://localhost/v1/pets>; rel="successor-version"',
  "x-content-type-options": "nosniff",
};
const prebuilt = new Headers(constant);
/** What the app alone knows is constant for a deprecated, keyed path: the rest comes per reply. */
const base = new Headers({
  deprecation: constant.deprecation,
  sunset: constant.sunset,
  link: constant.link,
  "x-content-type-options": "nosniff",
});
let sink = 0;

const cases: Record<string, (i: number) => Response> = {
  "plain object, key by key": (i) => {
    const headers: Record<string, string> = {};
    for (const name in constant) headers[name] = constant[name];
    headers.etag = `"p${i}"`;
    headers["x-request-id"] = `r-${i}`;
    return new Response(body, { status: 200, headers });
  },
  "plain object, spread of a constant": (i) => {
    const headers = { ...constant, etag: `"p${i}"`, "x-request-id": `r-${i}` };
    return new Response(body, { status: 200, headers });
  },
  "new Headers(prebuilt Headers) + set": (i) => {
    const headers = new Headers(prebuilt);
    headers.set("etag", `"p${i}"`);
    headers.set("x-request-id", `r-${i}`);
    return new Response(body, { status: 200, headers });
  },
  "Response(prebuilt Headers) then response.headers.set": (i) => {
    const response = new Response(body, { status: 200, headers: prebuilt });
    response.headers.set("etag", `"p${i}"`);
    response.headers.set("x-request-id", `r-${i}`);
    return response;
  },
  "Response(prebuilt base of 4) then 5 × response.headers.set": (i) => {
    const response = new Response(body, { status: 200, headers: base });
    response.headers.set("content-type", "application/json");
    response.headers.set("cache-control", "private, no-cache");
    response.headers.set("vary", "Accept-Encoding");
    response.headers.set("etag", `"p${i}"`);
    response.headers.set("x-request-id", `r-${i}`);
    return response;
  },
};

const rounds = Number(globalThis.process?.env?.ROUNDS ?? 5);
const perRound = 200_000;
for (let round = 0; round < rounds; round++) {
  for (const [name, make] of Object.entries(cases)) {
    const started = performance.now();
    for (let i = 0; i < perRound; i++) sink += make(i).status;
    const micros = (performance.now() - started) * 1000 / perRound;
    if (round > 0) console.log(`${micros.toFixed(3)} µs  ${name}`);
  }
}
if (sink === 0) console.log("");
