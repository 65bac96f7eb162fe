/**
 * Cursor pagination (docs/api.md): the cursor names the last id served and the status filter, with
 * a checksum against mistakes (a forged cursor reveals nothing a walk does not), fixed so every
 * instance accepts every other's. Ids only grow, so a walk sees each matching pet exactly once.
 */
import { CURSOR_MAX_LENGTH } from "../schemas/limits.ts";
import { digest64Hex, digest64State } from "./digest64.ts";
import type { PageQuery } from "../schemas/page.ts";
import { PET_STATUSES, type PetStatus } from "../schemas/pet.ts";

/** A list request as the conditional GET sees it (a validated `GET /pets` query). */
export interface PageRequest extends PageQuery {
  /** Whether `limit` was given, so the next page's link repeats exactly what was asked. */
  readonly limitGiven: boolean;
}

/** The `Link` to the page after `lastId`, asked as `request` was; `base` is BASE_PATH's URL. */
export function nextPageLink(base: string, request: PageRequest, lastId: number): string {
  let query = "";
  if (request.limitGiven) query += `limit=${request.limit}&`;
  if (request.status !== undefined) query += `status=${request.status}&`;
  const cursor = encodeCursor({ afterId: lastId, status: request.status });
  return `<${base}/pets?${query}cursor=${cursor}>; rel="next"`;
}

/** Where a page starts: after `afterId`, for the given status filter. */
type CursorPosition = Pick<PageRequest, "afterId" | "status">;

/** The checksum's fixed salt, digested once: `digest64Hex(payload, SALT)` is the salted digest. */
const SALT = digest64State("animal-store/cursor/v2:");

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
  const payload = `${position.afterId}.${position.status ?? ""}`;
  return `${toBase64Url(payload)}.${digest64Hex(payload, SALT)}`;
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
  if (match === null || digest64Hex(payload, SALT) !== cursor.slice(dot + 1)) return undefined;
  const afterId = Number(match[1]);
  if (!Number.isSafeInteger(afterId)) return undefined;
  return { afterId, status: match[2] as PetStatus | undefined };
}
