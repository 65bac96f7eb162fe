import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { formatReport, verifyDataFile } from "../../src/store/jsonl/verify.ts";
import { bytesOf, line, removeTempDirs, tempDir } from "./helpers.ts";

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

  it("checks what the fast replay path does not: names and UTF-8", async () => {
    const cases: [string | Uint8Array, RegExp][] = [
      [
        '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\u0001","categoryId":1}}\n',
        /name that is not acceptable/,
      ],
      [
        '{"type":"pet","v":1,"pet":{"id":1,"name":"   ","categoryId":1}}\n',
        /name that is not acceptable/,
      ],
      [
        `{"type":"pet","v":1,"pet":{"id":1,"name":"${"x".repeat(201)}","categoryId":1}}\n`,
        /name that is not acceptable/,
      ],
      [
        '{"type":"pet","v":1,"pet":{"id":1,"name":"\\u0041","categoryId":1}}\n',
        /not in the exact form/,
      ],
      [
        new Uint8Array([
          ...new TextEncoder().encode('{"type":"pet","v":1,"pet":{"id":1,"name":"'),
          0xff,
          ...new TextEncoder().encode('","categoryId":1}}\n'),
        ]),
        /not valid UTF-8/,
      ],
    ];
    for (const [content, reason] of cases) {
      const report = await verifyDataFile(join(tempDir({ "data/pets.jsonl": content }), "data"));
      assert.match(report.damage?.reason ?? "", reason);
    }
  });

  it("reports a missing file as empty", async () => {
    const report = await verifyDataFile(join(tempDir(), "absent"));
    assert.equal(report.pets, 0);
  });
});
