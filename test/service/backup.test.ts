/**
 * `backup` and `restore` against a running service on the runtime under test (TARGET_RUNTIME):
 * a backup taken while 16 clients create pets holds every pet answered 201 before it started,
 * byte for byte with its idempotency key, under a check line; restored into an empty directory, a
 * service there serves exactly those pets, replays their keys and continues ids after them. A
 * backup cut short or altered is refused, one without a check restores with a warning.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { BACKUP_LINE, PET_RECORD_PREFIX } from "../../src/store/catalogue/line_format.ts";
import { nextLink } from "../support/link_header.ts";
import {
  runService,
  serviceCommand,
  type ServiceProcess,
  startService,
  targetRuntime,
  temporaryDirectory,
} from "../support/server_process.ts";
import { serviceApi } from "../support/service_api.ts";
import { freshDatabase, skipWithoutPostgres } from "../support/postgres.ts";

const runtime = targetRuntime();
const KEY = "backup-suite-key";
const api = serviceApi(KEY);
const CLIENTS = 16;
/** Creates per client at most: the load is bounded whatever happens. */
const MAX_CREATES = 150;

/** A 201 seen by a client: the body's exact text, its key and when it arrived. */
interface Created {
  readonly id: number;
  readonly text: string;
  readonly body: string;
  readonly key: string | undefined;
  readonly at: number;
}

/** The pet text and the rest of a record line. */
function splitLine(line: string): { id: number; pet: string; claim: string } {
  assert.ok(line.startsWith(PET_RECORD_PREFIX), line);
  // Without the record's closing brace and newline.
  const rest = line.slice(PET_RECORD_PREFIX.length, -2);
  const at = rest.indexOf(`,"idempotency":`);
  const pet = at === -1 ? rest : rest.slice(0, at);
  return { id: JSON.parse(pet).id, pet, claim: at === -1 ? "" : rest.slice(at) };
}

/** A backup's pet lines, once its first line and its check line are seen to be there. */
function petLinesOf(backup: string): string[] {
  const lines = backup.split(/(?<=\n)/);
  assert.equal(lines[0], BACKUP_LINE);
  assert.match(lines.at(-1)!, /^\{"type":"check","v":1,"pets":\d+,"sha256":"[0-9a-f]{64}"\}\n$/);
  return lines.slice(1, -1);
}

/** Every page of GET /v1/pets?limit=100, as the raw body texts. */
async function pages(service: ServiceProcess): Promise<string[]> {
  const bodies: string[] = [];
  let path: string | undefined = "/v1/pets?limit=100";
  while (path !== undefined) {
    const response = await api(service, path);
    assert.equal(response.status, 200);
    bodies.push(await response.text());
    path = nextLink(response);
  }
  return bodies;
}

