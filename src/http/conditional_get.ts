/**
 * The conditional GET of the two cacheable reads, list page and single pet, in one place: the
 * coding the client accepts (`Accept-Encoding`), the strong tag from the store's facts, a 304
 * when the client holds that tag (`If-None-Match`), the body compressed as needed, and the byte
 * cache of full pages. Every 200 and 304 carries the `ETag`, `Cache-Control: private, no-cache`
 * (a browser may keep the body but revalidates it; shared caches keep nothing: the responses need
 * a key) and `Vary: Accept-Encoding`, the 304 as the 200 (RFC 9110 §15.4.5: a 304 carries the
 * headers the 200 would have, for caches to update).
 */
import type { MaybePromise, PageFacts, PetPageJson } from "../schemas/page.ts";
import { PET_STATUSES } from "../schemas/pet.ts";
import { compressBody, COMPRESSION_THRESHOLD, type ContentCoding } from "./compression.ts";
import { type BrotliEncoder } from "../runtime/contract.ts";
import { digest64Hex, digest64State } from "./digest64.ts";
import { nextPageLink, type PageRequest } from "./pagination.ts";
import type { ReplyHeaders } from "./responses.ts";
import type { AppRequest, Reply } from "../runtime/contract.ts";
import { type CachedResponse, ResponseCache } from "./response_cache.ts";

// ---- Entity tags (RFC 9110 §8.8.3) ----
//
// Derived from what the store knows about a response, never from its bytes: a pet never changes
// once created and a page is the pets after a cursor in id order, so the ids served, whether a
// `next` link exists and the coding fix the bytes exactly. The same facts give the same tag after
// a restart, on every runtime and on every instance of a PostgreSQL deployment. The digest is not
// cryptographic: a collision could only matter between two versions of the same URL's response
// (a handful, differing in count or `next`), and a client can only fool itself by forging a tag.

/**
 * Stands for everything else that shapes the bytes (the Pet JSON layout, the compression levels):
 * a release that changes them must change it, so that no client keeps a body under a tag that now
 * means other bytes.
 */
export const FORMAT_VERSION = "animal-store/etag/1";

const PAGE_PREFIX = digest64State(`${FORMAT_VERSION}|page|`);
const PET_PREFIX = digest64State(`${FORMAT_VERSION}|pet|`);

/** The tag of a list page sent in `coding`. */
export function pageTag(facts: PageFacts, coding: ContentCoding): string {
  const text = `${facts.status ?? ""}|${facts.afterId}|${facts.limit}|${facts.firstId}|` +
    `${facts.lastId}|${facts.count}|${facts.hasMore ? 1 : 0}|${coding}`;
  return `"${digest64Hex(text, PAGE_PREFIX)}"`;
}

/** The tag of the pet `id` sent in `coding` (a pet's bytes never change). */
export function petTag(id: number, coding: ContentCoding): string {
  return `"${digest64Hex(`${id}|${coding}`, PET_PREFIX)}"`;
}

// ---- If-None-Match (RFC 9110 §13.1.2) ----

/**
 * True when `header` (a list of entity tags, or `*`) matches `etag`, compared the weak way
 * (§8.8.3.2: `W/"x"` matches `"x"`). A malformed header matches nothing, so the full response is
 * sent: the safe outcome when unsure.
 */
export function ifNoneMatchMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const trimmed = header.trim();
  if (trimmed === "*") return true;
  let i = 0;
  while (i < trimmed.length) {
    // Skip the separators and white space between list members (RFC 9110 §5.6.1).
    const char = trimmed.charCodeAt(i);
    if (char === 0x2c || char === 0x20 || char === 0x09) {
      i++;
      continue;
    }
    if (trimmed.startsWith("W/", i)) i += 2;
    if (trimmed.charCodeAt(i) !== 0x22) return false;
    // An opaque tag may hold commas, so the tag ends at the next quote, not at a comma.
    const end = trimmed.indexOf('"', i + 1);
    if (end === -1) return false;
    if (trimmed.slice(i, end + 1) === etag) return true;
    i = end + 1;
  }
  return false;
}

// ---- Accept-Encoding (RFC 9110 §12.5.3) ----

