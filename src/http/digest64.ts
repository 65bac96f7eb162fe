/**
 * A fast 64-bit non-cryptographic digest of a string, as 16 hex digits: two multiply-xorshift
 * lanes, each mixing the other in the final avalanche. For cursor checksums and entity tags, never
 * against an adversary. The constants are part of the cursor format (test/http/pagination.test.ts
 * pins one): they never change.
 */

/** The two lanes after some text: the digest of a constant prefix, taken once. */
type Digest64State = { readonly a: number; readonly b: number };

const START: Digest64State = { a: 0x243f6a88, b: 0x85a308d3 };

/** The lanes after `text`: `digest64Hex(p + q)` is `digest64Hex(q, digest64State(p))`. */
export function digest64State(text: string, from: Digest64State = START): Digest64State {
  let { a, b } = from;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x9e3779b1);
    b = Math.imul(b ^ code, 0x85ebca77);
  }
  return { a, b };
}

/** The digest of `text`, or of the text that led to `from` followed by `text`. */
export function digest64Hex(text: string, from: Digest64State = START): string {
  let { a, b } = digest64State(text, from);
  a = Math.imul(a ^ (a >>> 15), 0x2c1b3c6d) ^ b;
  b = Math.imul(b ^ (b >>> 13), 0x297a2d39) ^ a;
  a = Math.imul(a ^ (a >>> 16), 0xc2b2ae35);
  b = Math.imul(b ^ (b >>> 16), 0x27d4eb2f);
  return hex8(a) + hex8(b);
}

/** Two hex digits per byte value, looked up rather than formatted. */
export const HEX_BYTES = Array.from(
  { length: 256 },
  (_, byte) => byte.toString(16).padStart(2, "0"),
);

function hex8(value: number): string {
  return HEX_BYTES[value >>> 24] + HEX_BYTES[(value >>> 16) & 0xff] +
    HEX_BYTES[(value >>> 8) & 0xff] + HEX_BYTES[value & 0xff];
}