describe(`backup and restore on ${runtime}`, { timeout: 180_000 }, () => {
  const dir = temporaryDirectory("animal-store-backup-");
  const sourceDir = join(dir.path, "source");
  const backupPath = join(dir.path, "nightly.jsonl");
  const restoredDir = join(dir.path, "restored");
  let source: ServiceProcess;
  let restored: ServiceProcess | undefined;
  const created: Created[] = [];
  let backupStarted = 0;
  let backupLines: string[] = [];
  let backupText = "";

  before(async () => {
    source = await startService({ dataDir: sourceDir, env: { API_KEYS: KEY } });
    let stop = false;
    const client = async (c: number) => {
      for (let i = 0; i < MAX_CREATES && !stop; i++) {
        const key = i % 2 === 0 ? `client-${c}-create-${i}` : undefined;
        const body = JSON.stringify({
          name: `Pet ${c}/${i} 😀`,
          categoryId: c * 1000 + i,
          ...(i % 3 === 0 ? {} : { status: ["available", "pending", "sold"][i % 3] }),
        });
        const response = await api(source, "/v1/pets", {
          method: "POST",
          body,
          headers: key === undefined ? {} : { "idempotency-key": key },
        });
        const text = await response.text();
        const at = performance.now();
        assert.equal(response.status, 201, text);
        created.push({ id: JSON.parse(text).id, text, body, key, at });
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    try {
      // Half the load before the backup starts, half while it runs (and after).
      while (created.length < (CLIENTS * MAX_CREATES) / 2) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      backupStarted = performance.now();
      const result = await runService(["backup", backupPath], {
        env: { DATA_DIR: sourceDir },
        timeoutMs: 60_000,
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /\d+ pets \(available \d+, pending \d+, sold \d+, no status \d+\)/,
      );
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    backupText = readFileSync(backupPath, "utf8");
    backupLines = petLinesOf(backupText);
  });

  after(async () => {
    await restored?.stop();
    await source?.stop();
    dir.remove();
  });

  it("the backup holds every pet answered 201 before it started, byte for byte with its key", () => {
    const byId = new Map(backupLines.map((line) => [splitLine(line).id, splitLine(line)]));
    const before = created.filter((pet) => pet.at < backupStarted);
    assert.ok(
      before.length >= (CLIENTS * MAX_CREATES) / 2,
      `${before.length} pets before the backup`,
    );
    for (const pet of before) {
      const line = byId.get(pet.id);
      assert.ok(line !== undefined, `pet ${pet.id} is missing from the backup`);
      assert.equal(line.pet, pet.text);
      assert.equal(line.claim.includes(JSON.stringify(pet.key ?? "\0")), pet.key !== undefined);
    }
    assert.ok(created.length > before.length, "pets were created while the backup ran");
  });

  it("the backup proves itself (verify PATH), and is a sound data file (verify)", async () => {
    const proven = await runService(["verify", backupPath], { env: {} });
    assert.equal(proven.code, 0, proven.stdout + proven.stderr);
    assert.match(
      proven.stdout,
      new RegExp(
        `: ${backupLines.length} pets .*\nok: the backup is whole: its check line matches every pet line\n$`,
      ),
    );
    const verifyDir = join(dir.path, "verify");
    mkdirSync(verifyDir);
    writeFileSync(join(verifyDir, "pets.jsonl"), backupText);
    const result = await runService(["verify"], { env: { DATA_DIR: verifyDir } });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, new RegExp(`: ${backupLines.length} pets `));
  });

  it("a service on the restored directory serves exactly the backup's pets, byte for byte", async () => {
    const result = await runService(["restore", backupPath], { env: { DATA_DIR: restoredDir } });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "", "a proven backup restores without a warning");
    assert.match(result.stdout, new RegExp(`: ${backupLines.length} pets `));
    assert.equal(readFileSync(join(restoredDir, "pets.jsonl"), "utf8"), backupLines.join(""));
    restored = await startService({ dataDir: restoredDir, env: { API_KEYS: KEY } });

    const texts = backupLines.map((line) => splitLine(line).pet);
    const expected: string[] = [];
    for (let i = 0; i < texts.length; i += 100) {
      expected.push(`[${texts.slice(i, i + 100).join(",")}]`);
    }
    assert.deepEqual(await pages(restored), expected);
    // The same pets, in the same bytes, as the service the backup was taken from.
    const original = (await pages(source)).join("");
    for (const text of texts) assert.ok(original.includes(text), text);
  });

  it("after a restore an Idempotency-Key replays the original pet and new ids come after the backup's", async () => {
    assert.ok(restored !== undefined, "the restore test ran first");
    const last = splitLine(backupLines.at(-1)!).id;
    const withKey = created.find((pet) =>
      pet.key !== undefined && pet.at < backupStarted && pet.id < last
    )!;
    const replay = await api(restored, "/v1/pets", {
      method: "POST",
      body: withKey.body,
      headers: { "idempotency-key": withKey.key! },
    });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal(await replay.text(), withKey.text);

    const fresh = await api(restored, "/v1/pets", {
      method: "POST",
      body: JSON.stringify({ name: "After the restore", categoryId: 1 }),
    });
    assert.equal(fresh.status, 201);
    assert.ok((await fresh.json()).id > last, "a new pet never reuses a backed-up id");
  });

  it("restore refuses a directory in use by a running service (exit 1, one line naming it)", async () => {
    assert.ok(restored !== undefined, "the restore test ran first");
    const result = await runService(["restore", backupPath], { env: { DATA_DIR: sourceDir } });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      new RegExp(`^Cannot restore: data directory ${sourceDir} is in use[^\n]*\n$`),
    );
  });

  it("restore refuses a directory that holds pets (exit 1, one line naming it)", async () => {
    const full = join(dir.path, "full");
    mkdirSync(full);
    writeFileSync(join(full, "pets.jsonl"), backupLines[0]);
    const result = await runService(["restore", backupPath], { env: { DATA_DIR: full } });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      new RegExp(`^Cannot restore: data directory ${full} already holds pets[^\n]*\n$`),
    );
    assert.equal(readFileSync(join(full, "pets.jsonl"), "utf8"), backupLines[0]);
  });

  it("backup - writes the copy to stdout and the counts to stderr", () => {
    // Through a file, not runService's text: a pet name's 😀 may straddle two pipe chunks.
    const output = join(dir.path, "stdout.jsonl");
    const [command, args] = serviceCommand(runtime, ["backup", "-"]);
    const child = spawnSync("sh", ["-c", '"$0" "$@" > "$OUT"', command, ...args], {
      env: { ...process.env, DATA_DIR: sourceDir, OUT: output },
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(child.status, 0, child.stderr);
    // The clients have stopped: the copy is the whole file, under its check.
    const copied = readFileSync(output, "utf8");
    assert.equal(petLinesOf(copied).join(""), readFileSync(join(sourceDir, "pets.jsonl"), "utf8"));
    assert.match(child.stderr, new RegExp(`^stdout: ${created.length} pets \\(`));
  });

  it("backup - through gzip and back keeps its check: restore - takes it without a warning", () => {
    const [backup, backupArgs] = serviceCommand(runtime, ["backup", "-"]);
    const [restore, restoreArgs] = serviceCommand(runtime, ["restore", "-"]);
    const quoted = (words: string[]) => words.map((word) => `'${word}'`).join(" ");
    const gz = join(dir.path, "streamed.jsonl.gz");
    const target = join(dir.path, "from-gzip");
    const pipeline = spawnSync(
      "sh",
      [
        "-c",
        `set -e; ${quoted([backup, ...backupArgs])} | gzip > '${gz}'; ` +
        `gunzip < '${gz}' | DATA_DIR='${target}' ${quoted([restore, ...restoreArgs])}`,
      ],
      { env: { ...process.env, DATA_DIR: sourceDir }, encoding: "utf8", timeout: 60_000 },
    );
    assert.equal(pipeline.status, 0, pipeline.stderr);
    assert.doesNotMatch(pipeline.stderr, /warning/);
    assert.match(pipeline.stdout, new RegExp(`: ${created.length} pets `));
    assert.equal(
      readFileSync(join(target, "pets.jsonl"), "utf8"),
      readFileSync(join(sourceDir, "pets.jsonl"), "utf8"),
    );
  });

  // The command's side of a refusal (exit 1, the message, nothing installed) on this runtime; every
  // kind of damage is judged in process by test/tools/damage_judgement.test.ts.
  for (
    const [what, damage, message] of [
      [
        "cut inside a line",
        // Half the text, moved one byte on when half falls right after a newline (a cut at a line's
        // end is another message): the backup's bytes differ from run to run.
        (text: string) => {
          const half = Math.floor(text.length / 2);
          return text.slice(0, text[half - 1] === "\n" ? half + 1 : half);
        },
        /^Cannot restore: .* line 1 starts a backup whose check line is missing: the backup was cut short inside line \d+; nothing restored\n$/,
      ],
      [
        "with one byte altered",
        (text: string) => text.replace('"name":"Pet 1/', '"name":"Pet 2/'),
        /^Cannot restore: .* line \d+ is the check of the backup line 1 starts: the SHA-256 .* \(the backup was altered\); nothing restored\n$/,
      ],
    ] as const
  ) {
    it(`restore and verify PATH refuse a backup ${what}, saying so, and install nothing`, async () => {
      const damaged = join(dir.path, `damaged-${what.replaceAll(" ", "-")}.jsonl`);
      writeFileSync(damaged, damage(backupText));
      const target = join(dir.path, `target-${what.replaceAll(" ", "-")}`);
      const result = await runService(["restore", damaged], { env: { DATA_DIR: target } });
      assert.equal(result.code, 1, result.stdout);
      assert.match(result.stderr, message);
      assert.equal(existsSync(join(target, "pets.jsonl")), false);
      const verify = await runService(["verify", damaged], { env: {} });
      assert.equal(verify.code, 1, verify.stdout);
      assert.match(verify.stdout, /\nerror: line \d+ .*; restore refuses it\n$/);
    });
  }

  it("restore takes a backup without a check (an earlier version's) with a warning", async () => {
    const old = join(dir.path, "old.jsonl");
    writeFileSync(old, backupLines.join(""));
    const target = join(dir.path, "from-old");
    const result = await runService(["restore", old], { env: { DATA_DIR: target } });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /^warning: .*old\.jsonl has no check line \(a backup taken by an earlier version\?\)/,
    );
    assert.equal(readFileSync(join(target, "pets.jsonl"), "utf8"), backupLines.join(""));
  });
});

describe(`backup with DATABASE_URL on ${runtime}`, {
  timeout: 120_000,
  skip: skipWithoutPostgres,
}, () => {
  const dir = temporaryDirectory("animal-store-backup-pg-");
  const drops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const drop of drops) await drop();
    dir.remove();
  });

  it("backup exports the database as record lines in id order; restore and import take them", async () => {
    const database = await freshDatabase();
    drops.push(database.drop);
    const service = await startService({
      dataDir: join(dir.path, "unused"),
      env: { API_KEYS: KEY, DATABASE_URL: database.url },
    });
    const created: Created[] = [];
    try {
      const bodies = Array.from({ length: 40 }, (_, i) =>
        JSON.stringify({
          name: i === 0 ? 'Ünïcödé "quoted" 😀' : `Pet ${i}`,
          categoryId: i === 0 ? "9223372036854775807" : -i,
          ...(i % 4 === 0 ? {} : { status: ["available", "pending", "sold"][i % 3] }),
        }).replace('"9223372036854775807"', "9223372036854775807"));
      await Promise.all(bodies.map(async (body, i) => {
        const key = i % 2 === 0 ? `pg-create-${i}` : undefined;
        const response = await api(service, "/v1/pets", {
          method: "POST",
          body,
          headers: key === undefined ? {} : { "idempotency-key": key },
        });
        const text = await response.text();
        assert.equal(response.status, 201, text);
        created.push({ id: JSON.parse(text).id, text, body, key, at: performance.now() });
      }));
      const backupPath = join(dir.path, "database.jsonl");
      const result = await runService(["backup", backupPath], {
        env: { DATABASE_URL: database.url },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /: 40 pets \(available \d+, pending \d+, sold \d+, no status 10\)/,
      );

      const lines = petLinesOf(readFileSync(backupPath, "utf8")).map(splitLine);
      created.sort((a, b) => a.id - b.id);
      assert.deepEqual(lines.map((line) => line.pet), created.map((pet) => pet.text));
      lines.forEach((line, i) => {
        const key = created[i].key;
        assert.equal(line.claim.includes(JSON.stringify(key ?? "\0")), key !== undefined);
      });

      // The export is a data file: restore installs it, and import moves it to another database.
      const restoredDir = join(dir.path, "restored");
      const restore = await runService(["restore", backupPath], { env: { DATA_DIR: restoredDir } });
      assert.equal(restore.code, 0, restore.stderr);
      const target = await freshDatabase();
      drops.push(target.drop);
      const imported = await runService(["import"], {
        env: { DATA_DIR: restoredDir, DATABASE_URL: target.url },
      });
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /Imported 40 pets .* and 20 idempotency keys/);

      // import PATH proves the backup itself: a cut one is refused before the database is touched.
      const cut = join(dir.path, "cut.jsonl");
      writeFileSync(cut, readFileSync(backupPath, "utf8").split(/(?<=\n)/).slice(0, -1).join(""));
      const third = await freshDatabase();
      drops.push(third.drop);
      const refused = await runService(["import", cut], { env: { DATABASE_URL: third.url } });
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(
        refused.stderr,
        /^Cannot import: .*cut\.jsonl line 1 starts a backup whose check line is missing: the backup was cut short after line 41; nothing imported\n$/,
      );
      const direct = await runService(["import", backupPath], { env: { DATABASE_URL: third.url } });
      assert.equal(direct.code, 0, direct.stderr);
      assert.equal(direct.stderr, "", "a proven backup imports without a warning");
      assert.match(direct.stdout, /Imported 40 pets .* and 20 idempotency keys/);
    } finally {
      await service.stop();
    }
  });
});
