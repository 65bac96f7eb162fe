/**
 * Faults a real deployment meets, against the service process on the runtime under test
 * (TARGET_RUNTIME): a full disk, a disk that fails with EIO mid-write (then kill -9 and a
 * "reboot"), the data file removed under a running service, and a lock file left empty by a
 * crash. The disk faults are real: a small tmpfs and a loop-mounted ext4 (test/support/fault_fs.ts).
 */
import assert from "node:assert/strict";
import { mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type ServiceProcess,
  startService,
  targetRuntime,
  temporaryDirectory,
  waitFor,
} from "../support/server_process.ts";
import { nextLink } from "../support/link_header.ts";
import { serviceApi } from "../support/service_api.ts";
import { withService } from "../support/service_fixture.ts";
import { faultFsSkip, mountExt4, mountTmpfs, shutDownFileSystem } from "../support/fault_fs.ts";

const KEY = "fault-suite-key";
const runtime = targetRuntime();
const api = serviceApi(KEY);

/** A create's answer: its status, and the Error message or the pet. */
interface Answer {
  readonly name: string;
  readonly key: string;
  readonly status: number;
  readonly message?: string;
}

async function create(service: ServiceProcess, name: string, key = name): Promise<Answer> {
  const response = await api(service, "/v1/pets", {
    method: "POST",
    headers: { "idempotency-key": key },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
  const body = await response.json();
  return { name, key, status: response.status, message: body.message };
}

/** Every pet's name, walking the pages. */
async function allNames(service: ServiceProcess): Promise<string[]> {
  const names: string[] = [];
  let path: string | undefined = "/v1/pets?limit=100";
  while (path !== undefined) {
    const response = await api(service, path);
    assert.equal(response.status, 200);
    for (const pet of await response.json()) names.push(pet.name);
    path = nextLink(response);
  }
  return names;
}

/** Runs `count` creates, `concurrency` at a time, calling `onAnswer` after each. */
async function createMany(
  service: ServiceProcess,
  options: { prefix: string; count: number; concurrency: number; onAnswer?: () => void },
): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  const worker = async () => {
    while (next < options.count) {
      const name = `${options.prefix}-${next++}`;
      answers.push(await create(service, name));
      options.onAnswer?.();
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return answers;
}

const NOTHING_SAVED = /nothing was saved/;
const OUTCOME_UNKNOWN = /outcome is unknown.*same Idempotency-Key/;

describe(`disk faults on ${runtime}`, { timeout: 120_000, skip: faultFsSkip }, () => {
  it("a full disk answers 503 'nothing was saved', creates work again once space returns, and a restart serves exactly the pets answered 201", async () => {
    const disk = mountTmpfs(512);
    try {
      const dataDir = join(disk.path, "data");
      const service = await startService({ dataDir, env: { API_KEYS: KEY } });
      let restarted: ServiceProcess | undefined;
      try {
        const before = await createMany(service, { prefix: "before", count: 20, concurrency: 4 });
        // Fill what is left, then try to create.
        const filler = join(disk.path, "filler");
        try {
          writeFileSync(filler, new Uint8Array(1024 * 1024));
        } catch (error) {
          assert.equal((error as NodeJS.ErrnoException).code, "ENOSPC");
        }
        const full = await createMany(service, { prefix: "full", count: 40, concurrency: 8 });
        const refused = full.filter((answer) => answer.status === 503);
        assert.ok(refused.length > 0, "some creates hit the full disk");
        for (const answer of refused) assert.match(answer.message ?? "", NOTHING_SAVED);
        assert.equal((await api(service, "/readyz")).status, 200, "a full disk is no halt");

        unlinkSync(filler);
        const after = await createMany(service, { prefix: "after", count: 20, concurrency: 4 });
        assert.deepEqual(after.map((answer) => answer.status), after.map(() => 201));

        const answered = [...before, ...full, ...after].filter((answer) => answer.status === 201);
        assert.equal(await service.stop(), 0);
        restarted = await startService({ dataDir, env: { API_KEYS: KEY } });
        assert.deepEqual(
          (await allNames(restarted)).sort(),
          answered.map((answer) => answer.name).sort(),
        );
      } finally {
        service.kill("SIGKILL");
        await service.exited;
        if (restarted !== undefined) await restarted.stop();
      }
    } finally {
      disk.remove();
    }
  });

  it("EIO mid-write (EXT4_IOC_SHUTDOWN), kill -9, remount: every 201 is kept, no pet answered 'nothing was saved' appears, and a retry of an unknown outcome with its key returns it once", async () => {
    const disk = mountExt4(64);
    try {
      const dataDir = join(disk.path, "data");
      const service = await startService({ dataDir, env: { API_KEYS: KEY } });
      let restarted: ServiceProcess | undefined;
      try {
        let created = 0;
        let shutDown = false;
        const answers = await createMany(service, {
          prefix: "pet",
          count: 3_000,
          concurrency: 16,
          onAnswer: () => {
            // The disk dies while creates are in full flow.
            if (++created === 300 && !shutDown) {
              shutDown = true;
              shutDownFileSystem(disk.path);
            }
          },
        });
        assert.ok(shutDown, "the file system was shut down during the creates");
        const ready = await api(service, "/readyz");
        assert.equal(ready.status, 503, "a store that cannot know its file is not ready");
        await waitFor(
          () =>
            service.stdout().split("\n").some((line) =>
              line.includes('"level":"error"') && line.includes("pets.jsonl")
            ),
          "an error line naming the data file",
        );

        const kept = answers.filter((answer) => answer.status === 201);
        const unknown = answers.filter((answer) => OUTCOME_UNKNOWN.test(answer.message ?? ""));
        const notSaved = answers.filter((answer) => NOTHING_SAVED.test(answer.message ?? ""));
        assert.equal(
          kept.length + unknown.length + notSaved.length,
          answers.length,
          `every answer is a 201 or a 503 that says which: ${
            JSON.stringify(answers.find((a) => a.status !== 201 && a.status !== 503))
          }`,
        );

        service.kill("SIGKILL");
        await service.exited;
        disk.remount();
        restarted = await startService({ dataDir, env: { API_KEYS: KEY } });
        const names = await allNames(restarted);
        const present = new Set(names);
        assert.equal(present.size, names.length, "no pet twice");
        for (const answer of kept) assert.ok(present.has(answer.name), `${answer.name} lost`);
        const resurrected = notSaved.filter((answer) => present.has(answer.name));
        assert.deepEqual(resurrected.map((answer) => answer.name), [], "answered 'nothing saved'");

        // Each unknown outcome, retried with its key: the pet, exactly once.
        for (const answer of unknown) {
          const retry = await create(restarted, answer.name, answer.key);
          assert.equal(retry.status, 201);
        }
        const final = await allNames(restarted);
        for (const answer of unknown) {
          assert.equal(final.filter((name) => name === answer.name).length, 1, answer.name);
        }
      } finally {
        service.kill("SIGKILL");
        await service.exited;
        if (restarted !== undefined) await restarted.stop();
      }
    } finally {
      disk.remove();
    }
  });
});

describe(`operators' mistakes on ${runtime}`, { timeout: 60_000 }, () => {
  it("the data file removed under a running service: creates get 503, /readyz 503, an error line names the file", async () => {
    await withService({ key: KEY }, async (service) => {
      assert.equal((await create(service, "Kept")).status, 201);
      const file = join(service.dataDir, "pets.jsonl");
      unlinkSync(file);
      const after = await create(service, "Lost");
      assert.equal(after.status, 503);
      assert.doesNotMatch(after.message ?? "", NOTHING_SAVED);
      assert.equal((await create(service, "Refused")).status, 503);
      assert.equal((await api(service, "/readyz")).status, 503);
      const errorLines = () =>
        service.stdout().split("\n").filter((line) => line.includes('"level":"error"'));
      await waitFor(() => errorLines().length > 0, "an error line"); // the log is batched
      const errors = errorLines();
      assert.equal(errors.length, 1, errors.join("\n"));
      assert.ok(errors[0].includes(file), errors[0]);
    });
  });

  it("an empty lock file left by a crash does not hold up the next start", async () => {
    const dir = temporaryDirectory();
    try {
      mkdirSync(dir.path, { recursive: true });
      writeFileSync(join(dir.path, "animal-store.lock"), "");
      const started = performance.now();
      const service = await startService({ dataDir: dir.path, env: { API_KEYS: KEY } });
      try {
        assert.equal((await api(service, "/readyz")).status, 200);
        assert.ok(performance.now() - started < 4_000, "started without waiting for the lock");
      } finally {
        await service.stop();
      }
    } finally {
      dir.remove();
    }
  });
});
