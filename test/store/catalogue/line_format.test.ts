import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { validateNewPet } from "../../../src/schemas/validate.ts";
import { INT64_MAX, INT64_MIN, type NewPet, PET_STATUSES } from "../../../src/schemas/pet.ts";
import {
  BACKUP_LINE,
  checkLine,
  encodePetRecords,
  maxRecordBytes,
  PET_RECORD_PREFIX,
  PetLine,
  petRecord,
  petRecordBytes,
} from "../../../src/store/catalogue/line_format.ts";
import { line } from "../helpers.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Parses `text` amid other bytes: its fields, or why it was refused. */
function parse(text: string) {
  const bytes = encoder.encode(`xx${text}yy`);
  const record = new PetLine();
  const reason = record.parse(bytes, 2, bytes.length - 2);
  if (reason !== undefined) return reason;
  const { id, status, claim } = record;
  const petText = decoder.decode(bytes.subarray(record.petStart, record.petEnd));
  return { id, status, claim, petText, pet: record.pet(bytes) };
}

/** The pet object's text in a line: after the prefix, before the claim or the closing brace. */
function petTextOf(text: string): string {
  const claim = text.lastIndexOf(',"idempotency":');
  return text.slice(PET_RECORD_PREFIX.length, claim < 0 ? -1 : claim);
}

const valid = [
  line(1).trimEnd(),
  line(7, { status: "pending", name: 'q"\\😀' }).trimEnd(),
  line(9007199254740991, { categoryId: -9223372036854775808n, status: "sold" }).trimEnd(),
  line(3, { categoryId: 9223372036854775807n }, { scope: "s", key: 'a"}b', digest: "d" }).trimEnd(),
];

const invalid = [
  "",
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\qb","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\u12g4","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\u12","categoryId":1}}',
  "{}",
  '{"type":"pet","v":2,"pet":{"id":1,"name":"a","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":0,"name":"a","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":01,"name":"a","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":9007199254740992,"name":"a","categoryId":1}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1.5}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1e3}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":-0}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":9223372036854775808}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1,"status":"gone"}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1}} ',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1},"idempotency":{"key":"k","scope":"s","digest":"d"}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a","categoryId":1},"idempotency":{"scope":"s","key":"k"}}',
  '{"type":"pet","v":1,"pet":{"id":1,"name":"a\\","categoryId":1}}',
];

describe("PetLine", () => {
  it("parse() accepts what the writer writes and finds id, status, pet text and claim", () => {
    for (const text of valid) {
      const parsed = parse(text);
      assert.ok(typeof parsed === "object", text);
      const expected = JSON.parse(text);
      assert.equal(parsed.id, expected.pet.id);
      assert.equal(parsed.status, expected.pet.status);
      assert.equal(parsed.petText, petTextOf(text));
      assert.deepEqual(parsed.claim, expected.idempotency);
    }
  });

  it("pet() gives the pet's fields with the categoryId's exact digits", () => {
    const parsed = parse(valid[2]);
    assert.deepEqual(typeof parsed === "object" && parsed.pet, {
      name: "Pet 9007199254740991",
      categoryId: -9223372036854775808n,
      status: "sold",
    });
  });

  it("parse() refuses every line of this set", () => {
    for (const text of invalid) assert.equal(typeof parse(text), "string", text);
  });

  it("parse() reads a backup's first line and its check line, and refuses variants", () => {
    const digest = "0123456789abcdef".repeat(4);
    const record = new PetLine();
    const read = (text: string) => {
      const bytes = encoder.encode(text);
      return record.parse(bytes, 0, bytes.length);
    };
    assert.equal(read(BACKUP_LINE.trimEnd()), undefined);
    assert.equal(record.type, "backup");
    assert.equal(read(checkLine(12, digest).trimEnd()), undefined);
    assert.deepEqual([record.type, record.checkPets, record.checkSha256], ["check", 12, digest]);
    assert.equal(read(line(3).trimEnd()), undefined);
    assert.equal(record.type, "pet", "a pet line after them is a pet again");
    for (
      const text of [
        '{"type":"backup","v":1,"x":1}',
        '{"type":"check","v":1,"pets":-1,"sha256":"' + digest + '"}',
        '{"type":"check","v":1,"pets":1,"sha256":"' + digest.toUpperCase() + '"}',
        '{"type":"check","v":1,"pets":1,"sha256":"' + digest.slice(1) + '"}',
        '{"type":"check","v":1,"sha256":"' + digest + '","pets":1}',
      ]
    ) {
      assert.match(
        read(text) ?? "",
        /^is a backup's (first|check) line, but not in the exact form/,
      );
    }
    assert.equal(
      read('{"type":"check","v":2,"pets":1}'),
      "has format version 2; this version reads only version 1",
    );
  });
});

