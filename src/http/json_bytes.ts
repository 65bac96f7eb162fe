/**
 * The request body's JSON parsed straight from its bytes, for the common body: no `TextDecoder`,
 * no regular expression, and ASCII text copied a byte at a time.
 *
 * It agrees with the text reader (`readJsonBody` of `body.ts`: a fatal UTF-8 decode that drops
 * one leading BOM, then `parseJsonExact` of `json.ts`) on every body it decides: the same value,
 * integers exact (a plain integer literal is a `bigint`, any other number form a `number`),
 * objects without a prototype. Any body it cannot parse (broken or overlong UTF-8, a syntax
 * error, a duplicated key, nesting too deep, no value at all) it leaves undecided, and the text
 * reader then gives the verdict and the error message, so those are written in one place only.
 * UTF-8 is checked as the bytes are read: outside strings only ASCII is JSON, and inside them
 * each sequence is held to the same rules as a fatal `TextDecoder` (shortest form, no encoded
 * surrogate, nothing past U+10FFFF). The property tests of `test/http/json_bytes.test.ts` hold
 * the two readers to the same answer for random and hostile bodies.
 */
import type { JsonValue } from "../schemas/json_value.ts";
// The text reader's own limits and escapes, so the two readers cannot drift apart: nesting past
// MAX_DEPTH is left undecided (the text reader refuses it), and a plain integer longer than
// MAX_EXACT_DIGITS is kept as a number, as there.
import { ESCAPE_NAMES, ESCAPE_VALUES, MAX_DEPTH, MAX_EXACT_DIGITS } from "./json.ts";

/** At most this many characters (sign included) stay below 2^53: summed exactly as a number. */
const SAFE_DIGITS = 15;

/** 10^n as a bigint, for n up to SAFE_DIGITS. */
const POWERS_OF_TEN = Array.from({ length: SAFE_DIGITS + 1 }, (_, n) => 10n ** BigInt(n));

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;

/** Thrown (never escaping this module) when the text reader must decide the body. */
const UNDECIDED = Symbol("undecided");

/**
 * The body's JSON value, or `undefined` when the text reader has to decide it (it then fails,
 * or is a body this parser leaves to it). Never throws.
 */
export function parseJsonBytes(bytes: Uint8Array): JsonValue | undefined {
  // A fatal TextDecoder drops one leading byte order mark, so the text reader never sees it.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const parser = new ByteParser(bytes, bom ? 3 : 0);
  try {
    parser.skipWhitespace();
    const value = parser.value(0);
    parser.skipWhitespace();
    return parser.position === bytes.length ? value : undefined;
  } catch (error) {
    if (error === UNDECIDED) return undefined;
    throw error;
  }
}

