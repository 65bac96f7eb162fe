/**
 * The one JSON parser of request bodies, from the bytes, because `JSON.parse` rounds
 * `9007199254740993`: a plain integer literal becomes a `bigint`, any other number form (`1.5`,
 * `1e3`, `-0`) a `number` the int64 schema refuses. Objects have no prototype; a duplicated key is
 * an error; UTF-8 is held to a fatal `TextDecoder`'s rules. A failure gives the reason and its
 * position in UTF-16 units of the decoded text.
 */
import type { JsonValue } from "../schemas/json_value.ts";

export type ParseResult = { ok: true; value: JsonValue } | { ok: false; reason: string };

/** Integer literals longer than this are far outside int64: kept as a number, not a bigint. */
const MAX_EXACT_DIGITS = 40;
/** Nesting beyond this is refused rather than risking the call stack. */
const MAX_DEPTH = 64;

/** The single-character escapes (RFC 8259 §7), and at the same index what each stands for. */
const ESCAPE_NAMES = '"\\/bfnrt';
const ESCAPE_VALUES = '"\\/\b\f\n\r\t';

/** At most this many characters (sign included) stay below 2^53: summed exactly as a number. */
const SAFE_DIGITS = 15;

const POWERS_OF_TEN = Array.from({ length: SAFE_DIGITS + 1 }, (_, n) => 10n ** BigInt(n));

const NOT_UTF8 = "invalid UTF-8";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** Thrown, never escaping this module, with why the bytes are not JSON. */
class SyntaxFailure {
  constructor(readonly reason: string) {}
}

