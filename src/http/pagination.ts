/**
 * Cursor pagination (docs/api.md): the cursor names the last id of the previous page and the status
 * filter it was made for, and carries a checksum so an altered or invented cursor is refused
 * with 400 instead of silently starting somewhere else. Because ids only grow and a pet becomes
 * visible only once durable (in id order), "ids after the cursor" returns every matching pet
 * exactly once even while pets are created during a walk.
 *
 * The checksum guards against mistakes (a truncated or hand-edited cursor), not against an
 * adversary: a forged cursor could only start a walk at some id, which reveals nothing a walk
 * does not. So it is a fast 64-bit mixing hash, not SHA-256 — through node:crypto a hash cost
 * more than the rest of a list request on Deno. The salt is fixed, so every instance of the
 * service (and every restart) accepts the cursors of every other.
 */
import { CURSOR_MAX_LENGTH } from "../schemas/limits.ts";
import { PET_STATUSES, type PetStatus } from "../schemas/pet.ts";

/** Where a page starts: after `afterId`, for the given status filter. */
export interface CursorPosition {
  readonly afterId: number;
  readonly status: PetStatus | undefined;
}

const CHECKSUM_SALT = "animal-store/cursor/v2:";

/** 64 bits of two multiply-xorshift lanes over the salted text, as 16 hex digits. */
function checksum(payload: string): string {
  const text = CHECKSUM_SALT + payload;
  let a = 0x243f6a88;
  let b = 0x85a308d3;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x9e3779b1);
    b = Math.imul(b ^ code, 0x85ebca77);
  }
  // Final avalanche, each lane mixed with the other, so every input bit reaches every output bit.
  a = Math.imul(a ^ (a >>> 15), 0x2c1b3c6d) ^ b;
  b = Math.imul(b ^ (b >>> 13), 0x297a2d39) ^ a;
  a = Math.imul(a ^ (a >>> 16), 0xc2b2ae35);
  b = Math.imul(b ^ (b >>> 16), 0x27d4eb2f);
  return hex8(a) + hex8(b);
}

/** Two hex digits per byte value: `toString(16).padStart` showed in every list profile. */
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

function hex8(value: number): string {
  return HEX_BYTES[value >>> 24] + HEX_BYTES[(value >>> 16) & 0xff] +
    HEX_BYTES[(value >>> 8) & 0xff] + HEX_BYTES[value & 0xff];
}

function payloadOf(position: CursorPosition): string {
  return `${position.afterId}.${position.status ?? ""}`;
}

/** Base64url of an ASCII payload, by the web-standard btoa (no Buffer per request). */
function toBase64Url(ascii: string): string {
  return btoa(ascii).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(encoded: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return undefined;
  try {
    return atob(encoded.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return undefined;
  }
}

/** The opaque cursor for a position: `<payload>.<checksum>`, URL-safe. */
export function encodeCursor(position: CursorPosition): string {
  const payload = payloadOf(position);
  return `${toBase64Url(payload)}.${checksum(payload)}`;
}

/** The payload: the last id, a dot, and the status filter (empty for none). */
const PAYLOAD = new RegExp(`^(0|[1-9][0-9]{0,15})\\.(${PET_STATUSES.join("|")})?$`);

/** The position a cursor names, or undefined when it is malformed or altered. */
export function decodeCursor(cursor: string): CursorPosition | undefined {
  const dot = cursor.indexOf(".");
  if (dot <= 0 || cursor.length > CURSOR_MAX_LENGTH) return undefined;
  const encoded = cursor.slice(0, dot);
  const payload = fromBase64Url(encoded);
  // Only the one canonical spelling of a cursor is accepted.
  if (payload === undefined || toBase64Url(payload) !== encoded) return undefined;
  const match = PAYLOAD.exec(payload);
  if (match === null || checksum(payload) !== cursor.slice(dot + 1)) return undefined;
  const afterId = Number(match[1]);
  if (!Number.isSafeInteger(afterId)) return undefined;
  return { afterId, status: match[2] as PetStatus | undefined };
}
