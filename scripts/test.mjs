#!/usr/bin/env node
// `npm test`: the whole suite under Deno and under Bun (the HTTP process suites start the
// service on that same runtime), then the HTTP process suites against the Node build (run by the
// `node` first on PATH, whose version it prints), then the smoke test and the operator's commands
// against the single executable (built first). Prints a summary line per runtime and a final
// "N passed, N failed" line; exits non-zero on any failure.
//
// The PostgreSQL suites need a server: unless DATABASE_TEST_URL names one, a throw-away cluster
// is started here (scripts/postgres_cluster.mjs) when PostgreSQL is installed, and removed at the
// end. With REQUIRE_POSTGRES=1 (CI) a missing PostgreSQL fails the run instead of skipping them.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findPostgresBin, startPostgresCluster } from "./postgres_cluster.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const only = process.argv.slice(2); // e.g. `npm test -- deno` runs one runtime

/** Runs a command, echoing its output, and returns [exit code, output]. */
function run(label, command, args, env = {}) {
  console.log(`\n=== ${label}: ${command.split("/").at(-1)} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1", ...env },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 256 * 1024 * 1024,
  });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  process.stdout.write(output);
  return [result.status ?? 1, output];
}

/** Counts from `deno test` ("ok | 7 passed (40 steps) | 0 failed") — steps are the `it`s. */
function denoCounts(output) {
  const line = output.split("\n").reverse().find((text) => /\d+ passed.*\d+ failed/.test(text)) ??
    "";
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

let cluster;
if (!process.env.DATABASE_TEST_URL && findPostgresBin() !== undefined) {
  cluster = await startPostgresCluster();
  process.env.DATABASE_TEST_URL = cluster.adminUrl;
  console.log(`PostgreSQL for the tests: ${cluster.adminUrl}`);
} else if (!process.env.DATABASE_TEST_URL) {
  console.log("PostgreSQL not installed: its suites are skipped (REQUIRE_POSTGRES=1 fails them)");
}
process.on("exit", () => cluster?.stop());

const summaries = [];
function record(runtime, code, counts) {
  // A runner that crashed before counting still fails the run.
  const failed = counts.failed + (code !== 0 && counts.failed === 0 ? 1 : 0);
  summaries.push({ runtime, passed: counts.passed, failed });
}

if (only.length === 0 || only.includes("deno")) {
  const [code, output] = run("deno", bin("deno"), ["test", "--allow-all", "test/"], {
    TARGET_RUNTIME: "deno",
  });
  record("deno", code, denoCounts(output));
}
if (only.length === 0 || only.includes("bun")) {
  const [code, output] = run("bun", bin("bun"), ["test", "--timeout", "120000", "./test/"], {
    TARGET_RUNTIME: "bun",
  });
  record("bun", code, bunCounts(output));
}
if (only.length === 0 || only.includes("node")) {
  // The suites start the bundle with the `node` first on PATH (test/support/server_process.ts):
  // CI puts each supported Node there in turn (.ci/run). Its version names this part's summary.
  const [versionCode, version] = run("node version", "node", ["--version"]);
  const runtime = versionCode === 0 ? `node ${version.trim()}` : "node";
  const [buildCode] = run("node build", "npm", ["run", "build", "--silent"]);
  if (versionCode !== 0 || buildCode !== 0 || !existsSync(join(root, "dist/animal-store.mjs"))) {
    record(runtime, 1, { passed: 0, failed: 1 });
  } else {
    const [code, output] = run("node", bin("deno"), ["test", "--allow-all", "test/service/"], {
      TARGET_RUNTIME: "node",
    });
    record(runtime, code, denoCounts(output));
  }
}
if (only.length === 0 || only.includes("executable")) {
  // The single executable (scripts/compile_bun.sh): its smoke test, the operator's commands, a
  // real /metrics scrape, HTTPS, pipelining (Bun's, whose known bug the suite pins), the request
  // edges (Host, targets, clients that go away), shutdown, restarts behind nginx and HAProxy, the
  // fault suite, running out of file descriptors, and PostgreSQL crashing, freezing and failing
  // over under it.
  const [buildCode] = run("executable build", "bash", ["scripts/compile_bun.sh"]);
  if (buildCode !== 0 || !existsSync(join(root, "dist/animal-store"))) {
    record("executable", 1, { passed: 0, failed: 1 });
  } else {
    const [code, output] = run("executable", bin("deno"), [
      "test",
      "--allow-all",
      "test/ship/executable.test.ts",
      "test/service/commands.test.ts",
      "test/service/metrics.test.ts",
      "test/service/https.test.ts",
      "test/service/pipelining.test.ts",
      "test/service/request_edges.test.ts",
      "test/service/shutdown.test.ts",
      "test/service/proxies.test.ts",
      "test/service/faults.test.ts",
      "test/service/logging.test.ts",
      "test/service/memory.test.ts",
      "test/service/descriptors.test.ts",
      "test/service/request_memory.test.ts",
      "test/service/postgres_outages.test.ts",
      "test/service/postgres_failover.test.ts",
    ], { TARGET_RUNTIME: "executable" });
    record("executable", code, denoCounts(output));
  }
}

console.log("\n=== summary");
for (const { runtime, passed, failed } of summaries) {
  console.log(`${runtime}: ${passed} passed, ${failed} failed`);
}
const passed = summaries.reduce((sum, s) => sum + s.passed, 0);
const failed = summaries.reduce((sum, s) => sum + s.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
