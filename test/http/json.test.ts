import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseJsonText } from "../../src/http/json.ts";

function parsed(text: string) {
  const result = parseJsonText(text);
  assert.ok(result.ok, `${text}: ${!result.ok && result.reason}`);
  return result.value;
}

describe("parseJsonText()", () => {
  it("turns plain integer literals into exact bigints", () => {
    assert.equal(parsed("9007199254740993"), 9007199254740993n);
    assert.equal(parsed("-9223372036854775808"), -9223372036854775808n);
    assert.equal(parsed("0"), 0n);
  });

  it("keeps other number forms as numbers, so an integer schema refuses them", () => {
    for (
      const [text, value] of [["1.0", 1], ["1e3", 1000], ["-0", -0], ["1.5", 1.5], [
        "2E-1",
        0.2,
      ]] as const
    ) {
      assert.equal(typeof parsed(text), "number", text);
      assert.equal(parsed(text), value);
    }
  });

  it("parses objects, arrays, strings and escapes like JSON.parse", () => {
    const text =
      '{"a":[true,false,null,"x\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"],"b":{}, "c" : [ ] }';
    const value = parsed(text) as Record<string, unknown>;
    assert.deepEqual({ ...value, b: { ...(value.b as object) } }, JSON.parse(text));
  });

  it("creates objects without a prototype, so __proto__ is an ordinary key", () => {
    const value = parsed('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), null);
    assert.ok(Object.hasOwn(value, "__proto__"));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("refuses what is not JSON, with a reason and position", () => {
    for (
      const text of [
        "",
        "{",
        "[1,]",
        '{"a":1,}',
        "01",
        "+1",
        ".5",
        "1.",
        "NaN",
        "'a'",
        '"\u0001"',
        '"\\x"',
        '"\\u12"',
        "{a:1}",
        "[1] 2",
        '{"a":1,"a":2}',
        "tru",
      ]
    ) {
      const result = parseJsonText(text);
      assert.equal(result.ok, false, text);
      if (!result.ok) assert.match(result.reason, /at position \d+$/);
    }
  });

  it("refuses nesting deeper than 64 levels instead of overflowing the stack", () => {
    assert.equal(parseJsonText("[".repeat(100_000) + "]".repeat(100_000)).ok, false);
    assert.equal(parseJsonText("[".repeat(60) + "]".repeat(60)).ok, true);
  });
});
