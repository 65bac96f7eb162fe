/**
 * The CPU cost of one get by id inside the process, without a socket: `app.handle` of
 * `GET /v1/pets/500` (the real app, the file store on 1,000 pets, the JSON log into a stream that
 * takes everything) for each git revision given, beside the get ceiling's handler
 * (`peers/get_ceiling_server.ts`: the same headers made per request, and the `Response`). Levers
 * of a tenth of a microsecond drown in the noise of `revisions.sh` on a shared machine; here each
 * revision runs 64 requests per event-loop turn (the log hands its lines over between turns, as
 * under `wrk -c64`) and is timed in CPU time, the revisions interleaved round by round. What it
 * leaves out is the runtime's own work on a request (parsing, the socket, reading the request's
 * URL and headers the first time): confirm a lever with `revisions.sh`.
 *
 *   node_modules/.bin/bun scripts/bench/handle_cost.ts main HEAD
 *   ROUNDS=30 node_modules/.bin/deno run -A scripts/bench/handle_cost.ts main HEAD HEAD   # an A/A pair
 *
 * Prints, per revision, the median and the lowest ns of CPU per get over the rounds. Bun and Deno
 * (Node 20 runs no TypeScript: its bundle is measured with `revisions.sh`).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";

const ROOT = resolve(import.meta.dirname ?? ".", "../..");
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const WARM_UP_ROUNDS = 3;
/** Requests per round: 200 turns of 64. */
const PER_TURN = 64;
const TURNS = 200;
const revisions = process.argv.slice(2);
if (revisions.length === 0) {
  console.error("usage: handle_cost.ts <revision>... (e.g. main HEAD)");
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), "animal-store-handle-cost-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

/** The data file of revisions.sh: 1,000 pets, pet 500 the one asked for. */
function petLines(): string {
  const statuses = ["available", "pending", "sold", undefined];
  let text = "";
  for (let id = 1; id <= 1000; id++) {
    const status = statuses[id % 4];
    const pet = `{"id":${id},"name":"Pet ${id}","categoryId":${id}${
      status ? `,"status":"${status}"` : ""
    }}`;
    text += `{"type":"pet","v":1,"pet":${pet}}\n`;
  }
  return text;
}

interface Contender {
  readonly name: string;
  readonly serve: () => unknown;
}

/** The ceiling's handler: its headers made per request as the peer makes them, and the answer. */
function ceiling(): Contender {
  const body = '{"id":500,"name":"Pet 500","categoryId":500,"status":"available"}';
  const constant = Object.freeze({
    "x-content-type-options": "nosniff",
    deprecation: "@1767225600",
    sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
    link: '</v1/pets>; rel="successor-version"',
    "content-type": "application/json",
    "cache-control": "private, no-cache",
    vary: "Accept-Encoding",
  });
  let served = 0;
  return {
    name: "ceiling",
    serve: () => {
      served++;
      const headers: Record<string, string> = { ...constant };
      headers.etag = `"${(0x8cb3d14b + (served & 7)).toString(16)}86fff2b4"`;
      headers["x-request-id"] = `e38d2f33-e22e-4069-9442-${String(served).padStart(12, "0")}`;
      return new Response(body, { status: 200, headers });
    },
  };
}

/** The app of `revision`, checked out under the scratch directory, answering the get. */
async function app(revision: string, index: number): Promise<Contender> {
  const tree = join(scratch, `tree-${index}`);
  execFileSync("mkdir", ["-p", tree]);
  const archive = execFileSync("git", [
    "-C",
    ROOT,
    "archive",
    revision,
    "src",
    "package.json",
  ]);
  execFileSync("tar", ["-x", "-C", tree], { input: archive });
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
  const dataDir = join(tree, "data");
  execFileSync("mkdir", ["-p", dataDir]);
  writeFileSync(join(dataDir, "pets.jsonl"), petLines());
  const src = join(tree, "src");
  const { createApp } = await import(join(src, "app.ts"));
  const { loadConfig } = await import(join(src, "config/config.ts"));
  const { keyDigest, KeyRing } = await import(join(src, "http/auth.ts"));
  const { createJsonLogger } = await import(join(src, "log.ts"));
  const { openStore } = await import(join(src, "store/open_store.ts"));
  const { webResponse } = await import(join(src, "http/responses.ts"));
  const config = loadConfig({ API_KEYS: "handle-cost-key", DATA_DIR: dataDir });
  const { store } = await openStore(config, {
    onWarning() {},
    onError() {},
    onInfo() {},
    onWaiting() {},
    lockWaitMs: 0,
    signal: new AbortController().signal,
  });
  const log = createJsonLogger({ write: () => Promise.resolve() });
  const handler = createApp({
    config,
    keys: new KeyRing([keyDigest("handle-cost-key")]),
    log,
    store,
  });
  const request = new Request("http://127.0.0.1:8080/v1/pets/500", {
    headers: {
      authorization: "Bearer handle-cost-key",
      host: "127.0.0.1:8080",
    },
  });
  const first = handler.handle(request, webResponse) as Response;
  if (first.status !== 200) {
    throw new Error(`${revision}: the get answered ${first.status}`);
  }
  const short = execFileSync("git", [
    "-C",
    ROOT,
    "rev-parse",
    "--short",
    revision,
  ]).toString();
  return {
    name: `${revision} (${short.trim()})`,
    serve: () => handler.handle(request, webResponse),
  };
}

const contenders = [ceiling()];
for (const [index, revision] of revisions.entries()) {
  contenders.push(await app(revision, index));
}

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));
const costs = new Map<Contender, number[]>(
  contenders.map((contender) => [contender, []]),
);
let answer: unknown;
for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
  // Alternate who goes first, so a drift in the machine's speed favours none.
  const order = round % 2 === 0 ? contenders : [...contenders].reverse();
  for (const contender of order) {
    const before = process.cpuUsage();
    for (let turn = 0; turn < TURNS; turn++) {
      for (let i = 0; i < PER_TURN; i++) answer = contender.serve();
      await nextTurn();
    }
    const used = process.cpuUsage(before);
    if (round >= WARM_UP_ROUNDS) {
      costs.get(contender)!.push(
        (used.user + used.system) * 1000 / (TURNS * PER_TURN),
      );
    }
  }
}
void answer;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
console.log(
  `CPU ns per get, ${ROUNDS} rounds of ${TURNS * PER_TURN} (median, lowest):`,
);
for (const [contender, values] of costs) {
  console.log(
    `  ${contender.name.padEnd(24)} ${median(values).toFixed(0).padStart(6)}  ` +
      `${Math.min(...values).toFixed(0).padStart(6)}`,
  );
}
process.exit(0);
