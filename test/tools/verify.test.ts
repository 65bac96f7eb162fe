import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatReport, verifyDataFile } from "../../src/tools/report.ts";
import { bytesOf, line, removeTempDirs, tempDir } from "../store/helpers.ts";

after(removeTempDirs);

describe("verifyDataFile", () => {
  it("counts pets per status in a sound file", async () => {
    const content = line(1, { status: "sold" }) + line(2) + line(3, { status: "available" }) +
      line(4, { status: "sold" });
    const dataDir = join(tempDir({ "data/pets.jsonl": content }), "data");
    const report = await verifyDataFile(dataDir);
    assert.equal(report.pets, 4);
    assert.deepEqual(report.byStatus, { available: 1, pending: 0, sold: 2, none: 1 });
    assert.equal(report.damage, undefined);
    assert.equal(report.tornTail, undefined);
    assert.match(
      formatReport(report).join("\n"),
      /4 pets \(available 1, pending 0, sold 2, no status 1\)\nok: the file is sound/,
    );
  });

  it("reports a torn last line without cutting it", async () => {
    const content = line(1) + line(2).slice(0, 10);
    const dataDir = join(tempDir({ "data/pets.jsonl": content }), "data");
    const report = await verifyDataFile(dataDir);
    assert.deepEqual(report.tornTail, { offset: line(1).length, length: 10 });
    assert.equal(report.damage, undefined);
    assert.deepEqual(bytesOf(join(dataDir, "pets.jsonl")), new TextEncoder().encode(content));
    assert.match(formatReport(report)[1], /^warning: torn last line at byte offset \d+/);
  });

  it("reports the first damaged line and the number of damaged lines, changing nothing", async () => {
    const content = line(1) + "{oops\n" + line(3) + line(2) + line(4);
    const dataDir = join(tempDir({ "data/pets.jsonl": content }), "data");
    const before = bytesOf(join(dataDir, "pets.jsonl"));
    const report = await verifyDataFile(dataDir);
    assert.deepEqual(report.damage, { line: 2, reason: "is not valid JSON" });
    assert.equal(report.damagedLines, 2, "the id 2 after 3 is damage too");
    assert.equal(report.pets, 3);
    assert.deepEqual(bytesOf(join(dataDir, "pets.jsonl")), before);
    assert.match(
      formatReport(report).at(-1)!,
      /^error: line 2 is not valid JSON \(2 damaged lines in all\)/,
    );
  });

  it("names the rule a pet's name breaks, and a line that is not UTF-8", async () => {
    const cases: [string | Uint8Array, string][] = [
      [
        '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\u0001","categoryId":1}}\n',
        "has a pet name that contains a control character",
      ],
      [
        '{"type":"pet","v":1,"pet":{"id":1,"name":"   ","categoryId":1}}\n',
        "has a pet name that is blank",
      ],
      [
        `{"type":"pet","v":1,"pet":{"id":1,"name":"${"x".repeat(201)}","categoryId":1}}\n`,
        "has a pet name that is longer than 200 characters",
      ],
      [
        new Uint8Array([
          ...new TextEncoder().encode('{"type":"pet","v":1,"pet":{"id":1,"name":"'),
          0xff,
          ...new TextEncoder().encode('","categoryId":1}}\n'),
        ]),
        "is not valid UTF-8",
      ],
    ];
    for (const [content, reason] of cases) {
      const report = await verifyDataFile(join(tempDir({ "data/pets.jsonl": content }), "data"));
      assert.equal(report.damage?.reason, reason);
    }
  });

  it("reports a whole last record that lacks its newline; the next start adds it", async () => {
    const content = line(1) + line(2).slice(0, -1);
    const dataDir = join(tempDir({ "data/pets.jsonl": content }), "data");
    const report = await verifyDataFile(dataDir);
    assert.equal(report.pets, 2);
    assert.deepEqual(report.missingNewline, { offset: content.length, line: 2 });
    assert.equal(
      readFileSync(join(dataDir, "pets.jsonl"), "utf8"),
      content,
      "verify changes nothing",
    );
    assert.deepEqual(formatReport(report).slice(1), [
      "warning: the last record (line 2) is whole but lacks its newline; the next start adds it",
      "ok: the file is sound",
    ]);
  });

  it("warns when the highest id comes within 1,000 ids of 2^53 - 1", async () => {
    const report = async (lastId: number) =>
      formatReport(
        await verifyDataFile(join(tempDir({ "data/pets.jsonl": line(1) + line(lastId) }), "data")),
      );
    assert.deepEqual((await report(9007199254739990)).slice(1), ["ok: the file is sound"]);
    assert.deepEqual((await report(9007199254739991)).slice(1), [
      "warning: the highest id is 9007199254739991; 1000 ids are left before ids stop at 9007199254740991, and then every create is refused (503 unavailable)",
      "ok: the file is sound",
    ]);
    assert.match((await report(9007199254740991))[1], /^warning: .*; 0 ids are left/);
  });

  it("reports a missing file as empty", async () => {
    const report = await verifyDataFile(join(tempDir(), "absent"));
    assert.equal(report.pets, 0);
  });
});
