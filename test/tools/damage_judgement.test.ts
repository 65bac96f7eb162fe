/**
 * One judgement of a data file everywhere: the same files are fed to the store's start, `verify`,
 * `backup`, `restore` and the PostgreSQL `import`, and all five must agree on what is damage (and
 * which line, and why), what is a torn last line (and how long), which last record only lacks its
 * newline, and how many pets the rest holds. A backup that `backup` reports sound must restore.
 *
 * The same bytes are read in two ways: as a data file (the start, `verify`, `backup` and `import`
 * of DATA_DIR), and as a backup (`verify PATH`, `restore`, `import PATH`), where a pet line outside
 * the backup's checked lines is damage and the judges also say whether the check proved every pet.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import { backupDataFile } from "../../src/tools/backup.ts";
import {
  BACKUP_LINE,
  MAX_LINE_BYTES,
  PET_RECORD_PREFIX,
} from "../../src/store/catalogue/line_format.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { restoreDataFile } from "../../src/tools/restore.ts";
import { verifyDataFile, verifySource } from "../../src/tools/report.ts";
import { importJsonlFile } from "../../src/tools/postgres_copy.ts";
import { adminQuery, freshDatabase, skipWithoutPostgres } from "../support/postgres.ts";
import { backupOf, byteSource, line, removeTempDirs, tempDir } from "../store/helpers.ts";

after(removeTempDirs);

const encoder = new TextEncoder();

/** What a tool made of a file: the damage it named, what it left out or repaired, the pets. */
interface Judgement {
  damage?: string;
  tornTail?: number;
  /** The line of a last record kept without its newline. */
  missingNewline?: number;
  pets?: number;
  /** Read as a backup: every pet line is proven by a check line (false: an earlier version's). */
  checked?: boolean;
}

/** "line N reason" out of a message that names a file and a line. */
function damageIn(message: string): string {
  const found = /line \d+ .*?(?=; nothing (restored|imported)$|$)/.exec(message)?.[0];
  assert.ok(found, `no line named in: ${message}`);
  return found;
}

function dataDirWith(content: Uint8Array): string {
  return join(tempDir({ "data/pets.jsonl": content }), "data");
}