const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The coding a compressible body is sent in: q-values honoured, `q=0` refuses a coding, `*`
 * stands for every coding the header does not name, and br wins a tie with gzip (smaller for the
 * same body). Without the header, or when nothing offered is acceptable, the body goes out as is
 * (§12.5.3: "SHOULD send a response without any content coding").
 */
export function negotiateCoding(acceptEncoding: string | null): ContentCoding {
  if (acceptEncoding === null || acceptEncoding === "") return "identity";
  const weights: Partial<Record<"br" | "gzip" | "identity" | "any", number>> = {};
  for (const element of acceptEncoding.split(",")) {
    const [name, ...parameters] = element.split(";");
    let q = 1;
    for (const parameter of parameters) {
      const equals = parameter.indexOf("=");
      if (equals === -1 || parameter.slice(0, equals).trim().toLowerCase() !== "q") continue;
      const value = parameter.slice(equals + 1).trim();
      // An element with a malformed q is ignored (NaN stays NaN).
      q = QVALUE.test(value) ? q * 0 + Number(value) : NaN;
    }
    // RFC 9110 §8.4.1.3: x-gzip is an alias of gzip. A coding named twice keeps its highest q.
    const lower = name.trim().toLowerCase();
    const coding = lower === "x-gzip" ? "gzip" : lower === "*" ? "any" : lower;
    if (coding !== "br" && coding !== "gzip" && coding !== "identity" && coding !== "any") continue;
    if (!Number.isNaN(q)) weights[coding] = Math.max(weights[coding] ?? 0, q);
  }
  const br = weights.br ?? weights.any ?? 0;
  const gzip = weights.gzip ?? weights.any ?? 0;
  const best = br >= gzip ? br : gzip;
  if (best <= 0) return "identity";
  // Identity is acceptable unless refused; it wins only when the client ranks it higher.
  if (weights.identity !== undefined && weights.identity > best) return "identity";
  return br >= gzip ? "br" : "gzip";
}

// ---- The two reads ----

/** What a read needs (a route's context fits); `store` throws 503 when not ready. */
interface ReadContext {
  readonly request: AppRequest;
  readonly store: () => {
    get(id: number): MaybePromise<{ readonly json: string } | undefined>;
    listJson(query: PageRequest): MaybePromise<PetPageJson>;
  };
  readonly headers: ReplyHeaders;
}

/**
 * The two reads: a list page (cached when full: it never changes) and a pet (undefined when the
 * store has none). `cacheBytes` 0 means no cache, with the same responses.
 */