function undecided(): never {
  throw UNDECIDED;
}

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
 * Recent short strings, by a hash of their bytes: a key (or a status) is the same few strings
 * body after body, and handing out the one string made before, rather than a new one, spares
 * each object member a string built a byte at a time and then hashed again as a property name.
 * A fixed number of slots; a string whose slot another took is made afresh.
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
  constructor(private readonly bytes: Uint8Array, public position: number) {}

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
    if (depth > MAX_DEPTH || this.position >= this.bytes.length) undecided();
    const c = this.bytes[this.position];
    if (c === 0x7b) return this.object(depth); // {
    if (c === 0x5b) return this.array(depth); // [
    if (c === QUOTE) return this.string();
    if (c === 0x74) return this.literal("true", true);
    if (c === 0x66) return this.literal("false", false);
    if (c === 0x6e) return this.literal("null", null);
    if (c === MINUS || isDigit(c)) return this.number();
    return undecided();
  }

  private literal<T>(word: string, value: T): T {
    const bytes = this.bytes;
    const start = this.position;
    if (start + word.length > bytes.length) undecided();
    for (let i = 1; i < word.length; i++) {
      if (bytes[start + i] !== word.charCodeAt(i)) undecided();
    }
    this.position = start + word.length;
    return value;
  }

  /** `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, as `json.ts` reads it. */
  private number(): number | bigint {
    const bytes = this.bytes;
    const end = bytes.length;
    const start = this.position;
    let at = start;
    const negative = bytes[at] === MINUS;
    if (negative) at++;
    if (at >= end) undecided();
    let whole = 0;
    if (bytes[at] === DIGIT_0) at++;
    else if (bytes[at] >= DIGIT_1 && bytes[at] <= DIGIT_9) {
      while (at < end && isDigit(bytes[at])) whole = whole * 10 + (bytes[at++] - DIGIT_0);
    } else undecided();
    let plain = true;
    // A `.` or an exponent mark without digits after it is an error wherever the number stands.
    if (at < end && bytes[at] === DOT) {
      plain = false;
      at++;
      if (at >= end || !isDigit(bytes[at])) undecided();
      while (at < end && isDigit(bytes[at])) at++;
    }
    if (at < end && (bytes[at] | 0x20) === 0x65) { // e or E
      plain = false;
      at++;
      if (at < end && (bytes[at] === 0x2b || bytes[at] === MINUS)) at++;
      if (at >= end || !isDigit(bytes[at])) undecided();
      while (at < end && isDigit(bytes[at])) at++;
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

  /**
   * The digits from `start` to `end` as a bigint, summed in runs of at most SAFE_DIGITS: a
   * bigint made from a string built here costs several times more on Bun.
   */
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

  /** Bytes known to be ASCII, as a string. */
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
      if (at >= end) undecided(); // unterminated
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
      } else undecided(); // a raw control character
    }
  }

  /** What the last `escape` or `utf8Sequence` read: one character (or a surrogate pair). */
  private escaped = "";

  /** Reads the escape at `at` (its `\`) into `escaped`; returns the position after it. */
  private escape(at: number): number {
    const bytes = this.bytes;
    const name = bytes[at + 1];
    if (name === 0x75) { // u
      if (at + 6 > bytes.length) undecided();
      let unit = 0;
      for (let i = at + 2; i < at + 6; i++) {
        const digit = hexValue(bytes[i]);
        if (digit === -1) undecided();
        unit = unit * 16 + digit;
      }
      // A lone surrogate stays one, as the text reader's `String.fromCharCode` keeps it.
      this.escaped = String.fromCharCode(unit);
      return at + 6;
    }
    const unit = name === undefined || name >= 0x80 ? -1 : ESCAPED[name];
    if (unit === -1) undecided();
    this.escaped = String.fromCharCode(unit);
    return at + 2;
  }

  /**
   * Decodes the UTF-8 sequence starting at `at` into `escaped`, or leaves the body undecided if
   * a fatal TextDecoder would refuse it (WHATWG Encoding, "UTF-8 decoder"); returns the position
   * after it.
   */
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
    } else return undecided(); // a continuation byte, C0, C1 or F5–FF in the lead position
    if (at + length > bytes.length) undecided();
    const second = bytes[at + 1];
    if (second < low || second > high) undecided();
    codePoint = (codePoint << 6) | (second & 0x3f);
    for (let i = at + 2; i < at + length; i++) {
      const next = bytes[i];
      if (next < 0x80 || next > 0xbf) undecided();
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    this.escaped = String.fromCodePoint(codePoint);
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

  /** After a member: true past `close`, false past a comma, else undecided. */
  private isClosed(close: number): boolean {
    this.skipWhitespace();
    const c = this.bytes[this.position];
    if (c !== close && c !== 0x2c) undecided();
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
      if (this.bytes[this.position] !== QUOTE) undecided();
      const key = this.string();
      if (Object.hasOwn(object, key)) undecided();
      this.skipWhitespace();
      if (this.bytes[this.position] !== 0x3a) undecided(); // :
      this.position++;
      this.skipWhitespace();
      object[key] = this.value(depth + 1);
    } while (!this.isClosed(0x7d));
    return object;
  }
}
