/**
 * The duties our contract puts on every request, as plain helpers the same-work peers call from
 * their framework's own hooks (Hono: a middleware around `await next()`; Elysia: `onRequest` and
 * `onAfterResponse`; Fastify: `genReqId`, `onRequest` and `onResponse` with its pino logger):
 * the key looked up in a Map that also gives its fingerprint for the log line, the request-id
 * rule, ETags made from the ids served (never from the body), the `If-None-Match` comparison,
 * the constant headers, and one JSON log line per request written to stdout in batches.
 * Dev-only benchmark code: nothing under `src/` imports it.
 */
import { createHash, randomUUID } from "node:crypto";
import process from "node:process";
import { bearerToken, BENCH_KEY, type Status } from "./pet_fixture.ts";

/** Accepted key → its short fingerprint for the log line (hashed once, at start-up). */
const KEY_FINGERPRINTS: ReadonlyMap<string, string> = new Map(
  [BENCH_KEY].map((key) => [key, createHash("sha256").update(key).digest("hex").slice(0, 12)]),
);

/** The fingerprint of the accepted key in `authorization`, or undefined when none is. */
export function acceptedKey(authorization: string | null | undefined): string | undefined {
  const token = bearerToken(authorization);
  return token === undefined ? undefined : KEY_FINGERPRINTS.get(token);
}

const REQUEST_ID = /^[A-Za-z0-9._:=-]{1,200}$/;

/** The client's `X-Request-Id` when it is 1–200 of `[A-Za-z0-9._:=-]`, otherwise a new UUID. */
export function requestIdFor(header: string | null | undefined): string {
  return header != null && REQUEST_ID.test(header) ? header : randomUUID();
}

/** Headers of every response. */
export const NOSNIFF = "nosniff";
/** `Cache-Control` of a successful GET of a pet or a page (and its 304). */
export const REVALIDATE = "private, no-cache";
/** `Cache-Control` of every other response. */
export const NO_STORE = "no-store";
/** `Vary` of a successful GET of a pet or a page (and its 304). */
export const VARY = "Accept-Encoding";

/** The tag of pet `id`: a pet never changes, so its id fixes its bytes. */
export function petTag(id: number): string {
  return `"pet-${id}"`;
}

/** The tag of a page: the request's filter and size, the ids served and whether more follow. */
export function pageTag(
  query: { status: Status | undefined; limit: number },
  page: { pets: readonly { id: number }[]; hasMore: boolean },
): string {
  const { pets } = page;
  const first = pets.length === 0 ? 0 : pets[0].id;
  const last = pets.length === 0 ? 0 : pets[pets.length - 1].id;
  return `"page-${query.status ?? ""}-${query.limit}-${first}-${last}-${pets.length}` +
    `${page.hasMore ? "-more" : ""}"`;
}

/** True when `ifNoneMatch` (a list of tags, or `*`) holds `tag`, by weak comparison. */
export function tagMatches(ifNoneMatch: string | null | undefined, tag: string): boolean {
  if (ifNoneMatch == null) return false;
  if (ifNoneMatch === tag || ifNoneMatch.trim() === "*") return true;
  for (const part of ifNoneMatch.split(",")) {
    const candidate = part.trim();
    if (candidate === tag || candidate === `W/${tag}`) return true;
  }
  return false;
}

/** The fields of one request's log line, as our service writes them. */
export interface RequestLogFields {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  /** The key's fingerprint, when a key was accepted. */
  key: string | undefined;
}

/**
 * One JSON line per request on stdout, gathered per event-loop turn and written in one call, as
 * our service's logger does (a busy server makes one write per burst, not one per request).
 */
export function createRequestLog(): (fields: RequestLogFields) => void {
  let buffer = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const text = buffer;
    buffer = "";
    if (text !== "") process.stdout.write(text);
  };
  return (fields) => {
    buffer += JSON.stringify({
      time: new Date().toISOString(),
      level: "info",
      msg: "request",
      ...fields,
    }) + "\n";
    if (buffer.length > 65536) return flush();
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 0);
    }
  };
}

/** The path of an absolute request URL, without its query. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}

/** Milliseconds since `started` (a `performance.now()`), to the microsecond. */
export function durationSince(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

/** A valid `Idempotency-Key`: 1–255 visible ASCII characters, as ours accepts. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * What a create with an `Idempotency-Key` is remembered by: the SHA-256 of its validated body,
 * so that the same key with another body can be told apart (422) from a retry (a replay).
 */
export function requestDigest(body: unknown): string {
  return createHash("sha256").update(JSON.stringify(body)).digest("hex");
}
