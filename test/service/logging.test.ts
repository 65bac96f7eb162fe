/**
 * Logging is best effort, against the service process on the runtime under test (TARGET_RUNTIME):
 * stdout into a real pipe whose reader exits (EPIPE) or stops reading (the pipe fills), and into
 * a file on a real full tmpfs (ENOSPC). The service keeps serving without delay, drops lines
 * instead of holding them without bound, counts them in `animal_store_log_lines_dropped_total`,
 * and says how many with one `warn` line once stdout takes lines again.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { faultFsSkip, mountTmpfs } from "../support/fault_fs.ts";
import { logPipe } from "../support/log_pipe.ts";
import { residentBytes } from "../support/process_stats.ts";
import {
  type ServiceProcess,
  startService,
  targetRuntime,
  temporaryDirectory,
  waitFor,
} from "../support/server_process.ts";
import { serviceApi } from "../support/service_api.ts";

const KEY = "logging-suite-key";
const runtime = targetRuntime();
const api = serviceApi(KEY);
const ENV = { API_KEYS: KEY, METRICS: "on" };

/** A path just under the URL cap: its 404's log line is about 8 KB, so lines add up fast. */
const LONG_PATH = `/v1/${"x".repeat(8_000)}`;

/** `animal_store_log_lines_dropped_total` as a scrape shows it. */
async function droppedLines(service: ServiceProcess): Promise<number> {
  const response = await api(service, "/metrics");
  assert.equal(response.status, 200);
  const text = await response.text();
  const match = /^animal_store_log_lines_dropped_total (\d+)$/m.exec(text);
  assert.ok(match !== null, "the scrape has animal_store_log_lines_dropped_total");
  return Number(match[1]);
}

/** Sends `count` requests for `path`, `concurrency` at a time; each must be answered in time. */
async function requestMany(
  service: ServiceProcess,
  options: { path: string; count: number; concurrency: number; status: number },
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next++ < options.count) {
      const response = await api(service, options.path, { signal: AbortSignal.timeout(5_000) });
      assert.equal(response.status, options.status);
      await response.body?.cancel();
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
}

/** The `warn` lines that report dropped lines, in `text`. */
function dropReports(text: string): { dropped: number; msg: string }[] {
  return text.split("\n").filter((line) => line.includes('"level":"warn"'))
    .map((line) => JSON.parse(line))
    .filter((line) => /log lines dropped/.test(line.msg));
}

/** /healthz, timed; fails if it takes over `limitMs`. */
async function promptHealth(service: ServiceProcess, limitMs: number): Promise<void> {
  const started = performance.now();
  const response = await api(service, "/healthz", { signal: AbortSignal.timeout(limitMs) });
  assert.equal(response.status, 200);
  await response.body?.cancel();
  const took = performance.now() - started;
  assert.ok(took < limitMs, `/healthz took ${Math.round(took)} ms`);
}

/**
 * Runs `test` against a service whose stdout is a FIFO read by `cat` (`pipe`), once its start
 * line has come through; then kills the service, lets the reader go and removes everything.
 */
async function withPipedService(
  test: (service: ServiceProcess, pipe: ReturnType<typeof logPipe>) => Promise<void>,
): Promise<void> {
  const dir = temporaryDirectory();
  const pipe = logPipe(dir.path);
  let service: ServiceProcess | undefined;
  try {
    const dataDir = join(dir.path, "data");
    service = await startService({ dataDir, stdoutPath: pipe.path, env: ENV });
    await waitFor(() => pipe.text().includes('"port"'), "the start line in the pipe");
    await test(service, pipe);
  } finally {
    service?.kill("SIGKILL");
    pipe.resume();
    await pipe.close();
    dir.remove();
  }
}

