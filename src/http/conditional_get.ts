/**
 * The conditional GET of the list page and the single pet: the coding (`Accept-Encoding`), the
 * strong tag from the store's facts, a 304 for a matching `If-None-Match`, compression, and the
 * byte cache of full pages. A 304 carries the headers the 200 would (RFC 9110 §15.4.5).
 */
import type { MaybePromise, PageFacts, PetPageJson } from "../schemas/page.ts";
import { PET_STATUSES } from "../schemas/pet.ts";
import { compressBody, COMPRESSION_THRESHOLD, type ContentCoding } from "./compression.ts";
import { digest64Hex, digest64State } from "./digest64.ts";
import { nextPageLink, type PageRequest } from "./pagination.ts";
import type { ReplyHeaders } from "./responses.ts";
import type { AppRequest, BrotliEncoder, Reply } from "../runtime/contract.ts";
import { type CachedResponse, ResponseCache } from "./response_cache.ts";

// Entity tags (RFC 9110 §8.8.3) come from the facts that fix the bytes (ids served, a `next` link
// or not, the coding), never from the bytes: the same after a restart and on every instance. The
// digest is not cryptographic: a client can only fool itself by forging a tag.

/** Everything else that shapes the bytes (Pet JSON layout, compression levels): bump on change. */
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

/**
 * Whether `If-None-Match` (tags, or `*`) matches `etag`, compared the weak way (RFC 9110 §13.1.2).
 * A malformed header matches nothing, so the full response is sent.
 */
export function ifNoneMatchMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const trimmed = header.trim();
  if (trimmed === "*") return true;
  let i = 0;
  while (i < trimmed.length) {
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

const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The coding of a compressible body (RFC 9110 §12.5.3): q-values honoured, `*` for every coding
 * not named, br wins a tie with gzip; nothing acceptable means identity.
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

/** What a read needs (a route's context fits); `store` throws 503 when not ready. */
interface ReadContext {
  readonly request: AppRequest;
  readonly store: () => {
    get(id: number): MaybePromise<{ readonly json: string } | undefined>;
    listJson(query: PageRequest): MaybePromise<PetPageJson>;
  };
  readonly headers: ReplyHeaders;
}

/** The two reads: a list page (cached when full) and a pet (undefined when none). */
export function createConditionalGet(
  options: { cacheBytes: number; brotli?: BrotliEncoder; publicBase: string },
): {
  page(context: ReadContext, query: PageRequest): MaybePromise<Reply>;
  pet(context: ReadContext, id: number): MaybePromise<Reply | undefined>;
} {
  const { brotli, publicBase } = options;
  const cache = options.cacheBytes > 0 ? new ResponseCache(options.cacheBytes) : undefined;

  function page(context: ReadContext, query: PageRequest): MaybePromise<Reply> {
    // First, so that a cached page too is refused while the store loads.
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

  // A pet is never cached: its JSON stays under the compression threshold, so it goes out as the
  // store's string; only its identity tag is kept, in a slot overwritten per miss.
  function pet(context: ReadContext, id: number): MaybePromise<Reply | undefined> {
    const stored = context.store().get(id);
    return stored instanceof Promise
      ? stored.then((pet) => pet && petReply(context, id, pet.json))
      : stored && petReply(context, id, stored.json);
  }

  /** The identity tags made last, one per slot of `id % RECENT_TAGS` (a hot path). */
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
 * The cache key of a page (position, filter, limit and whether given, coding), one number while
 * `afterId` is below 2^40, else a string.
 */
function pageKey(query: PageRequest, coding: ContentCoding): number | string {
  const limit = query.limit << 1 | (query.limitGiven ? 1 : 0);
  const status = query.status === undefined ? 0 : PET_STATUSES.indexOf(query.status) + 1;
  const low = (limit << 2 | status) << 2 | CODINGS[coding];
  return query.afterId < 2 ** 40 ? query.afterId * 4096 + low : `${query.afterId}.${low}`;
}