export function createConditionalGet(
  options: { cacheBytes: number; brotli?: BrotliEncoder; publicBase: string },
): {
  page(context: ReadContext, query: PageRequest): MaybePromise<Reply>;
  pet(context: ReadContext, id: number): MaybePromise<Reply | undefined>;
} {
  const { brotli, publicBase } = options;
  const cache = options.cacheBytes > 0 ? new ResponseCache(options.cacheBytes) : undefined;

  function page(context: ReadContext, query: PageRequest): MaybePromise<Reply> {
    // First, so that a cached page too is refused while the store loads or the service drains.
    const store = context.store();
    const wanted = negotiateCoding(context.request.headers.get("accept-encoding"));
    const key = cache === undefined ? undefined : pageKey(query, wanted);
    const hit = key === undefined ? undefined : cache!.get(key);
    if (hit !== undefined) return reply(context, hit);
    const built = store.listJson(query);
    return built instanceof Promise
      ? built.then((built) => pageReply(context, query, built, wanted, key))
      : pageReply(context, query, built, wanted, key);
  }

  function pageReply(
    context: ReadContext,
    query: PageRequest,
    built: PetPageJson,
    wanted: ContentCoding,
    key: number | string | undefined,
  ): Reply {
    const coding = built.body.byteLength > COMPRESSION_THRESHOLD ? wanted : "identity";
    const { firstId, lastId, count, hasMore } = built;
    const etag = pageTag({ ...query, firstId, lastId, count, hasMore }, coding);
    // No compression for a client that holds the tag already.
    if (ifNoneMatchMatches(context.request.headers.get("if-none-match"), etag)) {
      return { status: 304, body: null, headers: { ...context.headers.notModified, etag } };
    }
    // A page with pets after it is full and never changes again; any other page can still grow.
    const response: CachedResponse = {
      body: compressBody(built.body, coding, hasMore ? "once" : "per_request", brotli),
      etag,
      coding,
      link: hasMore ? nextPageLink(publicBase, query, lastId) : undefined,
    };
    if (hasMore && key !== undefined) cache!.offer(key, response);
    return reply(context, response, false);
  }

  // A pet is not kept in the cache: its JSON stays under the compression threshold (at most 200
  // code points of name, an int64 and a status), so it goes out as the string the store holds,
  // and keeping a copy would only cost an insert and an eviction per miss. For the same reason
  // the request's Accept-Encoding is only read for a body that could be compressed. Only its tag
  // is kept (`identityPetTag`): a slot overwritten per miss, no eviction to pay for.
  function pet(context: ReadContext, id: number): MaybePromise<Reply | undefined> {
    const stored = context.store().get(id);
    return stored instanceof Promise
      ? stored.then((pet) => pet && petReply(context, id, pet.json))
      : stored && petReply(context, id, stored.json);
  }

  /**
   * The identity tags made last, one per slot of `id % RECENT_TAGS`: a popular pet's tag is
   * looked up rather than digested again (the digest showed in every profile of a get by id).
   */
  const recentTagIds = new Float64Array(RECENT_TAGS).fill(-1);
  const recentTags: string[] = new Array(RECENT_TAGS).fill("");
  function identityPetTag(id: number): string {
    const slot = id % RECENT_TAGS;
    if (recentTagIds[slot] === id) return recentTags[slot];
    const tag = petTag(id, "identity");
    recentTagIds[slot] = id;
    recentTags[slot] = tag;
    return tag;
  }

  function petReply(context: ReadContext, id: number, json: string): Reply {
    let body: string | Uint8Array<ArrayBuffer> = json;
    let coding: ContentCoding = "identity";
    // UTF-8 takes at most 3 bytes per UTF-16 unit: most pets need no encoding to know.
    if (json.length * 3 > COMPRESSION_THRESHOLD) {
      const bytes = encoder.encode(json);
      if (bytes.byteLength > COMPRESSION_THRESHOLD) {
        coding = negotiateCoding(context.request.headers.get("accept-encoding"));
        body = compressBody(bytes, coding, "once", brotli);
      }
    }
    const etag = coding === "identity" ? identityPetTag(id) : petTag(id, coding);
    return reply(context, { body, etag, coding, link: undefined });
  }

  return { page, pet };
}

const encoder = new TextEncoder();
const RECENT_TAGS = 1024;

type Fresh = Omit<CachedResponse, "body"> & { readonly body: string | Uint8Array<ArrayBuffer> };

/** The 304 when `conditional` and the request's If-None-Match holds the tag, else the 200. */
function reply(context: ReadContext, response: Fresh, conditional = true): Reply {
  const { etag, coding, link } = response;
  const ifNoneMatch = conditional ? context.request.headers.get("if-none-match") : null;
  if (ifNoneMatchMatches(ifNoneMatch, etag)) {
    return { status: 304, body: null, headers: { ...context.headers.notModified, etag } };
  }
  const headers: Record<string, string> = { ...context.headers.ok, etag };
  if (coding !== "identity") headers["content-encoding"] = coding;
  if (link !== undefined) headers.link = link;
  return { status: 200, body: response.body, headers };
}

const CODINGS: Record<ContentCoding, number> = { identity: 0, gzip: 1, br: 2 };

/**
 * The cache key of a page: everything the cached response depends on (the position and filter,
 * the limit and whether it was given, which shows in the `next` link, and the coding), packed
 * into one number while `afterId` leaves room (below 2^40), else a string.
 */
function pageKey(query: PageRequest, coding: ContentCoding): number | string {
  const limit = query.limit << 1 | (query.limitGiven ? 1 : 0);
  const status = query.status === undefined ? 0 : PET_STATUSES.indexOf(query.status) + 1;
  const low = (limit << 2 | status) << 2 | CODINGS[coding];
  return query.afterId < 2 ** 40 ? query.afterId * 4096 + low : `${query.afterId}.${low}`;
}
