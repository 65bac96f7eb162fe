/**
 * The text reader the service used before it had one byte parser (`src/http/json.ts`): a fatal
 * UTF-8 decode, then a strict JSON parser over the text that keeps integers exact. Kept here as
 * the reference the property tests (test/http/json_reference.test.ts) hold the byte parser to:
 * the same value, or the same 400 and message, for every body.
 */
import { HttpError } from "../../src/http/errors.ts";
import type { JsonValue } from "../../src/schemas/json_value.ts";

/** Outcome of parsing: the value, or the reason the text is not JSON. */
type ParseResult = { ok: true; value: JsonValue } | { ok: false; reason: string };

const MAX_EXACT_DIGITS = 40;
const MAX_DEPTH = 64;

class SyntaxFailure {
  constructor(readonly reason: string) {}
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The body's value, or the 400 `invalid_body` the service answered for it. */
export function referenceBodyReader(bytes: Uint8Array): JsonValue {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new HttpError(400, "invalid_body", "Cannot parse body: it is not valid UTF-8");
  }
  if (text.trim() === "") {
    throw new HttpError(400, "invalid_body", "Cannot parse body: it is empty");
  }
  const parsed = parseJsonExact(text);
  if (!parsed.ok) {
    throw new HttpError(400, "invalid_body", `Cannot parse body as JSON: ${parsed.reason}`);
  }
  return parsed.value;
}

/** Parses `text` as one JSON value (RFC 8259), integers exact. Never throws. */
function parseJsonExact(text: string): ParseResult {
  const parser = new Parser(text);
  try {
    parser.skipWhitespace();
    const value = parser.value(0);
    parser.skipWhitespace();
    if (parser.position !== text.length) parser.fail("unexpected text after the JSON value");
    return { ok: true, value };
  } catch (error) {
    if (error instanceof SyntaxFailure) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** The single-character escapes (RFC 8259 §7), and at the same index what each stands for. */
const ESCAPE_NAMES = '"\\/bfnrt';
const ESCAPE_VALUES = '"\\/\b\f\n\r\t';

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
// deno-lint-ignore no-control-regex -- JSON forbids raw control characters in strings
const PLAIN_STRING_RUN = /[^"\\\u0000-\u001F]*/y;

class Parser {
  position = 0;
  constructor(private readonly text: string) {}

  fail(reason: string): never {
    throw new SyntaxFailure(`${reason} at position ${this.position}`);
  }

  skipWhitespace(): void {
    const text = this.text;
    let at = this.position;
    while (at < text.length) {
      const c = text.charCodeAt(at);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      at++;
    }
    this.position = at;
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    const c = this.text[this.position];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    if (c === "t") return this.literal("true", true);
    if (c === "f") return this.literal("false", false);
    if (c === "n") return this.literal("null", null);
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    return this.fail(c === undefined ? "unexpected end of input" : "unexpected character");
  }

  private literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.position)) this.fail("unexpected character");
    this.position += word.length;
    return value;
  }

  private number(): number | bigint {
    NUMBER.lastIndex = this.position;
    const match = NUMBER.exec(this.text);
    if (match === null) return this.fail("invalid number");
    this.position += match[0].length;
    const literal = match[0];
    const isPlainInteger = match[1] === undefined && match[2] === undefined && literal !== "-0";
    if (isPlainInteger && literal.length <= MAX_EXACT_DIGITS) return BigInt(literal);
    return Number(literal);
  }

  private string(): string {
    const text = this.text;
    this.position++; // opening quote
    let result = "";
    for (;;) {
      PLAIN_STRING_RUN.lastIndex = this.position;
      const run = PLAIN_STRING_RUN.exec(text)![0];
      result += run;
      this.position += run.length;
      const c = text[this.position];
      if (c === '"') {
        this.position++;
        return result;
      }
      if (c === undefined) this.fail("unterminated string");
      if (c !== "\\") this.fail("control character in string");
      result += this.escape();
    }
  }

  private escape(): string {
    const c = this.text[this.position + 1];
    this.position += 2;
    if (c === "u") {
      const hex = this.text.slice(this.position, this.position + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("invalid unicode escape");
      this.position += 4;
      return String.fromCharCode(parseInt(hex, 16));
    }
    const at = c === undefined ? -1 : ESCAPE_NAMES.indexOf(c);
    if (at !== -1) return ESCAPE_VALUES[at];
    this.position -= 2;
    return this.fail("invalid escape");
  }

  /** Past the opening bracket and any white space: true (and past it) when `close` follows. */
  private isEmpty(close: "]" | "}"): boolean {
    this.position++;
    this.skipWhitespace();
    if (this.text[this.position] !== close) return false;
    this.position++;
    return true;
  }

  /** After a member: true past `close`, false past a comma, else a syntax error. */
  private isClosed(close: "]" | "}"): boolean {
    this.skipWhitespace();
    const c = this.text[this.position];
    if (c !== close && c !== ",") this.fail(`expected ',' or '${close}'`);
    this.position++;
    return c === close;
  }

  private array(depth: number): JsonValue[] {
    const items: JsonValue[] = [];
    if (this.isEmpty("]")) return items;
    do {
      this.skipWhitespace();
      items.push(this.value(depth + 1));
    } while (!this.isClosed("]"));
    return items;
  }

  private object(depth: number): { [key: string]: JsonValue } {
    const object: { [key: string]: JsonValue } = Object.create(null);
    if (this.isEmpty("}")) return object;
    do {
      this.skipWhitespace();
      if (this.text[this.position] !== '"') this.fail("expected a string key");
      const key = this.string();
      if (Object.hasOwn(object, key)) this.fail(`duplicate key "${key.slice(0, 50)}"`);
      this.skipWhitespace();
      if (this.text[this.position] !== ":") this.fail("expected ':'");
      this.position++;
      this.skipWhitespace();
      object[key] = this.value(depth + 1);
    } while (!this.isClosed("}"));
    return object;
  }
}
