/** Cursors: the last id served and the status filter, with a fixed checksum against mistakes. */
import { CURSOR_MAX_LENGTH } from "../schemas/limits.ts";
import { digest64Hex, digest64State } from "./digest64.ts";
import type { PageQuery } from "../schemas/page.ts";
import { PET_STATUSES, type PetStatus } from "../schemas/pet.ts";

/** A validated `GET /pets` query; `limitGiven`: the next link repeats exactly what was asked. */
export type PageRequest = PageQuery & { readonly limitGiven: boolean };

/** The `Link` to the page after `lastId`, asked as `request` was; `base` is BASE_PATH's URL. */
export function nextPageLink(base: string, request: PageRequest, lastId: number): string {
  let query = "";
  if (request.limitGiven) query += `limit=${request.limit}&`;
  if (request.status !== undefined) query += `status=${request.status}&`;
  const cursor = encodeCursor({ afterId: lastId, status: request.status });
  return `<${base}/pets?${query}cursor=${cursor}>; rel="next"`;
}

type CursorPosition = Pick<PageRequest, "afterId" | "status">;

const SALT = digest64State("animal-store/cursor/v2:");

/** Base64url of an ASCII payload, by btoa (no Buffer per request). */
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

/** The opaque cursor, `<payload>.<checksum>`; the payload is `<afterId>.<status or empty>`. */
export function encodeCursor(position: CursorPosition): string {
  const payload = `${position.afterId}.${position.status ?? ""}`;
  return `${toBase64Url(payload)}.${digest64Hex(payload, SALT)}`;
}

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
