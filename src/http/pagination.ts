/**
 * Cursor pagination (SPEC.md): the cursor names the last id of the previous page and the status
 * filter it was made for, and carries a checksum so an altered or invented cursor is refused
 * with 400 instead of silently starting somewhere else. Because ids only grow and a pet becomes
 * visible only once durable (in id order), "ids after the cursor" returns every matching pet
 * exactly once even while pets are created during a walk.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { PetStatus } from "../schemas/pet.ts";

/** Where a page starts: after `afterId`, for the given status filter. */
export interface CursorPosition {
  readonly afterId: number;
  readonly status: PetStatus | undefined;
}

const CHECKSUM_SALT = "animal-store/cursor/v1";

function checksum(payload: string): string {
  return createHash("sha256").update(CHECKSUM_SALT).update(payload).digest("base64url").slice(
    0,
    16,
  );
}

function payloadOf(position: CursorPosition): string {
  return `${position.afterId}.${position.status ?? ""}`;
}

/** The opaque cursor for a position: `<payload>.<checksum>`, URL-safe. */
export function encodeCursor(position: CursorPosition): string {
  const payload = Buffer.from(payloadOf(position)).toString("base64url");
  return `${payload}.${checksum(payloadOf(position))}`;
}

const PAYLOAD = /^(0|[1-9][0-9]{0,15})\.(available|pending|sold)?$/;

/** The position a cursor names, or undefined when it is malformed or altered. */
export function decodeCursor(cursor: string): CursorPosition | undefined {
  const dot = cursor.indexOf(".");
  if (dot <= 0 || cursor.length > 200) return undefined;
  const encoded = cursor.slice(0, dot);
  const payload = Buffer.from(encoded, "base64url").toString("utf8");
  // Re-encode so that only the one canonical spelling of a cursor is accepted.
  if (Buffer.from(payload).toString("base64url") !== encoded) return undefined;
  const match = PAYLOAD.exec(payload);
  if (match === null || checksum(payload) !== cursor.slice(dot + 1)) return undefined;
  const afterId = Number(match[1]);
  if (!Number.isSafeInteger(afterId)) return undefined;
  return { afterId, status: match[2] as PetStatus | undefined };
}
