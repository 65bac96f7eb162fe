/**
 * One judgement of a damaged or torn data file everywhere: the same files are fed to the store's
 * start, `verify`, `backup` and `restore`, and all four must agree on what is damage (and which
 * line, and why), what is a torn last line (and how long), and how many pets the rest holds.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { backupDataFile } from "../../src/store/jsonl/backup.ts";
import { MAX_LINE_BYTES } from "../../src/store/jsonl/format.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { restoreDataFile } from "../../src/store/jsonl/restore.ts";
import { verifyDataFile } from "../../src/store/jsonl/verify.ts";
import { line, removeTempDirs, tempDir } from "./helpers.ts";

after(removeTempDirs);

const encoder = new TextEncoder();

/** What a tool made of a file: the damage it named, the torn tail it left out, the pets. */
interface Judgement {
  damage?: string;
  tornTail?: number;
  pets?: number;
}

/** "line N reason" out of a message that names a file and a line. */
function damageIn(message: string): string {
  const found = /line \d+ .*?(?=; nothing restored$|$)/.exec(message)?.[0];
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
    const torn = /\((\d+) bytes without a newline\)/.exec(warnings.join("\n"))?.[1];
    return { tornTail: torn === undefined ? undefined : Number(torn), pets: store.size };
  } catch (error) {
    return { damage: damageIn((error as Error).message) };
  }
}

async function verifyJudges(content: Uint8Array): Promise<Judgement> {
  const report = await verifyDataFile(dataDirWith(content));
  if (report.damage !== undefined) {
    return { damage: `line ${report.damage.line} ${report.damage.reason}` };
  }
  return { tornTail: report.tornTail?.length, pets: report.pets };
}

async function backupJudges(content: Uint8Array): Promise<Judgement> {
  let copied = 0;
  const result = await backupDataFile({
    dataDir: dataDirWith(content),
    settleMs: 0,
    sink: (bytes) => {
      copied += bytes.length;
      return Promise.resolve();
    },
  });
  if (!result.ok) return { damage: damageIn(result.reason) };
  // What the copy left out after its last complete line.
  const left = content.length - copied;
  return { tornTail: left === 0 ? undefined : left, pets: result.pets };
}

async function restoreJudges(content: Uint8Array): Promise<Judgement> {
  let at = 0;
  const source = {
    read(into: Uint8Array, offset: number, length: number) {
      const count = Math.min(length, content.length - at);
      into.set(content.subarray(at, at + count), offset);
      at += count;
      return Promise.resolve(count);
    },
  };
  const dataDir = join(tempDir(), "restored");
  const result = await restoreDataFile({ dataDir, source, name: "backup.jsonl" });
  if (!result.ok) return { damage: damageIn(result.reason) };
  assert.equal(
    readFileSync(join(dataDir, "pets.jsonl")).length,
    content.length - (result.tornTail?.length ?? 0),
    "restore installs exactly the complete lines",
  );
  return { tornTail: result.tornTail?.length, pets: result.pets };
}

const long = "x".repeat(MAX_LINE_BYTES + 10);
const cases: { name: string; content: string | Uint8Array; expected: Judgement }[] = [
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
];

describe("one judgement of a damaged or torn data file", () => {
  for (const { name, content, expected } of cases) {
    it(`the start, verify, backup and restore agree on ${name}`, async () => {
      const bytes = typeof content === "string" ? encoder.encode(content) : content;
      const judgements = {
        start: await startJudges(bytes),
        verify: await verifyJudges(bytes),
        backup: await backupJudges(bytes),
        restore: await restoreJudges(bytes),
      };
      for (const [tool, judgement] of Object.entries(judgements)) {
        // Through JSON: a field a tool leaves undefined is a field it does not report.
        assert.deepEqual(JSON.parse(JSON.stringify(judgement)), expected, tool);
      }
    });
  }
});