/** Parses `bytes` as one JSON value, integers exact. Never throws. */
export function parseJson(bytes: Uint8Array): ParseResult {
  // A fatal TextDecoder drops one leading byte order mark: so does this parser.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const parser = new ByteParser(bytes, bom ? 3 : 0);
  try {
    parser.skipWhitespace();
    const value = parser.value(0);
    parser.skipWhitespace();
    if (parser.position !== bytes.length) parser.fail("unexpected text after the JSON value");
    return { ok: true, value };
  } catch (error) {
    if (error instanceof SyntaxFailure) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** `parseJson` for JSON held as a string. */
export function parseJsonText(text: string): ParseResult {
  return parseJson(encoder.encode(text));
}

const encoder = new TextEncoder();

function isDigit(byte: number): boolean {
  return byte >= DIGIT_0 && byte <= DIGIT_9;
}

/** A hex digit's value, or -1. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x57;
  return -1;
}

/** The ASCII byte after a `\` → the UTF-16 unit its escape stands for, or -1. */
const ESCAPED = new Int16Array(128).fill(-1);
for (let i = 0; i < ESCAPE_NAMES.length; i++) {
  ESCAPED[ESCAPE_NAMES.charCodeAt(i)] = ESCAPE_VALUES.charCodeAt(i);
}

/*
 * Recent short strings by a hash of their bytes: keys and statuses repeat body after body, and the
 * string made before spares building one a byte at a time and hashing it again as a property name.
 */
const RECENT_SLOTS = 256;
const RECENT_MAX_BYTES = 32;
const recentBytes = new Uint8Array(RECENT_SLOTS * RECENT_MAX_BYTES);
const recentLengths = new Int8Array(RECENT_SLOTS).fill(-1);
const recentTexts: string[] = new Array(RECENT_SLOTS).fill("");

/** The ASCII bytes from `start` to `end` (at most RECENT_MAX_BYTES) as a string. */
function recentString(bytes: Uint8Array, start: number, end: number, hash: number): string {
  const slot = (hash ^ (hash >>> 8)) & (RECENT_SLOTS - 1);
  const length = end - start;
  const offset = slot * RECENT_MAX_BYTES;
  if (recentLengths[slot] === length) {
    let same = true;
    for (let i = 0; i < length; i++) {
      if (recentBytes[offset + i] !== bytes[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return recentTexts[slot];
  }
  let text = "";
  for (let i = 0; i < length; i++) {
    const byte = bytes[start + i];
    recentBytes[offset + i] = byte;
    text += String.fromCharCode(byte);
  }
  recentLengths[slot] = length;
  recentTexts[slot] = text;
  return text;
}

class ByteParser {
  /** Bytes read beyond the UTF-16 units they decode to: turns a byte offset into a position. */
  private extra: number;

  constructor(private readonly bytes: Uint8Array, public position: number) {
    this.extra = position;
  }

  /** Refuses the bytes: `reason`, at byte offset `at`. */
  fail(reason: string, at = this.position): never {
    throw new SyntaxFailure(`${reason} at position ${at - this.extra}`);
  }

  skipWhitespace(): void {
    const bytes = this.bytes;
    let at = this.position;
    while (at < bytes.length) {
      const c = bytes[at];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      at++;
    }
    this.position = at;
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    if (this.position >= this.bytes.length) this.fail("unexpected end of input");
    const c = this.bytes[this.position];
    if (c === 0x7b) return this.object(depth); // {
    if (c === 0x5b) return this.array(depth); // [
    if (c === QUOTE) return this.string();
    if (c === 0x74) return this.literal("true", true);
    if (c === 0x66) return this.literal("false", false);
    if (c === 0x6e) return this.literal("null", null);
    if (c === MINUS || isDigit(c)) return this.number();
    return this.fail("unexpected character");
  }

  private literal<T>(word: string, value: T): T {
    const bytes = this.bytes;
    const start = this.position;
    for (let i = 1; i < word.length; i++) {
      if (bytes[start + i] !== word.charCodeAt(i)) this.fail("unexpected character");
    }
    this.position = start + word.length;
    return value;
  }

  /** `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`: the longest number at the position. */
  private number(): number | bigint {
    const bytes = this.bytes;
    const end = bytes.length;
    const start = this.position;
    let at = start;
    const negative = bytes[at] === MINUS;
    if (negative) at++;
    if (at >= end || !isDigit(bytes[at])) this.fail("invalid number");
    let whole = 0;
    if (bytes[at] === DIGIT_0) at++;
    else while (at < end && isDigit(bytes[at])) whole = whole * 10 + (bytes[at++] - DIGIT_0);
    let plain = true;
    // A `.` or exponent mark without digits ends the number before it; the caller refuses the rest.
    if (bytes[at] === DOT && isDigit(bytes[at + 1])) {
      plain = false;
      at += 2;
      while (at < end && isDigit(bytes[at])) at++;
    }
    if ((bytes[at] | 0x20) === 0x65) { // e or E
      let digits = at + 1;
      if (bytes[digits] === 0x2b || bytes[digits] === MINUS) digits++;
      if (isDigit(bytes[digits])) {
        plain = false;
        at = digits + 1;
        while (at < end && isDigit(bytes[at])) at++;
      }
    }
    this.position = at;
    const length = at - start;
    // `-0` is not a plain integer: it stays the number -0, which no integer schema accepts.
    if (plain && !(negative && bytes[start + 1] === DIGIT_0)) {
      if (length <= SAFE_DIGITS) return BigInt(negative ? -whole : whole);
      if (length <= MAX_EXACT_DIGITS) {
        return this.bigint(negative ? start + 1 : start, at, negative);
      }
    }
    return Number(this.ascii(start, at));
  }

  /** The digits as a bigint, summed in runs of SAFE_DIGITS: no string for `BigInt` to parse. */
  private bigint(start: number, end: number, negative: boolean): bigint {
    const bytes = this.bytes;
    let value = 0n;
    for (let run = start; run < end; run += SAFE_DIGITS) {
      const runEnd = Math.min(run + SAFE_DIGITS, end);
      let digits = 0;
      for (let at = run; at < runEnd; at++) digits = digits * 10 + (bytes[at] - DIGIT_0);
      value = value * POWERS_OF_TEN[runEnd - run] + BigInt(digits);
    }
    return negative ? -value : value;
  }

  private ascii(start: number, end: number): string {
    let text = "";
    for (let at = start; at < end; at++) text += String.fromCharCode(this.bytes[at]);
    return text;
  }

  private string(): string {
    const bytes = this.bytes;
    const end = bytes.length;
    const start = this.position + 1; // past the opening quote
    // The common string: printable ASCII up to the closing quote, often a key seen before.
    let at = start;
    let hash = 0;
    while (at < end) {
      const c = bytes[at];
      if (c === QUOTE || c === BACKSLASH || c < 0x20 || c >= 0x80) break;
      hash = (Math.imul(hash, 31) + c) | 0;
      at++;
    }
    if (at < end && bytes[at] === QUOTE) {
      this.position = at + 1;
      return at - start <= RECENT_MAX_BYTES
        ? recentString(bytes, start, at, hash)
        : this.ascii(start, at);
    }
    let result = this.ascii(start, at);
    for (;;) {
      if (at >= end) this.fail("unterminated string", at);
      const c = bytes[at];
      if (c === QUOTE) {
        this.position = at + 1;
        return result;
      }
      if (c >= 0x20 && c < 0x80 && c !== BACKSLASH) {
        result += String.fromCharCode(c);
        at++;
      } else if (c === BACKSLASH) {
        at = this.escape(at);
        result += this.escaped;
      } else if (c >= 0x80) {
        at = this.utf8Sequence(at);
        result += this.escaped;
      } else this.fail("control character in string", at);
    }
  }

  /** What the last `escape` or `utf8Sequence` read: one character (or a surrogate pair). */
  private escaped = "";

  /** Reads the escape at `at` (its `\`) into `escaped`; returns the position after it. */
  private escape(at: number): number {
    const bytes = this.bytes;
    const name = bytes[at + 1];
    if (name === 0x75) { // u
      let unit = 0;
      for (let i = at + 2; i < at + 6; i++) {
        const digit = i < bytes.length ? hexValue(bytes[i]) : -1;
        if (digit === -1) this.fail("invalid unicode escape", at + 2);
        unit = unit * 16 + digit;
      }
      // A lone surrogate stays one: the name rule, not the parser, refuses it.
      this.escaped = String.fromCharCode(unit);
      return at + 6;
    }
    const unit = name === undefined || name >= 0x80 ? -1 : ESCAPED[name];
    if (unit === -1) this.fail("invalid escape", at);
    this.escaped = String.fromCharCode(unit);
    return at + 2;
  }

  /** Decodes the UTF-8 sequence at `at` into `escaped` as a fatal TextDecoder would, or refuses. */
  private utf8Sequence(at: number): number {
    const bytes = this.bytes;
    const lead = bytes[at];
    let length: number;
    let codePoint: number;
    // The second byte's range narrows for E0, ED, F0 and F4 (no overlong form, no surrogate,
    // nothing past U+10FFFF); every other continuation byte is 80–BF.
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
      codePoint = lead & 0x1f;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      codePoint = lead & 0x0f;
      if (lead === 0xe0) low = 0xa0;
      else if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      codePoint = lead & 0x07;
      if (lead === 0xf0) low = 0x90;
      else if (lead === 0xf4) high = 0x8f;
    } else return this.fail(NOT_UTF8, at); // a continuation byte, C0, C1 or F5–FF in the lead
    if (at + length > bytes.length) this.fail(NOT_UTF8, at);
    const second = bytes[at + 1];
    if (second < low || second > high) this.fail(NOT_UTF8, at);
    codePoint = (codePoint << 6) | (second & 0x3f);
    for (let i = at + 2; i < at + length; i++) {
      const next = bytes[i];
      if (next < 0x80 || next > 0xbf) this.fail(NOT_UTF8, at);
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    this.escaped = String.fromCodePoint(codePoint);
    this.extra += length - this.escaped.length;
    return at + length;
  }

  /** Past the opening bracket and any white space: true (and past it) when `close` follows. */
  private isEmpty(close: number): boolean {
    this.position++;
    this.skipWhitespace();
    if (this.bytes[this.position] !== close) return false;
    this.position++;
    return true;
  }

  /** After a member: true past `close`, false past a comma, else a syntax error. */
  private isClosed(close: number): boolean {
    this.skipWhitespace();
    const c = this.bytes[this.position];
    if (c !== close && c !== 0x2c) this.fail(`expected ',' or '${String.fromCharCode(close)}'`);
    this.position++;
    return c === close;
  }

  private array(depth: number): JsonValue[] {
    const items: JsonValue[] = [];
    if (this.isEmpty(0x5d)) return items;
    do {
      this.skipWhitespace();
      items.push(this.value(depth + 1));
    } while (!this.isClosed(0x5d));
    return items;
  }

  private object(depth: number): { [key: string]: JsonValue } {
    const object: { [key: string]: JsonValue } = Object.create(null);
    if (this.isEmpty(0x7d)) return object;
    do {
      this.skipWhitespace();
      if (this.bytes[this.position] !== QUOTE) this.fail("expected a string key");
      const key = this.string();
      if (Object.hasOwn(object, key)) this.fail(`duplicate key "${key.slice(0, 50)}"`);
      this.skipWhitespace();
      if (this.bytes[this.position] !== 0x3a) this.fail("expected ':'");
      this.position++;
      this.skipWhitespace();
      object[key] = this.value(depth + 1);
    } while (!this.isClosed(0x7d));
    return object;
  }
}
