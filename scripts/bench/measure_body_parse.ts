/**
 * What parsing a create's body costs, in-process, with no HTTP: the text reader (a fatal UTF-8
 * decode, then `parseJsonExact`) against the byte parser that answers it today
 * (`parseJsonBody`: `json_bytes.ts`, the text reader only for a body it leaves undecided), on
 * the body `revisions.sh` and `bench.ts` send, and on one with non-ASCII text and escapes.
 *
 *   node_modules/.bin/bun scripts/bench/measure_body_parse.ts
 *   node_modules/.bin/deno run -A scripts/bench/measure_body_parse.ts
 */
import { parseJsonBody, parseJsonText } from "../../src/http/body.ts";

const BODIES = {
  "bench body": '{"name":"Rex","categoryId":9007199254740993,"status":"sold"}',
  "non-ASCII": '{"name":"Ça\\u00efd 😀 Jürgen","categoryId":7,"status":"available"}',
};
const ROUNDS = 5;
const CALLS = 500_000;

let sink: unknown;
/** ns per call: the median of ROUNDS timed loops, after one loop to warm up. */
function nsPerCall(parse: (bytes: Uint8Array) => unknown, bytes: Uint8Array): number {
  const times: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) sink = parse(bytes);
    if (round > 0) times.push((performance.now() - started) * 1e6 / CALLS);
  }
  return times.sort((a, b) => a - b)[ROUNDS >> 1];
}

for (const [name, text] of Object.entries(BODIES)) {
  const bytes = new TextEncoder().encode(text);
  const before = nsPerCall(parseJsonText, bytes);
  const after = nsPerCall(parseJsonBody, bytes);
  console.log(
    `${name.padEnd(10)}  text reader ${before.toFixed(0).padStart(5)} ns   ` +
      `byte parser ${after.toFixed(0).padStart(5)} ns`,
  );
}
if (sink === undefined) console.log("nothing parsed");
