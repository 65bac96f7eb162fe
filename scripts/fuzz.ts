/**
 * The property tests' hostile requests, many more of them: `deno run -A scripts/fuzz.ts [runs]`
 * (default 5000; also `FC_RUNS`). Same checks as test/app/property.test.ts: a contract status,
 * an Error body matching ErrorBody, no 500, and no pet without a fresh 201. Prints the seed, so
 * a failure can be replayed with `--seed <n>`.
 */
import process from "node:process";
import fc from "fast-check";
import {
  contractViolation,
  hostileRequest,
  toRequest,
  validCreate,
} from "../test/support/hostile_requests.ts";
import { testApp } from "../test/support/app.ts";

const args = process.argv.slice(2);
const seedAt = args.indexOf("--seed");
const seed = seedAt === -1 ? Date.now() % 2 ** 31 : Number(args[seedAt + 1]);
const runs = Number(args.find((arg) => /^\d+$/.test(arg)) ?? process.env.FC_RUNS ?? 5000);

const { app, store, log } = testApp({
  env: { MAX_BODY_BYTES: "2048", CORS_ORIGINS: "https://app.example.com", RATE_LIMIT: "100000" },
});
const started = performance.now();
const statuses = new Map<number, number>();
await fc.assert(
  fc.asyncProperty(fc.oneof(hostileRequest, hostileRequest, validCreate), async (generated) => {
    const request = toRequest(generated);
    const before = store.pets.length;
    const response = await app.fetch(request);
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    const violation = await contractViolation(request, response);
    if (violation !== undefined) throw new Error(violation);
    const fresh = response.status === 201 && response.headers.get("idempotent-replayed") === null;
    if (store.pets.length - before !== (fresh ? 1 : 0)) throw new Error("pet count changed");
  }),
  { numRuns: runs, seed },
);
const errors = log.lines.filter((line) => line.level === "error");
if (errors.length > 0) throw new Error(`unhandled errors logged: ${JSON.stringify(errors[0])}`);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
const spread = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}:${n}`).join(" ");
console.log(`fuzz: ${runs} requests in ${seconds} s, seed ${seed}, all within the contract`);
console.log(`statuses ${spread}; ${store.pets.length} pets created`);