describe("PetLine.parse() reasons", () => {
  const P = PET_RECORD_PREFIX;
  const cases: [string, string][] = [
    [`${P}{"id":0,"name":"a","categoryId":1}}`, "has a pet id that is not a positive safe integer"],
    [
      `${P}{"id":"1","name":"a","categoryId":1}}`,
      "has a pet id that is not a positive safe integer",
    ],
    [
      `${P}{"id":1.5,"name":"a","categoryId":1}}`,
      "has a pet id that is not a positive safe integer",
    ],
    [`${P}{"id":1,"name":5,"categoryId":1}}`, "has a pet name that is not a string"],
    [`${P}{"id":1,"name":"a\\qb","categoryId":1}}`, "is not valid JSON"],
    [`${P}{"id":1,"name":"   ","categoryId":1}}`, "has a pet name that is blank"],
    [`${P}{"id":1,"name":"a","categoryId":1.5}}`, "has a categoryId that is not an integer"],
    [`${P}{"id":1,"name":"a","categoryId":1e3}}`, "has a categoryId that is not an integer"],
    [`${P}{"id":1,"name":"a","categoryId":-0}}`, "has a categoryId that is not an integer"],
    [`${P}{"id":1,"name":"a","categoryId":"5"}}`, "has a categoryId that is not an integer"],
    [`${P}{"id":1,"name":"a","categoryId":9223372036854775808}}`, "has a categoryId outside int64"],
    [
      `${P}{"id":1,"name":"a","categoryId":-9223372036854775809}}`,
      "has a categoryId outside int64",
    ],
    [`${P}{"id":1,"name":"a"}}`, "has a categoryId that is not an integer"],
    [`${P}{"id":1,"name":"a","categoryId":1,"status":"gone"}}`, "has an unknown pet status"],
    [`${P}{"id":1,"name":"a","categoryId":1,"status":null}}`, "has an unknown pet status"],
    [
      `${P}{"id":1,"name":"a","categoryId":1},"idempotency":{"scope":"s","key":"k"}}`,
      'has an "idempotency" member that is not {scope, key, digest}',
    ],
    [
      `${P}{"id":1,"name":"a","categoryId":1},"idempotency":{"key":"k","scope":"s","digest":"d"}}`,
      "is not in the exact form this service writes",
    ],
    [`${P}{"id":1,"name":"a","categoryId":1},"extra":1}`, 'has an unknown field "extra"'],
    [
      `${P}{"id":1,"name":"a","categoryId":1,"colour":"red"}}`,
      'has a pet with an unknown field "colour"',
    ],
    [`${P}{"id":1, "name":"a","categoryId":1}}`, "is not in the exact form this service writes"],
    ['{"type":"pet","v":1}', 'has no "pet" object'],
    [
      '{"v":1,"type":"pet","pet":{"id":1,"name":"a","categoryId":1}}',
      "is not in the exact form this service writes",
    ],
    ['{"type":"pet","v":"1","pet":{}}', 'has an invalid format version "1"'],
    ["[1]", "is not a JSON object"],
    ["{oops", "is not valid JSON"],
    ['{"v":1}', 'has no record "type"'],
  ];
  it("parse() names the first rule a line breaks, as it reads the line", () => {
    for (const [text, reason] of cases) assert.equal(parse(text), reason, text);
  });
});

/** A pet line whose name is written as `nameJson` (a JSON string in any spelling). */
function lineWithName(nameJson: string): string {
  return `${PET_RECORD_PREFIX}{"id":1,"name":${nameJson},"categoryId":1}}`;
}

