/**
 * The body parser (`json.ts`, from the bytes) against the text reader the service used before
 * (test/support/json_text_reference.ts: a fatal UTF-8 decode, then a parser over the text): for
 * every body, the parser accepts exactly the bodies the reference accepts, with the same value,
 * and the body reader the route calls (`parseJsonBody`) gives the same value or the same error
 * (status, code, message, position).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parseJsonBody } from "../../src/http/body.ts";
import { HttpError } from "../../src/http/errors.ts";
import { parseJson } from "../../src/http/json.ts";
import { referenceBodyReader } from "../support/json_text_reference.ts";
import type { JsonValue } from "../../src/schemas/json_value.ts";

/** The properties are cheap (a body each): more runs than the request fuzzing by default. */
const RUNS = Number(process.env.FC_RUNS ?? 3000);
const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text);

/** A value written so that two values print alike only if they are the same, key order included. */
function shape(value: JsonValue): string {
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value === "string") return JSON.stringify(value); // lone surrogates as \udxxx
  if (value === null || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(shape).join(",")}]`;
  const proto = Object.getPrototypeOf(value) === null ? "" : "proto:";
  return `{${proto}${Object.keys(value).map((k) => `${JSON.stringify(k)}:${shape(value[k])}`)}}`;
}

type Outcome = { value: string } | { error: string };

function outcome(read: (bytes: Uint8Array) => JsonValue, bytes: Uint8Array): Outcome {
  try {
    return { value: shape(read(bytes)) };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { error: `${error.status} ${error.code} ${error.message}` };
  }
}

/** The property every test below checks, for one body. */
function agrees(bytes: Uint8Array): void {
  const text = outcome(referenceBodyReader, bytes);
  const parsed = parseJson(bytes);
  if ("value" in text) {
    assert.ok(parsed.ok, `the parser refused a valid body: ${text.value}`);
    assert.equal(shape(parsed.value), text.value);
  } else {
    assert.ok(!parsed.ok, `the parser accepted what the reference refuses`);
  }
  assert.deepEqual(outcome(parseJsonBody, bytes), text);
}

function concat(...parts: (Uint8Array | string)[]): Uint8Array {
  const arrays = parts.map((part) => typeof part === "string" ? bytesOf(part) : part);
  const bytes = new Uint8Array(arrays.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of arrays) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}

const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);

/** Byte sequences a UTF-8 decoder must refuse, and valid ones at the edges of its ranges. */
const UTF8_EDGES: readonly number[][] = [
  [0x80], // a continuation byte alone
  [0xbf],
  [0xc0, 0x80], // overlong NUL
  [0xc1, 0xbf], // overlong
  [0xc2], // truncated
  [0xc2, 0x80], // U+0080
  [0xdf, 0xbf], // U+07FF
  [0xe0, 0x80, 0x80], // overlong
  [0xe0, 0x9f, 0xbf], // overlong
  [0xe0, 0xa0, 0x80], // U+0800
  [0xe2, 0x82], // truncated €
  [0xe2, 0x82, 0xac], // €
  [0xed, 0x9f, 0xbf], // U+D7FF
  [0xed, 0xa0, 0x80], // U+D800 encoded: refused
  [0xed, 0xbf, 0xbf], // U+DFFF encoded: refused
  [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80], // a surrogate pair encoded (CESU-8): refused
  [0xee, 0x80, 0x80], // U+E000
  [0xef, 0xbb, 0xbf], // U+FEFF
  [0xef, 0xbf, 0xbe], // U+FFFE
  [0xef, 0xbf, 0xbf], // U+FFFF
  [0xf0, 0x80, 0x80, 0x80], // overlong
  [0xf0, 0x8f, 0xbf, 0xbf], // overlong
  [0xf0, 0x90, 0x80, 0x80], // U+10000
  [0xf0, 0x9f, 0x98, 0x80], // 😀
  [0xf0, 0x9f, 0x98], // truncated
  [0xf4, 0x8f, 0xbf, 0xbf], // U+10FFFF
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0xf5, 0x80, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80], // 5-byte form
  [0xfe],
  [0xff],
];
const utf8Edge = fc.constantFrom(...UTF8_EDGES).map((sequence) => Uint8Array.from(sequence));

const digits = fc.stringMatching(/^[0-9]{1,45}$/);
const numberText = fc.oneof(
  fc.bigInt({ min: -(2n ** 130n), max: 2n ** 130n }).map(String),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
  fc.integer({ min: -99999, max: 99999 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String), // 1e+21, -0 (as "0"), …
  fc.tuple(fc.constantFrom("", "-"), digits, fc.constantFrom("", ".", ".5", ".0", "."), digits)
    .map(([sign, whole, dot, fraction]) => `${sign}${whole}${dot}${fraction}`),
  fc.tuple(
    digits,
    fc.constantFrom("e", "E", "e+", "E-", "e-", "e+-"),
    fc.stringMatching(/^[0-9]{0,4}$/),
  )
    .map(([whole, mark, power]) => `${whole}${mark}${power}`),
  fc.constantFrom("-0", "0", "-", "01", "-01", "00", "1.", ".5", "+1", "1e", "1E+", "0x10", "-0.0"),
);

/** One piece of a string's content, as JSON text: valid and invalid escapes, raw characters. */
const stringPiece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 6 }).map((s) => s.replace(/["\\]/g, "")) },
  fc.constantFrom('\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"),
  fc.integer({ min: 0, max: 0xffff }).map((unit) => `\\u${unit.toString(16).padStart(4, "0")}`),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => `\\u${unit.toString(16).toUpperCase()}`),
  fc.constantFrom("\\ud83d\\ude00", "\\uD83D", "\\uDE00\\uD83D", "\\u12", "\\u12g4", "\\x41"),
  fc.constantFrom("\\", "\\'", "\\U0041", "\u0000", "\u001f", "\t", "\n", "\u007f"),
  fc.string({ unit: "binary", maxLength: 3 }).map((s) => s.replace(/["\\]/g, "")),
);
const stringText = fc.array(stringPiece, { maxLength: 5 }).map((pieces) => `"${pieces.join("")}"`);

/** White space: mostly JSON's, sometimes a kind a text reader's `trim` would drop. */
const space = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("", "", " ", "\n", "\t\r\n ") },
  fc.constantFrom("\u00a0", "\u2028", "\ufeff", "\v"),
);

/** Now and then a value from `arbitrary`, mostly null. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, arbitrary);

/** JSON-ish text: mostly JSON, with the mistakes a client (or an attacker) makes. */
const jsonish: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    numberText,
    stringText,
    fc.constantFrom("true", "false", "null", "true", "false", "null", "tru", "True", "NaN"),
    fc.tuple(space, fc.array(fc.tuple(tie("value"), space), { maxLength: 4 }), space, fc.boolean())
      .map(([before, items, after, trailing]) =>
        `[${before}${items.map(([item, s]) => `${item}${s}`).join(",")}${
          trailing && items.length > 0 ? "," : ""
        }${after}]`
      ),
    fc.tuple(
      fc.array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom('"a"', '"b"', '"name"', '"__proto__"', '"a\\u0062"'),
            stringText,
          ),
          space,
          tie("value"),
        ),
        { maxLength: 4 },
      ),
      space,
      fc.constantFrom(":", ":", ":", ":", ":", "=", ""),
    ).map(([members, s, colon]) =>
      `{${s}${members.map(([key, sp, value]) => `${key}${sp}${colon}${sp}${value}`).join(",")}}`
    ),
  ),
})).value;

/** A JSON-ish body as bytes: leading and trailing space, maybe a BOM, maybe a broken byte. */
const jsonishBody = fc.tuple(
  space,
  jsonish,
  space,
  fc.constantFrom("none", "none", "none", "bom", "two boms"),
  sometimes(fc.tuple(utf8Edge, fc.nat())),
  sometimes(fc.nat()),
).map(([before, text, after, bom, insert, cut]) => {
  let body = concat(before, text, after);
  if (insert !== null) {
    const [edge, at] = insert;
    const split = at % (body.length + 1);
    body = concat(body.subarray(0, split), edge, body.subarray(split));
  }
  if (cut !== null) body = body.subarray(0, cut % (body.length + 1));
  if (bom === "bom") body = concat(BOM, body);
  if (bom === "two boms") body = concat(BOM, BOM, body);
  return body;
});

/** Valid JSON values, written with the escapes, spaces and number forms a client may choose. */
const validJson: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
    fc.string({ unit: "binary", maxLength: 8 }).map((s) => JSON.stringify(s)),
    fc.string({ unit: "binary", maxLength: 8 }).map((s) =>
      `"${[...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"`
    ),
    fc.constantFrom("true", "false", "null", '"Rex"', '"sold"', "9007199254740993", "-0", "1e400"),
    fc.array(tie("value"), { maxLength: 4 }).map((items) => `[ ${items.join(" , ")} ]`),
    fc.uniqueArray(fc.tuple(fc.string({ maxLength: 6 }), tie("value")), {
      maxLength: 4,
      selector: ([key]) => key,
    }).map((members) =>
      `{\n${members.map(([key, value]) => `${JSON.stringify(key)}:\t${value}`).join(",\r\n")}}`
    ),
  ),
})).value;

describe("parseJson() against the text reader it replaced", () => {
  it("agrees on arbitrary bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 48 }), agrees), { numRuns: RUNS });
  });

  it("agrees on arbitrary bytes inside a JSON string and object", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (inside) => {
        agrees(concat('{"name":"', inside, '","categoryId":1}'));
        agrees(concat('{"', inside, '":1}'));
      }),
      { numRuns: RUNS },
    );
  });

  it("agrees on JSON-ish text: numbers, escapes, duplicate keys, white space, broken UTF-8", () => {
    fc.assert(fc.property(jsonishBody, agrees), { numRuns: RUNS });
  });

  it("accepts every valid body, with the text reader's value", () => {
    fc.assert(
      fc.property(
        validJson,
        fc.constantFrom("", " ", "\r\n", "\t "),
        fc.boolean(),
        (text, after, bom) => {
          const body = concat(bom ? BOM : "", text, after);
          assert.ok(parseJson(body).ok, text);
          agrees(body);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("agrees at the edges: BOM, empty bodies, nesting depth, -0, exact and long integers", () => {
    const nested = (depth: number, inner: string) => "[".repeat(depth) + inner + "]".repeat(depth);
    const texts = [
      "",
      " ",
      "\u00a0",
      "\ufeff",
      "{}",
      "[]",
      '""',
      "-0",
      "0",
      "-0.0",
      "01",
      "[1,]",
      "{,}",
      '{"a":1,"a":2}',
      '{"a":1,"\\u0061":2}',
      '{"__proto__":1}',
      '"\\ud800"',
      '"\\udc00\\ud800"',
      "9223372036854775808",
      "-9223372036854775809",
      "1".repeat(40),
      "1".repeat(41),
      "-" + "9".repeat(39),
      "-" + "9".repeat(40),
      "123456789012345",
      "-12345678901234",
      "1234567890123456",
      "1e400",
      "-1e-400",
      "4.9e-324",
      '{"name":"Rex","categoryId":9007199254740993}',
      nested(64, "1"),
      nested(65, "1"),
      nested(65, ""),
      nested(66, ""),
      '{"a":' + nested(64, "") + "}",
    ];
    for (const text of texts) {
      agrees(bytesOf(text));
      agrees(concat(BOM, text));
      agrees(concat(BOM, BOM, text));
    }
    for (const edge of UTF8_EDGES) {
      const sequence = Uint8Array.from(edge);
      agrees(concat('"', sequence, '"'));
      agrees(concat('{"a":"', sequence, '"}'));
      agrees(concat("[1,]", sequence)); // a syntax error before broken UTF-8: the UTF-8 error wins
      agrees(sequence);
    }
  });

  it("answers the route's common body from the bytes, integers exact", () => {
    const body = bytesOf('{"name":"Rex","categoryId":9007199254740993,"status":"sold"}');
    for (let i = 0; i < 3; i++) { // the second and third from the recent strings
      const parsed = parseJson(body);
      assert.ok(parsed.ok);
      const value = parsed.value as Record<string, JsonValue>;
      assert.equal(Object.getPrototypeOf(value), null);
      assert.deepEqual(Object.keys(value), ["name", "categoryId", "status"]);
      assert.equal(value.categoryId, 9007199254740993n);
      assert.equal(value.name, "Rex");
    }
  });
});
