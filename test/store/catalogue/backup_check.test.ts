/**
 * A backup proves itself: what `CheckedBackup` writes, `readRecords` (and so restore, verify PATH
 * and import) takes whole, and refuses cut at any point or with any byte altered, saying what is
 * wrong.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CheckedBackup } from "../../../src/store/catalogue/line_format.ts";
import { readRecords } from "../../../src/store/catalogue/read_records.ts";
import { formatReport, verifySource } from "../../../src/tools/report.ts";
import { backupOf, byteSource, line } from "../helpers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes read in pieces of at most 1 MiB, as the backup and restore copies read a file. */
const sourceOf = (bytes: Uint8Array, piece = 1 << 20) => byteSource(bytes, piece);

/** Writes a backup of these pet lines through CheckedBackup, in pieces as a copy hands them out. */
async function written(pieces: string[], pets: number): Promise<string> {
  let out = "";
  const backup = new CheckedBackup((bytes) => {
    out += decoder.decode(bytes);
    return Promise.resolve();
  });
  await backup.begin();
  for (const piece of pieces) await backup.write(encoder.encode(piece));
  await backup.end(pets);
  return out;
}

const claim = { scope: "k1", key: "retry-7", digest: "d".repeat(64) };
const pets = line(1, { status: "sold" }) + line(2, { name: "Café" }, claim) + line(3);

