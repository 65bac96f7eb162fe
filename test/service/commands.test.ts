/**
 * The operator's commands (`--help`, `verify`, `healthcheck`, `openapi`, unknown ones), run as a
 * process on the runtime under test (TARGET_RUNTIME): the same suite runs on Deno, Bun, the Node
 * build and the single executable, so the commands behave identically on each.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  freePort,
  runService,
  targetRuntime,
  temporaryDirectory,
} from "../support/server_process.ts";
import { useService } from "../support/service_fixture.ts";
import { SETTINGS } from "../../src/config/settings.ts";
import { backupOf } from "../store/helpers.ts";

const runtime = targetRuntime();
const TIMEOUT = { timeout: 60_000 };
/** The version a release sets in package.json, which the service must print. */
const PACKAGE_VERSION: string = JSON.parse(readFileSync("package.json", "utf8")).version;

/** A record line of the data file, as the store writes it. */
function record(id: number, status?: string): string {
  const pet = { id, name: `Pet ${id}`, categoryId: id, ...(status && { status }) };
  return `${JSON.stringify({ type: "pet", v: 1, pet })}\n`;
}

describe(`operator commands on ${runtime}`, TIMEOUT, () => {
  const dir = temporaryDirectory();
  after(() => dir.remove());

  /** Writes `content` as a data directory's pets.jsonl; returns the directory. */
  function dataDir(name: string, content: string): string {
    const path = join(dir.path, name);
    mkdirSync(path);
    writeFileSync(join(path, "pets.jsonl"), content);
    return path;
  }

  /** `--help`, run once for the three tests that read it. */
  let helpRun: ReturnType<typeof runService> | undefined;
  const help = () => (helpRun ??= runService(["--help"]));

  it("--help exits 0 and lists every command", async () => {
    const result = await help();
    assert.equal(result.code, 0, result.stderr);
    const commands = ["serve", "openapi", "healthcheck", "verify", "import", "backup", "restore"];
    for (const command of [...commands, "--help"]) {
      assert.match(result.stdout, new RegExp(`^\\s+${command}\\s`, "m"), command);
    }
  });

  it("--help names package.json's version on its first line", async () => {
    const result = await help();
    assert.equal(result.stdout.split("\n")[0].split(" ")[1], PACKAGE_VERSION, result.stdout);
  });

  it("--help lists every setting, with its default", async () => {
    const lines = (await help()).stdout.split("\n");
    for (const [name, setting] of Object.entries(SETTINGS)) {
      const line = lines.find((line) => line.startsWith(`  ${name}  `));
      assert.ok(line !== undefined, name);
      if (setting.default !== undefined) {
        assert.ok(line.endsWith(` (default ${setting.default})`), line);
      }
    }
  });

  it("a command given more arguments than it takes exits 2 and prints the usage", async () => {
    for (const args of [["verify", "a.jsonl", "extra"], ["backup", "a.jsonl", "b.jsonl"]]) {
      const result = await runService(args);
      assert.equal(result.code, 2, args.join(" "));
      assert.match(result.stderr, new RegExp(`^Unknown command: ${args.join(" ")}\n`));
    }
  });

  it("an unknown command exits 2 and prints the usage on stderr", async () => {
    const result = await runService(["frobnicate"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^Unknown command: frobnicate\n/);
    assert.match(result.stderr, /Usage: animal-store/);
    assert.equal(result.stdout, "");
  });

  it("verify exits 0 for a sound file and prints the counts per status", async () => {
    const content = record(1, "sold") + record(2) + record(3, "available") + record(4, "sold");
    const path = dataDir("sound", content);
    const result = await runService(["verify"], { env: { DATA_DIR: path } });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /4 pets \(available 1, pending 0, sold 2, no status 1\)/);
    assert.match(result.stdout, /ok: the file is sound/);
    assert.equal(readFileSync(join(path, "pets.jsonl"), "utf8"), content);
  });

  it("verify exits 1 for a damaged file, naming the line, and changes nothing", async () => {
    const content = record(1) + "{oops\n" + record(3);
    const path = dataDir("damaged", content);
    const result = await runService(["verify"], { env: { DATA_DIR: path } });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /error: line 2 is not valid JSON/);
    assert.equal(readFileSync(join(path, "pets.jsonl"), "utf8"), content);
    assert.equal(existsSync(join(path, "animal-store.lock")), false, "verify takes no lock");
  });

  it("verify exits 0 with a warning for a torn last line, and does not cut it", async () => {
    const content = record(1, "pending") + record(2).slice(0, 12);
    const path = dataDir("torn", content);
    const result = await runService(["verify"], { env: { DATA_DIR: path } });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /1 pets \(available 0, pending 1/);
    assert.match(result.stdout, /warning: torn last line at byte offset \d+ \(12 bytes/);
    assert.equal(readFileSync(join(path, "pets.jsonl"), "utf8"), content);
  });

  it("backup PATH copies the complete records and restore PATH installs them in an empty DATA_DIR", async () => {
    const content = record(1, "sold") + record(2) + record(7, "pending");
    const source = dataDir("backup-source", content + record(8).slice(0, 15));
    const copy = join(dir.path, "backup.jsonl");
    const backup = await runService(["backup", copy], { env: { DATA_DIR: source } });
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /3 pets \(available 0, pending 1, sold 1, no status 1\)/);
    assert.equal(readFileSync(copy, "utf8"), backupOf(content), "the records under a check");

    const target = join(dir.path, "restore-target", "data");
    const restore = await runService(["restore", copy], { env: { DATA_DIR: target } });
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /3 pets \(available 0, pending 1, sold 1, no status 1\)/);
    assert.equal(readFileSync(join(target, "pets.jsonl"), "utf8"), content);

    const again = await runService(["restore", copy], { env: { DATA_DIR: target } });
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      new RegExp(`^Cannot restore: data directory ${target} already holds pets`),
    );
  });

  it("verify PATH and restore PATH exit 1 for a file they cannot open, naming it and the error code", async () => {
    const missing = join(dir.path, "no-such-backup.jsonl");
    const verify = await runService(["verify", missing], { env: {} });
    assert.equal(verify.code, 1, verify.stdout);
    assert.equal(verify.stderr, `Cannot verify: cannot read ${missing}: ENOENT\n`);
    const target = join(dir.path, "never-restored-missing");
    const restore = await runService(["restore", missing], { env: { DATA_DIR: target } });
    assert.equal(restore.code, 1, restore.stdout);
    assert.equal(restore.stderr, `Cannot restore: cannot read ${missing}: ENOENT\n`);
    assert.equal(existsSync(target), false, "nothing is created for a backup never read");
  });

  it("restore exits 1 for a damaged backup, naming the line", async () => {
    const damaged = join(dir.path, "damaged-backup.jsonl");
    writeFileSync(damaged, record(1) + "{oops\n");
    const result = await runService(["restore", damaged], {
      env: { DATA_DIR: join(dir.path, "never-restored") },
    });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^Cannot restore: .*damaged-backup\.jsonl line 2 is not valid JSON/,
    );
    assert.equal(existsSync(join(dir.path, "never-restored", "pets.jsonl")), false);
  });

  it("backup exits 1 naming DATA_DIR when it holds no data file, and writes nothing", async () => {
    const wrong = join(dir.path, "not-a-data-dir");
    mkdirSync(wrong);
    const copy = join(dir.path, "from-wrong-dir.jsonl");
    const result = await runService(["backup", copy], { env: { DATA_DIR: wrong } });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      new RegExp(`^Cannot backup: data directory ${wrong} holds no pets\\.jsonl`),
    );
    assert.equal(existsSync(copy), false);
  });

  it("backup and restore without a PATH exit 2", async () => {
    for (const command of ["backup", "restore"]) {
      const result = await runService([command]);
      assert.equal(result.code, 2, command);
      assert.match(result.stderr, new RegExp(`^Cannot ${command}: `));
    }
  });

  it("healthcheck exits 1 when nothing listens on PORT, naming the address it called", async () => {
    const port = await freePort();
    const result = await runService(["healthcheck"], {
      env: { PORT: String(port), HOST: "127.0.0.1" },
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`^Unhealthy: .*127\\.0\\.0\\.1:${port}`));
  });

  it("healthcheck exits 2 for a bad PORT", async () => {
    const result = await runService(["healthcheck"], { env: { PORT: "eighty" } });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /PORT/);
  });

  describe("against a running service", () => {
    const service = useService({ key: "commands-suite-key" });

    it("the start line names package.json's version", () => {
      const start = service.stdout().split("\n").find((line) => line.includes("listening on"));
      assert.ok(start !== undefined, service.stdout());
      const { msg, version } = JSON.parse(start);
      assert.equal(version, PACKAGE_VERSION);
      assert.ok(msg.startsWith(`animal-store ${PACKAGE_VERSION} listening on `), msg);
    });

    it("healthcheck exits 0 against the service on its PORT, with HOST its address or a wildcard", async () => {
      for (const host of ["127.0.0.1", "0.0.0.0", "::"]) {
        const result = await runService(["healthcheck"], {
          env: { PORT: String(service.port), HOST: host },
        });
        assert.equal(result.code, 0, `${host}: ${result.stderr}`);
      }
    });
  });

  it("openapi prints the OpenAPI document and exits, without touching DATA_DIR", async () => {
    const untouched = join(dir.path, "never-created");
    const result = await runService(["openapi"], { env: { DATA_DIR: untouched } });
    assert.equal(result.code, 0, result.stderr);
    const document = JSON.parse(result.stdout);
    assert.match(document.openapi, /^3\./);
    assert.ok(document.paths["/pets"] ?? document.paths["/v1/pets"], "documents /pets");
    assert.equal(existsSync(untouched), false);
  });
});
