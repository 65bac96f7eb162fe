#!/usr/bin/env node
// `npm test`: four parts (Deno, Bun, the Node build, the single executable) at once, each runner
// running TEST_FILES files at a time (Deno one more), service suites first; each part's output
// printed when it ends; then a summary line per runtime, the ten slowest files and a final
// "N passed, N failed" line; exits non-zero on any failure. A throw-away PostgreSQL cluster serves
// the suites unless DATABASE_TEST_URL names a server. docs/testing.md says what runs where and why.
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findPostgresBin, startPostgresCluster } from "./postgres_cluster.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const only = process.argv.slice(2); // e.g. `npm test -- deno` runs one runtime

/**
 * Suites whose subject is the same on every runtime (the repository's files, the docs, the client
 * types, the Prometheus files, the benchmark's pieces, `deno compile`): Bun does not repeat them.
 */
const RUNTIME_INDEPENDENT = [
  "test/repository/",
  "test/docs/",
  "test/bench/",
  "test/client/generated_types.test.ts",
  "test/metrics/prometheus_files.test.ts",
  "test/ship/compile_deno.test.ts",
];

/**
 * The suites run against the single executable: those that its packaging can break (what
 * scripts/compile_bun.sh embeds, the process it makes, its signals); docs/testing.md says why each.
 */
const EXECUTABLE_SUITES = [
  "test/ship/executable.test.ts",
  "test/service/commands.test.ts",
  "test/service/metrics.test.ts",
  "test/service/https.test.ts",
  "test/service/logging.test.ts",
  "test/service/faults.test.ts",
  "test/service/shutdown.test.ts",
  "test/service/proxies.test.ts",
  "test/service/postgres_failover.test.ts",
];

/**
 * JUnit reports of the runners, one per part (`deno.xml`, …), read for the slowest files at the
 * end: kept in TEST_REPORTS when it names a directory, else in a temporary one removed at exit.
 */
const reports = process.env.TEST_REPORTS || mkdtempSync(join(tmpdir(), "animal-store-test-"));
if (process.env.TEST_REPORTS) mkdirSync(reports, { recursive: true });
else process.on("exit", () => rmSync(reports, { recursive: true, force: true }));
const report = (part) => join(reports, `${part}.xml`);

/**
 * Parts run at once, and files at once within a part (the runners' own `--parallel`): most of a
 * file's time is spent waiting on the services it starts, so 2 cores take more than two files.
 */
const JOBS = Math.max(1, Number(process.env.TEST_JOBS) || 4);
const FILES_AT_ONCE = Math.max(1, Number(process.env.TEST_FILES) || 2);
// The Deno part runs every file, the others a part of them: one more at a time evens their ends
// when the parts run at once; TEST_FILES, when given, holds for every part.
const DENO_FILES_AT_ONCE = process.env.TEST_FILES || JOBS === 1 ? FILES_AT_ONCE : FILES_AT_ONCE + 1;

/**
 * Each part starts the files that start services (test/service/, test/ship/) first, larger files
 * first, so that it does not end on one long file.
 */