describe("CheckedBackup and readRecords", () => {
  it("a backup opens with its first line and closes with the count and SHA-256 of its pet lines", async () => {
    const text = await written([
      line(1, { status: "sold" }),
      line(2, { name: "Café" }, claim) + line(3),
    ], 3);
    assert.equal(text, backupOf(pets));
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(lines[0], { type: "backup", v: 1 });
    assert.deepEqual(Object.keys(lines.at(-1)), ["type", "v", "pets", "sha256"]);
    assert.equal(lines.at(-1).pets, 3);
  });

  it("readRecords() proves a whole backup: checked, its pets counted, the copy without framing", async () => {
    for (const piece of [5, 1 << 20]) {
      let copy = "";
      const read = await readRecords(sourceOf(encoder.encode(backupOf(pets)), piece), {
        onCopy: (bytes) => {
          copy += decoder.decode(bytes, { stream: true });
          return Promise.resolve();
        },
      });
      assert.equal(read.damage, undefined);
      assert.equal(read.checked, true);
      assert.equal(read.pets, 3);
      assert.equal(copy, pets, "restore installs the pet lines alone");
    }
  });

  it("readRecords() refuses a backup cut at every line boundary and inside every line", async () => {
    const whole = encoder.encode(backupOf(pets));
    for (let length = 1; length < whole.length; length++) {
      const read = await readRecords(sourceOf(whole.subarray(0, length)), { all: true });
      assert.ok(read.damage !== undefined, `cut to ${length} bytes`);
      assert.match(
        `line ${read.damage.line} ${read.damage.reason}`,
        /^line 1 (starts a backup whose check line is missing: the backup was cut short (after|inside) line \d+|starts a backup whose check line, line \d+, lacks its newline: the backup was cut short by its last byte|is the start of a backup's first line: the backup was cut short inside it)$/,
        `cut to ${length} bytes`,
      );
    }
  });

  it("readRecords() refuses a backup with any one byte altered", async () => {
    const whole = encoder.encode(backupOf(pets));
    for (let at = 0; at < whole.length; at++) {
      for (const flip of [0x01, 0x20]) {
        const altered = whole.slice();
        altered[at] ^= flip;
        const read = await readRecords(sourceOf(altered), { all: true });
        assert.ok(read.damage !== undefined, `byte ${at} ^ ${flip}`);
      }
    }
  });

  it("readRecords() names what is wrong with an altered backup", async () => {
    const reasons = async (text: string) => {
      const { damage } = await readRecords(sourceOf(encoder.encode(text)), {});
      return damage && `line ${damage.line} ${damage.reason}`;
    };
    assert.equal(
      await reasons(backupOf(pets).replace("Pet 3", "Pet 4")),
      "line 5 is the check of the backup line 1 starts: the SHA-256 of the 3 pet lines between them is not the one it holds (the backup was altered)",
    );
    assert.equal(
      await reasons(backupOf(pets).replace(line(3), "")),
      "line 4 is the check of the backup line 1 starts: it counts 3 pets, but 2 pet lines lie between them (lines were removed or added)",
    );
    assert.equal(
      await reasons(backupOf(pets).replace(line(3), "")),
      "line 4 is the check of the backup line 1 starts: it counts 3 pets, but 2 pet lines lie between them (lines were removed or added)",
    );
    assert.equal(
      await reasons(backupOf(pets).replace("Pet 3", "Pet\u00003")),
      "line 4 is not valid JSON",
    );
    assert.equal(
      await reasons(backupOf(line(1)) + backupOf(line(2))),
      undefined,
      "two whole backups one after the other are two proven runs",
    );
    assert.equal(
      await reasons(
        backupOf(line(1)).split("\n").slice(0, -2).join("\n") + "\n" + backupOf(line(2)),
      ),
      "line 3 starts a backup inside the one line 1 starts, which has no check line: that backup was cut short",
    );
  });

  it("readRecords() as a backup refuses a pet line added at any line boundary, saying where", async () => {
    const lines = backupOf(pets).split(/(?<=\n)/);
    for (let at = 0; at <= lines.length; at++) {
      const added = [...lines.slice(0, at), line(9), ...lines.slice(at)].join("");
      const asBackup = await readRecords(sourceOf(encoder.encode(added)), { kind: "backup" });
      assert.ok(asBackup.damage !== undefined, `a pet line added at line ${at + 1}`);
      assert.equal(asBackup.checked, false);
      if (at === 0 || at === lines.length) {
        assert.equal(asBackup.damage.line, at + 1);
        assert.match(asBackup.damage.reason, /^is outside the backup's checked lines: /);
      }
    }
  });

  it("readRecords() of a data file keeps pets outside a backup's checked lines, but does not call them checked", async () => {
    for (
      const text of [
        backupOf(line(1) + line(2)) + line(3),
        line(1) + backupOf(line(2) + line(3)),
        backupOf(line(1) + line(2)) + line(3).slice(0, -1),
      ]
    ) {
      const read = await readRecords(sourceOf(encoder.encode(text)), { kind: "data file" });
      assert.equal(read.damage, undefined, text);
      assert.equal(read.pets, 3, text);
      assert.equal(read.checked, false, text);
    }
  });

  it("readRecords() takes a backup without a check (an earlier version's) as unproven, not damaged", async () => {
    const read = await readRecords(sourceOf(encoder.encode(pets)), { kind: "backup" });
    assert.equal(read.damage, undefined);
    assert.equal(read.checked, false);
    assert.equal(read.pets, 3);
  });

  it("verify PATH reports a proven backup, warns for one without a check, and refuses a cut one", async () => {
    const report = async (text: string) =>
      formatReport(
        await verifySource(sourceOf(encoder.encode(text)), { name: "b.jsonl", kind: "backup" }),
      );
    assert.deepEqual(await report(backupOf(pets)), [
      "b.jsonl: 3 pets (available 0, pending 0, sold 1, no status 2)",
      "ok: the backup is whole: its check line matches every pet line",
    ]);
    assert.deepEqual((await report(pets)).slice(1), [
      "warning: b.jsonl has no check line (a backup taken by an earlier version?): every line was judged, but a backup cut short at a line boundary cannot be told from a whole one",
      "ok: the backup is sound",
    ]);
    assert.deepEqual((await report(line(1) + backupOf(line(2)))).slice(1), [
      "error: line 1 is outside the backup's checked lines: it comes before the backup's first line, line 2 (lines were added to the backup); restore refuses it",
    ]);
    assert.deepEqual((await report(backupOf(line(1)) + line(2))).slice(1), [
      "error: line 4 is outside the backup's checked lines: it follows the check line 3 (lines were added to the backup); restore refuses it",
    ]);
    assert.deepEqual(
      (await report(backupOf(pets).split("\n").slice(0, -2).join("\n") + "\n")).slice(1),
      [
        "error: line 1 starts a backup whose check line is missing: the backup was cut short after line 4; restore refuses it",
      ],
    );
  });
});