describe(`logging on ${runtime} when stdout fails`, { timeout: 90_000 }, () => {
  it("a pipe whose reader exits: the service keeps serving, and counts the lines it drops", async () => {
    await withPipedService(async (service, pipe) => {
      await pipe.close();

      await requestMany(service, { path: "/v1/pets", count: 50, concurrency: 4, status: 200 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await requestMany(service, { path: "/healthz", count: 20, concurrency: 2, status: 200 });
      const created = await api(service, "/v1/pets", {
        method: "POST",
        body: '{"name":"Rex","categoryId":1}',
      });
      assert.equal(created.status, 201);
      await created.body?.cancel();
      assert.equal(service.child.exitCode, null, "the process is alive");
      assert.ok(await droppedLines(service) >= 70, "every line since the reader left is counted");
      assert.equal(await service.stop(), 0, "SIGTERM still ends in a clean exit");
    });
  });

  it("a pipe whose reader stops reading: answers stay prompt, memory stays bounded, and one warn line counts the drops once it reads again", async () => {
    await withPipedService(async (service, pipe) => {
      // Warm up, so the growth measured below is the log's and not the first requests'.
      await requestMany(service, { path: LONG_PATH, count: 500, concurrency: 8, status: 404 });
      await waitFor(() => pipe.text().length > 500 * 8_000, "the warm-up's lines in the pipe");
      pipe.pause();
      // About 24 MB of log lines: the pipe (64 KiB) and the 8 MiB allowed to wait fill early.
      await requestMany(service, { path: LONG_PATH, count: 3_000, concurrency: 16, status: 404 });
      const residentFull = residentBytes(service);
      for (let i = 0; i < 10; i++) await promptHealth(service, 1_000);
      // As many again (more than the bound below if they were kept): dropped lines cost no memory.
      await requestMany(service, { path: LONG_PATH, count: 3_000, concurrency: 16, status: 404 });
      const grown = residentBytes(service) - residentFull;
      assert.ok(grown < 16 * 1024 * 1024, `RSS grew ${Math.round(grown / 1048576)} MiB`);
      for (let i = 0; i < 10; i++) await promptHealth(service, 1_000);
      const droppedWhilePaused = await droppedLines(service);
      assert.ok(droppedWhilePaused > 4_000, `dropped ${droppedWhilePaused} of about 6,000 lines`);

      pipe.resume();
      await waitFor(() => dropReports(pipe.text()).length > 0, "the warn line", 20_000);
      // Lines logged after the report must not bring a second one.
      await requestMany(service, { path: "/healthz", count: 20, concurrency: 2, status: 200 });
      const total = await droppedLines(service);
      await waitFor(() => pipe.text().includes('"path":"/metrics"'), "the scrape's line");
      const reports = dropReports(pipe.text());
      assert.equal(reports.length, 1, "one warn line");
      assert.equal(reports[0].dropped, total, "the warn line and the metric agree");
      assert.match(reports[0].msg, new RegExp(`^${total} log lines dropped`));
    });
  });

  it("a pipe whose reader stops reading does not hold up a SIGTERM's exit", async () => {
    await withPipedService(async (service, pipe) => {
      pipe.pause();
      // About 1.6 MB of lines: far more than the pipe holds, so a write is left waiting.
      await requestMany(service, { path: LONG_PATH, count: 200, concurrency: 8, status: 404 });
      // Requests finish at once; the last lines may wait half a second for stdout. A write that
      // held the exit would hold it past SHUTDOWN_TIMEOUT (10 s); 6 s leaves a busy machine room.
      const gone = new Promise((resolve) => setTimeout(() => resolve("still running"), 6_000));
      assert.equal(await Promise.race([service.stop(), gone]), 0);
    });
  });
});

describe(`logging on ${runtime} to a full disk`, { timeout: 90_000, skip: faultFsSkip }, () => {
  it("starts and serves with its log file on a full tmpfs, counts the drops, and reports them once space returns", async () => {
    const dir = temporaryDirectory();
    const disk = mountTmpfs(256);
    let service: ServiceProcess | undefined;
    try {
      const log = join(disk.path, "service.log");
      writeFileSync(log, "");
      const filler = join(disk.path, "filler");
      try {
        writeFileSync(filler, new Uint8Array(1024 * 1024));
        assert.fail("the tmpfs should be full");
      } catch (error) {
        assert.equal((error as NodeJS.ErrnoException).code, "ENOSPC");
      }
      const dataDir = join(dir.path, "data");
      mkdirSync(dataDir);
      service = await startService({ dataDir, stdoutPath: log, env: ENV });

      await requestMany(service, { path: "/v1/pets", count: 20, concurrency: 2, status: 200 });
      const created = await api(service, "/v1/pets", {
        method: "POST",
        body: '{"name":"Rex","categoryId":1}',
      });
      assert.equal(created.status, 201);
      await created.body?.cancel();
      assert.ok(await droppedLines(service) >= 21, "the start's and the requests' lines");
      assert.equal(readFileSync(log, "utf8"), "", "nothing fits on the disk");

      unlinkSync(filler);
      await waitFor(async () => {
        await requestMany(service!, { path: "/healthz", count: 1, concurrency: 1, status: 200 });
        return dropReports(readFileSync(log, "utf8")).length > 0;
      }, "the warn line in the log file");
      const reports = dropReports(readFileSync(log, "utf8"));
      assert.equal(reports.length, 1);
      assert.ok(reports[0].dropped >= 22, `reported ${reports[0].dropped}`);
      assert.equal(await service.stop(), 0);
    } finally {
      service?.kill("SIGKILL");
      disk.remove();
      dir.remove();
    }
  });
});
