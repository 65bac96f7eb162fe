/**
 * The conditional GET of the two cacheable reads, list page and single pet: the coding, the strong
 * tag from the store's facts, a 304 when the client holds it, compression, and the byte cache of
 * full pages. A 304 carries the headers the 200 would have (RFC 9110 §15.4.5).
 */
import type { MaybePromise, PageFacts, PetPageJson } from "../schemas/page.ts";
import { compressBody, COMPRESSION_THRESHOLD, type ContentCoding } from "./compression.ts";
import { type BrotliEncoder } from "../runtime/contract.ts";
import { digest64Hex } from "./digest64.ts";
import { nextPageLink, type PageRequest } from "./pagination.ts";
import type { ReplyHeaders } from "./responses.ts";
import type { AppRequest, Reply } from "../runtime/contract.ts";
import { type CachedResponse, ResponseCache } from "./response_cache.ts";

// ---- Entity tags (RFC 9110 §8.8.3) ----
//
// From the store's facts, never the bytes: the ids served, whether a `next` link exists and the
// coding fix the bytes exactly, so every runtime and instance gives the same tag after a restart.

/** Stands for what else shapes the bytes (the Pet JSON layout, the levels): a change bumps it. */
export const FORMAT_VERSION = "animal-store/etag/1";

/** The tag of a list page sent in `coding`. */
export function pageTag(facts: PageFacts, coding: ContentCoding): string {
  const text = `${facts.status ?? ""}|${facts.afterId}|${facts.limit}|${facts.firstId}|` +
    `${facts.lastId}|${facts.count}|${facts.hasMore ? 1 : 0}|${coding}`;
  return `"${digest64Hex(`${FORMAT_VERSION}|page|${text}`)}"`;
}

/** The tag of the pet `id` sent in `coding` (a pet's bytes never change). */
export function petTag(id: number, coding: ContentCoding): string {
  return `"${digest64Hex(`${FORMAT_VERSION}|pet|${id}|${coding}`)}"`;
}

// ---- If-None-Match (RFC 9110 §13.1.2) ----

/** True when `header` (tags, or `*`) matches `etag` the weak way; a malformed one matches nothing. */
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

// ---- Accept-Encoding (RFC 9110 §12.5.3) ----

const QVALUE = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The coding a compressible body is sent in: q-values honoured, `*` for every coding not named, br
 * winning a tie; without the header, or nothing acceptable, none (§12.5.3).
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
    // First: a cached page too is refused while the store loads or the service drains.
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
    key: string | undefined,
  ): Reply {
    const coding = built.body.byteLength > COMPRESSION_THRESHOLD ? wanted : "identity";
    const { firstId, lastId, count, hasMore } = built;
    const etag = pageTag({ ...query, firstId, lastId, count, hasMore }, coding);
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

  // A pet is not kept in the cache: its JSON stays under the compression threshold, so it goes
  // out as the string the store holds, and Accept-Encoding is read only for a larger body.
  function pet(context: ReadContext, id: number): MaybePromise<Reply | undefined> {
    const stored = context.store().get(id);
    return stored instanceof Promise
      ? stored.then((pet) => pet && petReply(context, id, pet.json))
      : stored && petReply(context, id, stored.json);
  }

  function petReply(context: ReadContext, id: number, json: string): Reply {
    let body: string | Uint8Array<ArrayBuffer> = json;
    let coding: ContentCoding = "identity";
    if (json.length * 3 > COMPRESSION_THRESHOLD) {
      const bytes = encoder.encode(json);
      if (bytes.byteLength > COMPRESSION_THRESHOLD) {
        coding = negotiateCoding(context.request.headers.get("accept-encoding"));
        body = compressBody(bytes, coding, "once", brotli);
      }
    }
    const etag = petTag(id, coding);
    return reply(context, { body, etag, coding, link: undefined });
  }

  return { page, pet };
}

const encoder = new TextEncoder();

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

/** The cache key of a page: all its response depends on (`limitGiven` shows in `next`). */
function pageKey(query: PageRequest, coding: ContentCoding): string {
  const { afterId, status, limit, limitGiven } = query;
  return `${afterId}|${status ?? ""}|${limit}|${limitGiven ? 1 : 0}|${coding}`;
}