async function startJudges(content: Uint8Array): Promise<Judgement> {
  const warnings: string[] = [];
  try {
    const store = await openJsonlStore({
      dataDir: dataDirWith(content),
      onWarning: (message) => warnings.push(message),
    });
    await store.close();
    const text = warnings.join("\n");
    const torn = /\((\d+) bytes without a newline\)/.exec(text)?.[1];
    const newline = /missing newline after the last record .*\(line (\d+),/.exec(text)?.[1];
    return {
      tornTail: torn === undefined ? undefined : Number(torn),
      missingNewline: newline === undefined ? undefined : Number(newline),
      pets: store.size,
    };
  } catch (error) {
    return { damage: damageIn((error as Error).message) };
  }
}

async function verifyJudges(content: Uint8Array): Promise<Judgement> {
  const report = await verifyDataFile(dataDirWith(content));
  if (report.damage !== undefined) {
    return { damage: `line ${report.damage.line} ${report.damage.reason}` };
  }
  const { tornTail, missingNewline, pets } = report;
  return { tornTail: tornTail?.length, missingNewline: missingNewline?.line, pets };
}

async function backupJudges(content: Uint8Array): Promise<Judgement> {
  const copied: Uint8Array[] = [];
  const result = await backupDataFile({
    dataDir: dataDirWith(content),
    settleMs: 0,
    sink: (bytes) => {
      copied.push(bytes.slice());
      return Promise.resolve();
    },
  });
  if (!result.ok) return { damage: damageIn(result.reason) };
  // What backup calls sound, restore takes, whole and proven by its check line.
  const restored = await restoreFrom(new Uint8Array(Buffer.concat(copied)));
  assert.ok(restored.ok, `restore refused a backup that backup reported sound: ${restored}`);
  assert.equal(restored.pets, result.pets, "the backup restores with every pet");
  assert.equal(restored.checked, true, "the backup carries a check that matches");
  const { tornTail, missingNewline, pets } = result;
  return { tornTail: tornTail?.length, missingNewline: missingNewline?.line, pets };
}

/** `verify PATH`: the file read as a backup. */
async function verifyPathJudges(content: Uint8Array): Promise<Judgement> {
  const report = await verifySource(byteSource(content), { name: "backup.jsonl", kind: "backup" });
  if (report.damage !== undefined) {
    return { damage: `line ${report.damage.line} ${report.damage.reason}` };
  }
  const { tornTail, missingNewline, pets, checked } = report;
  return { tornTail: tornTail?.length, missingNewline: missingNewline?.line, pets, checked };
}

/** Restores `content` into a new directory; the result and the installed file. */
async function restoreFrom(content: Uint8Array) {
  const dataDir = join(tempDir(), "restored");
  const result = await restoreDataFile({
    dataDir,
    source: byteSource(content),
    name: "backup.jsonl",
  });
  return { ...result, file: join(dataDir, "pets.jsonl") };
}

async function restoreJudges(content: Uint8Array): Promise<Judgement> {
  const result = await restoreFrom(content);
  if (!result.ok) return { damage: damageIn(result.reason) };
  const installed = readFileSync(result.file);
  const { tornTail, missingNewline, pets, checked } = result;
  assert.equal(
    installed.length,
    content.length - (tornTail?.length ?? 0) + (missingNewline === undefined ? 0 : 1) -
      framingBytes(content),
    "restore installs exactly the pet lines, each with its newline",
  );
  return { tornTail: tornTail?.length, missingNewline: missingNewline?.line, pets, checked };
}

/** Bytes of a backup's first and check lines in `content`. */
function framingBytes(content: Uint8Array): number {
  return new TextDecoder().decode(content).split(/(?<=\n)/)
    .filter((line) => line.startsWith('{"type":"backup"') || line.startsWith('{"type":"check"'))
    .reduce((sum, line) => sum + encoder.encode(line).length, 0);
}

/** The import into PostgreSQL, on one database emptied after each import. */
let database: { url: string; drop: () => Promise<void> } | undefined;

/** `import` of DATA_DIR's file, or (`asBackup`) `import PATH` of the same bytes as a backup. */
async function importJudges(content: Uint8Array, asBackup = false): Promise<Judgement> {
  const warnings: string[] = [];
  const config = loadConfig({ API_KEYS: "k", DATABASE_URL: database!.url }).database!;
  const result = await importJsonlFile({
    dataDir: dataDirWith(asBackup ? new Uint8Array() : content),
    backup: asBackup ? join(tempDir({ "backup.jsonl": content }), "backup.jsonl") : undefined,
    database: config,
    onWarning: (message) => warnings.push(message),
  });
  if (!result.ok) return { damage: damageIn(result.reason) };
  const [{ count }] = await adminQuery<{ count: string }>(
    database!.url,
    "SELECT count(*) AS count FROM pets",
  );
  assert.equal(Number(count), result.pets, "the pets are in the database");
  await adminQuery(database!.url, "TRUNCATE pets", "UPDATE pet_id_counter SET last_id = 0");
  const text = warnings.join("\n");
  const tornAt = /torn last line of .* \(byte offset (\d+)\)/.exec(text)?.[1];
  const newline = /last record of .* \(line (\d+)\) lacks its newline/.exec(text)?.[1];
  return {
    tornTail: tornAt === undefined ? undefined : content.length - Number(tornAt),
    missingNewline: newline === undefined ? undefined : Number(newline),
    pets: result.pets,
    checked: asBackup ? !text.includes("has no check line") : undefined,
  };
}

/** A pet line whose name is the JSON text `nameJson`, as an operator might write it. */
function lineWithName(id: number, nameJson: string): string {
  return `${PET_RECORD_PREFIX}{"id":${id},"name":${nameJson},"categoryId":1}}\n`;
}

const claim = { scope: "k1", key: "retry-7", digest: "d".repeat(64) };
const long = "x".repeat(MAX_LINE_BYTES + 10);
const pets = line(1) + line(2, { status: "sold" }) + line(3, {}, claim);
/**
 * `expected`: the judgement of the bytes as a data file. `asBackup`: as a backup, when it differs
 * from that judgement beyond `checked: false` (a file without a check line, an earlier version's).
 */
const cases: {
  name: string;
  content: string | Uint8Array;
  expected: Judgement;
  asBackup?: Judgement;
}[] = [
  {
    name: "a sound file",
    content: line(1) + line(2, { status: "sold" }),
    expected: { pets: 2 },
  },
  {
    name: "a middle line that is not JSON",
    content: line(1) + "{oops\n" + line(3),
    expected: { damage: "line 2 is not valid JSON" },
  },
  {
    name: "ids that do not increase",
    content: line(2) + line(2),
    expected: { damage: "line 2 has id 2, not above the id 2 before it" },
  },
  {
    name: "a line that is not UTF-8",
    content: new Uint8Array([...encoder.encode(line(1)), 0xff, 0x0a, ...encoder.encode(line(3))]),
    expected: { damage: "line 2 is not valid UTF-8" },
  },
  {
    name: "an unknown record type",
    content: line(1) + '{"type":"update","v":1}\n',
    expected: {
      damage:
        'line 2 has record type "update", which this version does not know (written by a newer version?)',
    },
  },
  {
    name: "a newer format version",
    content: line(1) + '{"type":"pet","v":2,"pet":{"id":2,"name":"a","categoryId":1}}\n',
    expected: { damage: "line 2 has format version 2; this version reads only version 1" },
  },
  {
    name: "a complete line longer than the limit",
    content: line(1) + long + "\n" + line(3),
    expected: { damage: `line 2 is longer than ${MAX_LINE_BYTES} bytes` },
  },
  {
    name: "a final complete line that is damaged",
    content: line(1) + line(2).slice(0, 30) + "\n",
    expected: { damage: "line 2 is not valid JSON" },
  },
  {
    name: "a short torn last line",
    content: line(1) + line(2).slice(0, 20),
    expected: { tornTail: 20, pets: 1 },
  },
  {
    name: "an unterminated final fragment longer than the line limit",
    content: line(1) + long,
    expected: { tornTail: long.length, pets: 1 },
  },
  {
    name: "an unterminated final fragment longer than a whole read",
    content: line(1) + "x".repeat(5 * 1024 * 1024),
    expected: { tornTail: 5 * 1024 * 1024, pets: 1 },
  },
  // The API's name rules, in a file (each name written with JSON escapes, as jq -a writes them).
  {
    name: 'a name with a control character ("a\\u0001b")',
    content: line(1) + lineWithName(2, '"a\\u0001b"'),
    expected: { damage: "line 2 has a pet name that contains a control character" },
  },
  {
    name: 'a name that is a lone surrogate ("\\ud800")',
    content: line(1) + lineWithName(2, '"\\ud800"'),
    expected: { damage: "line 2 has a pet name that contains a lone surrogate" },
  },
  {
    name: 'a blank name ("   ")',
    content: line(1) + lineWithName(2, '"   "'),
    expected: { damage: "line 2 has a pet name that is blank" },
  },
  {
    name: "a name of 300 characters",
    content: line(1) + lineWithName(2, JSON.stringify("x".repeat(300))),
    expected: { damage: "line 2 has a pet name that is longer than 200 characters" },
  },
  {
    name: 'a name the API accepts, spelt with an escape ("Caf\\u00e9")',
    content: line(1) + lineWithName(2, '"Caf\\u00e9"'),
    expected: { pets: 2 },
  },
  // Idempotency keys: one pet per key.
  {
    name: "two records with the same idempotency key",
    content: line(1, {}, claim) + line(2) + line(3, {}, claim),
    expected: { damage: 'line 3 repeats the idempotency key "retry-7" of line 1' },
  },
  {
    name: "the same key under two API keys (scopes)",
    content: line(1, {}, claim) + line(2, {}, { ...claim, scope: "k2" }),
    expected: { pets: 2 },
  },
  // Nothing acknowledged is cut.
  {
    name: "a whole last record that lacks only its newline (truncate -s -1)",
    content: line(1) + line(2, {}, claim).slice(0, -1),
    expected: { missingNewline: 2, pets: 2 },
  },
  {
    name: "a last record cut one byte before its newline",
    content: line(1) + line(2).slice(0, -2),
    expected: { tornTail: line(2).length - 2, pets: 1 },
  },
  {
    name: "a whole last record without its newline that repeats a key",
    content: line(1, {}, claim) + line(2, {}, claim).slice(0, -1),
    expected: { tornTail: line(2, {}, claim).length - 1, pets: 1 },
  },
  // The id ceiling: the highest id the format reads is a sound line.
  {
    name: "a pet with the highest id, 2^53 - 1",
    content: line(9007199254740990) + line(9007199254740991),
    expected: { pets: 2 },
  },
  // A backup copied into place by hand: its check proves it, or refuses it. Read as a data file,
  // pets outside its checked lines are the service's own (appended since); read as a backup, they
  // were added to it.
  {
    name: "a whole backup",
    content: backupOf(pets),
    expected: { pets: 3 },
    asBackup: { pets: 3, checked: true },
  },
  {
    name: "two whole backups one after the other",
    content: backupOf(line(1)) + backupOf(line(2)),
    expected: { pets: 2 },
    asBackup: { pets: 2, checked: true },
  },
  {
    name: "a backup followed by pets a service appended",
    content: backupOf(pets) + line(4) + line(5),
    expected: { pets: 5 },
    asBackup: {
      damage:
        "line 6 is outside the backup's checked lines: it follows the check line 5 (lines were added to the backup)",
    },
  },
  {
    name: "a backup followed by a torn line",
    content: backupOf(pets) + line(4).slice(0, 20),
    expected: { tornTail: 20, pets: 3 },
    asBackup: {
      damage:
        "line 6 is outside the backup's checked lines: it follows the check line 5 (lines were added to the backup)",
    },
  },
  {
    name: "a backup followed by a whole record that lacks only its newline",
    content: backupOf(pets) + line(4).slice(0, -1),
    expected: { missingNewline: 6, pets: 4 },
    asBackup: {
      damage:
        "line 6 is outside the backup's checked lines: it follows the check line 5 (lines were added to the backup)",
    },
  },
  {
    name: "pets before a backup's first line",
    content: line(1) + line(2) + backupOf(line(3) + line(4)),
    expected: { pets: 4 },
    asBackup: {
      damage:
        "line 1 is outside the backup's checked lines: it comes before the backup's first line, line 3 (lines were added to the backup)",
    },
  },
  {
    name: "a pet between two whole backups",
    content: backupOf(line(1)) + line(2) + backupOf(line(3)),
    expected: { pets: 3 },
    asBackup: {
      damage:
        "line 4 is outside the backup's checked lines: it follows the check line 3 (lines were added to the backup)",
    },
  },
  {
    name: "a backup cut at a line boundary",
    content: BACKUP_LINE + line(1) + line(2, { status: "sold" }),
    expected: {
      damage:
        "line 1 starts a backup whose check line is missing: the backup was cut short after line 3",
    },
  },
  {
    name: "a backup cut inside a line",
    content: backupOf(pets).slice(0, BACKUP_LINE.length + line(1).length + 9),
    expected: {
      damage:
        "line 1 starts a backup whose check line is missing: the backup was cut short inside line 3",
    },
  },
  {
    name: "a backup cut inside its check line",
    content: backupOf(pets).slice(0, -10),
    expected: {
      damage:
        "line 1 starts a backup whose check line is missing: the backup was cut short inside line 5",
    },
  },
  {
    name: "a backup whose check line lacks only its newline",
    content: backupOf(pets).slice(0, -1),
    expected: {
      damage:
        "line 1 starts a backup whose check line, line 5, lacks its newline: the backup was cut short by its last byte",
    },
  },
  {
    name: "a backup with one byte of a name altered",
    content: backupOf(pets).replace("Pet 2", "Pet 7"),
    expected: {
      damage:
        "line 5 is the check of the backup line 1 starts: the SHA-256 of the 3 pet lines between them is not the one it holds (the backup was altered)",
    },
  },
  {
    name: "a backup with a pet line removed",
    content: backupOf(pets).replace(line(2, { status: "sold" }), ""),
    expected: {
      damage:
        "line 4 is the check of the backup line 1 starts: it counts 3 pets, but 2 pet lines lie between them (lines were removed or added)",
    },
  },
  {
    name: "a check line with no backup line before it",
    content: backupOf(pets).slice(BACKUP_LINE.length),
    expected: { damage: "line 4 is a backup's check line with no backup line before it" },
  },
];

describe("one judgement of a data file", () => {
  before(async () => {
    if (!skipWithoutPostgres) database = await freshDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  for (const { name, content, expected, asBackup } of cases) {
    it(`the start, verify, backup, restore and import agree on ${name}`, async () => {
      const bytes = typeof content === "string" ? encoder.encode(content) : content;
      const asDataFile: Record<string, Judgement> = {
        start: await startJudges(bytes),
        verify: await verifyJudges(bytes),
        backup: await backupJudges(bytes),
      };
      if (database !== undefined) asDataFile.import = await importJudges(bytes);
      const read = (judgement: Judgement) => JSON.parse(JSON.stringify(judgement));
      for (const [tool, judgement] of Object.entries(asDataFile)) {
        // Through JSON: a field a tool leaves undefined is a field it does not report.
        assert.deepEqual(read(judgement), expected, `${tool}, reading a data file`);
      }
      const asBackupFile: Record<string, Judgement> = {
        "verify PATH": await verifyPathJudges(bytes),
        restore: await restoreJudges(bytes),
      };
      if (database !== undefined) asBackupFile["import PATH"] = await importJudges(bytes, true);
      const expectedAsBackup = asBackup ??
        (expected.damage === undefined ? { ...expected, checked: false } : expected);
      for (const [tool, judgement] of Object.entries(asBackupFile)) {
        assert.deepEqual(read(judgement), expectedAsBackup, `${tool}, reading a backup`);
      }
    });
  }

  it("import is one of the judges (PostgreSQL is there)", { skip: skipWithoutPostgres }, () => {
    assert.ok(database !== undefined);
  });
});