/** Every character escaped as \uXXXX, as `jq -a` writes non-ASCII text. */
function asciiEscaped(name: string): string {
  let json = '"';
  for (let i = 0; i < name.length; i++) {
    json += `\\u${name.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  return json + '"';
}

/** Why the line was refused, or undefined when it was accepted. */
function refusal(text: string): string | undefined {
  const parsed = parse(text);
  return typeof parsed === "string" ? parsed : undefined;
}

/** What the API answers for a name: accepted, or refused (400). */
function apiAccepts(name: string): boolean {
  return validateNewPet({ name, categoryId: 1n }).ok;
}

describe("PetLine names: the API's rules, in a file", () => {
  // Names the operator pass found served by the start but refused by verify.
  const cases: [string, string | undefined][] = [
    ["a\u0001b", "has a pet name that contains a control character"],
    ["\u007f", "has a pet name that contains a control character"],
    ["x\u0085", "has a pet name that contains a control character"],
    ["\ud800", "has a pet name that contains a lone surrogate"],
    ["   ", "has a pet name that is blank"],
    ["\u3000\u00a0\u2028\ufeff", "has a pet name that is blank"],
    ["", "has a pet name that is empty"],
    ["x".repeat(201), "has a pet name that is longer than 200 characters"],
    ["😀".repeat(201), "has a pet name that is longer than 200 characters"],
    ["😀".repeat(200), undefined],
    ["x".repeat(200), undefined],
    ["Café", undefined],
    ["\u3000猫\u3000", undefined],
    ["ねこ", undefined],
  ];
  for (const [name, expected] of cases) {
    it(`parse() judges the name ${JSON.stringify(name.slice(0, 20))} as the API does`, () => {
      assert.equal(apiAccepts(name), expected === undefined, "the API's verdict");
      assert.equal(
        refusal(lineWithName(JSON.stringify(name))),
        expected,
        "as the service writes it",
      );
      assert.equal(refusal(lineWithName(asciiEscaped(name))), expected, "every character escaped");
    });
  }

  it("parse() accepts a name the API accepts in any JSON spelling: Caf\\u00e9 is Café", () => {
    const parsed = parse(lineWithName('"Caf\\u00e9"'));
    assert.ok(typeof parsed === "object");
    assert.equal(parsed.pet.name, "Café");
  });

  it("parse() accepts exactly the names the API accepts (generated names, both spellings)", () => {
    const character = fc.oneof(
      fc.constantFrom(
        " ",
        "\u00a0",
        "\u1680",
        "\u2000",
        "\u200a",
        "\u200b",
        "\u2028",
        "\u202f",
        "\u205f",
        "\u3000",
        "\ufeff",
        "\u180e",
        "\u0085",
        "\u009f",
        "\u00a1",
        "\u007f",
        "\t",
        "\ud800",
        "\udfff",
        "😀",
        "é",
        "猫",
        "ね",
        "\\",
        '"',
        "/",
        "a",
      ),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    );
    const name = fc.oneof(
      fc.array(character, { maxLength: 12 }).map((parts) => parts.join("")),
      fc.tuple(fc.constantFrom("a", " ", "😀"), fc.integer({ min: 195, max: 205 }))
        .map(([unit, count]) => unit.repeat(count)),
    );
    fc.assert(
      fc.property(name, (name) => {
        const accepted = apiAccepts(name);
        for (const json of [JSON.stringify(name), asciiEscaped(name)]) {
          const reason = refusal(lineWithName(json));
          assert.equal(reason === undefined, accepted, `${json}: ${reason}`);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("encodePetRecords: a batch's lines in one buffer", () => {
  const status = fc.constantFrom(...PET_STATUSES, undefined);
  const pet: fc.Arbitrary<NewPet> = fc.record({
    name: fc.oneof(
      fc.string({ minLength: 1, maxLength: 8 }),
      fc.string({ unit: "binary", minLength: 1, maxLength: 8 }),
      fc.constantFrom("Rex", "Café", "猫", "😀", 'q"\\', "\u2028"),
    ),
    categoryId: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    status,
  }).map(({ status, ...pet }) => (status === undefined ? pet : { ...pet, status }));
  const claim = fc.option(
    fc.record({ scope: fc.string(), key: fc.string(), digest: fc.string() }),
    {
      nil: undefined,
    },
  );

  it("writes the lines one by one would write, and gives each pet's text (ASCII or not)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(pet, claim), { minLength: 1, maxLength: 6 }), (batch) => {
        const records = batch.map(([pet, claim], i) => petRecord(i + 1, pet, claim));
        const at = 3; // not at the buffer's start, as in the store's arena
        const target = new Uint8Array(at + records.reduce((n, r) => n + maxRecordBytes(r), 0));
        const { spans, end } = encodePetRecords(records, target, at);
        const oneByOne = batch.map(([pet, claim], i) => petRecordBytes(i + 1, pet, claim));
        assert.equal(
          decoder.decode(target.subarray(at, end)),
          oneByOne.map((bytes) => decoder.decode(bytes)).join(""),
        );
        records.forEach((record, i) => {
          const text = decoder.decode(target.subarray(spans[2 * i], spans[2 * i + 1]));
          assert.equal(text, record.petJson);
        });
      }),
      { numRuns: 1000 },
    );
  });
});