function slowestFirst(files) {
  const weight = (file) =>
    statSync(join(root, file)).size * (/^test\/(service|ship)\//.test(file) ? 10 : 1);
  return files.map((file) => [weight(file), file]).sort((a, b) => b[0] - a[0])
    .map(([, file]) => file);
}

/** Runs a command; resolves with [exit code, output], and adds both to the part's `log`. */
function run(log, label, command, args, env = {}) {
  log.push(`\n=== ${label}: ${command.split("/").at(-1)} ${args.join(" ")}\n`);
  return new Promise((resolve) => {
    let output = "";
    let done = false;
    const finish = (code) => {
      if (done) return;
      done = true;
      log.push(output);
      resolve([code, output]);
    };
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.setEncoding("utf8").on("data", (text) => (output += text));
    child.stderr.setEncoding("utf8").on("data", (text) => (output += text));
    child.on("error", (error) => {
      output += `${error.message}\n`;
      finish(1);
    });
    child.on("close", (code) => finish(code ?? 1));
  });
}

/** Counts from `deno test` ("ok | 7 passed (40 steps) | 0 failed") — steps are the `it`s. */
function denoCounts(output) {
  const line = output.split("\n").findLast((text) => /\d+ passed.*\d+ failed/.test(text)) ?? "";
  const number = (pattern) => Number(pattern.exec(line)?.[1] ?? 0);
  const passed = number(/passed \((\d+) steps?\)/) || number(/(\d+) passed/);
  const failed = number(/failed \((\d+) steps?\)/) || number(/(\d+) failed/);
  return { passed, failed };
}

/** Counts from `bun test` (" 40 pass" / " 0 fail"). */
function bunCounts(output) {
  return {
    passed: Number(/^\s*(\d+) pass$/m.exec(output)?.[1] ?? 0),
    failed: Number(/^\s*(\d+) fail$/m.exec(output)?.[1] ?? 0),
  };
}

/** Every `*.test.ts` under test/, relative to the root. */
const testFiles = () =>
  readdirSync(join(root, "test"), { recursive: true }).filter((file) => file.endsWith(".test.ts"))
    .map((file) => `test/${file}`).sort();

/**
 * Seconds per test file from a JUnit report: a file's suite (Deno names it "./test/…") has its
 * time (Bun), or its top-level tests' times to sum (Deno, module loading not counted).
 */
function fileSeconds(xml) {
  const attribute = (attributes, name) => new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
  const seconds = new Map();
  for (const [, attributes, body] of xml.matchAll(/<testsuite\b([^>]*)>([\s\S]*?)<\/testsuite>/g)) {
    const name = attribute(attributes, "name") ?? "";
    if (!/^(\.\/)?test\/.*\.ts$/.test(name)) continue;
    const cases = [...body.matchAll(/<testcase\b([^>]*)>/g)];
    const time = attribute(attributes, "time") ??
      cases.reduce((sum, [, a]) => sum + Number(attribute(a, "time") ?? 0), 0);
    seconds.set(name.replace(/^\.\//, ""), Number(time));
  }
  return seconds;
}

/** [seconds, part, file] of every file a part's report times. */
const timings = [];
function readTimings(part) {
  if (!existsSync(report(part))) return; // the runner stopped before writing it; counted already
  const xml = readFileSync(report(part), "utf8");
  for (const [file, seconds] of fileSeconds(xml)) timings.push([seconds, part, file]);
}

let cluster;
if (!process.env.DATABASE_TEST_URL && findPostgresBin() !== undefined) {
  // No suite on the shared cluster crashes PostgreSQL itself (postgres_outages.test.ts starts a
  // cluster of its own, fsync on), and a stop with `-m immediate` keeps what the kernel holds: so
  // the syncs that make commits survive a power cut are turned off here.
  cluster = await startPostgresCluster({ settings: ["fsync=off", "full_page_writes=off"] });
  process.env.DATABASE_TEST_URL = cluster.adminUrl;
  console.log(`PostgreSQL for the tests: ${cluster.adminUrl}`);
} else if (!process.env.DATABASE_TEST_URL) {
  console.log("PostgreSQL not installed: its suites are skipped (REQUIRE_POSTGRES=1 fails them)");
}
process.on("exit", () => cluster?.stop());

/** A part's verdict: its summary line's name, the runner's exit code and its counts. */
const verdict = (runtime, code, counts) => ({ runtime, code, counts });

/**
 * Runs `deno test` on `files` with TARGET_RUNTIME=`part`; the part's verdict. Only the Deno part
 * type-checks: the other parts run the same files.
 */
async function denoTest(log, part, files, runtime = part) {
  const args = ["test", "--allow-all", "--parallel", `--junit-path=${report(part)}`];
  if (part !== "deno") args.push("--no-check");
  args.push(...slowestFirst(files)); // `--parallel` starts them in this order
  const jobs = part === "deno" ? DENO_FILES_AT_ONCE : FILES_AT_ONCE;
  const env = { TARGET_RUNTIME: part, DENO_JOBS: String(jobs) };
  const [code, output] = await run(log, part, bin("deno"), args, env);
  return verdict(runtime, code, denoCounts(output));
}

/** Bun's `--timings` file: it starts the files it names slowest first. */
function bunTimings(files) {
  const ordered = slowestFirst(files);
  const path = join(reports, "bun-timings.json");
  const entries = ordered.map((file, index) => [file, ordered.length - index]);
  writeFileSync(path, JSON.stringify({ version: 1, files: Object.fromEntries(entries) }));
  return path;
}

/** The four parts; each runs its runner (after its build) and reads its JUnit report. */
const parts = {
  deno: (log) => denoTest(log, "deno", testFiles()),
  async bun(log) {
    const files = testFiles().filter((file) =>
      !RUNTIME_INDEPENDENT.some((prefix) => file.startsWith(prefix))
    );
    const args = ["test", "--timeout", "120000", `--parallel=${FILES_AT_ONCE}`];
    args.push(`--timings=${bunTimings(files)}`, "--reporter=junit");
    args.push(`--reporter-outfile=${report("bun")}`, ...files.map((file) => `./${file}`));
    const [code, output] = await run(log, "bun", bin("bun"), args, { TARGET_RUNTIME: "bun" });
    return verdict("bun", code, bunCounts(output));
  },
  async node(log) {
    // The suites start the bundle with the `node` first on PATH (test/support/server_process.ts):
    // CI puts each supported Node there in turn (.ci/run). Its version names this part's summary.
    const [versionCode, version] = await run(log, "node version", "node", ["--version"]);
    const runtime = versionCode === 0 ? `node ${version.trim()}` : "node";
    const [buildCode] = await run(log, "node build", "npm", ["run", "build", "--silent"]);
    if (versionCode !== 0 || buildCode !== 0 || !existsSync(join(root, "dist/animal-store.mjs"))) {
      return verdict(runtime, 1, { passed: 0, failed: 1 });
    }
    return denoTest(
      log,
      "node",
      testFiles().filter((file) => file.startsWith("test/service/")),
      runtime,
    );
  },
  async executable(log) {
    const [buildCode] = await run(log, "executable build", "bash", ["scripts/compile_bun.sh"]);
    if (buildCode !== 0 || !existsSync(join(root, "dist/animal-store"))) {
      return verdict("executable", 1, { passed: 0, failed: 1 });
    }
    return denoTest(log, "executable", EXECUTABLE_SUITES);
  },
};

const selected = Object.keys(parts).filter((part) => only.length === 0 || only.includes(part));
const verdicts = new Map();
const queue = [...selected];
await Promise.all(Array.from({ length: Math.min(JOBS, queue.length) }, async () => {
  for (let part = queue.shift(); part !== undefined; part = queue.shift()) {
    const log = [];
    const started = performance.now();
    try {
      verdicts.set(part, await parts[part](log));
    } catch (error) {
      log.push(`\n${error?.stack ?? error}\n`);
      verdicts.set(part, verdict(part, 1, { passed: 0, failed: 1 }));
    }
    readTimings(part);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    process.stdout.write(`${log.join("")}\n=== ${part}: done in ${seconds} s\n`);
  }
}));

const summaries = selected.map((part) => {
  const { runtime, code, counts } = verdicts.get(part);
  // A runner that crashed before counting still fails the run.
  const failed = counts.failed + (code !== 0 && counts.failed === 0 ? 1 : 0);
  return { runtime, passed: counts.passed, failed };
});

console.log("\n=== summary");
for (const { runtime, passed, failed } of summaries) {
  console.log(`${runtime}: ${passed} passed, ${failed} failed`);
}
console.log("ten slowest files:");
for (const [seconds, part, file] of timings.sort((a, b) => b[0] - a[0]).slice(0, 10)) {
  console.log(`${seconds.toFixed(1).padStart(7)} s  ${part.padEnd(10)} ${file}`);
}
const passed = summaries.reduce((sum, s) => sum + s.passed, 0);
const failed = summaries.reduce((sum, s) => sum + s.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
