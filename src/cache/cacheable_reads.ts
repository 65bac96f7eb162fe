/**
 * The two cacheable reads, list page and single pet, as the routes answer them: the coding the
 * client accepts, the tag from the store's facts, a 304 when the client holds that tag, and the
 * body compressed as needed. Full pages (with a `next` link, so immutable) are served from the
 * response cache when it holds them, without asking the store; other pages are built and
 * compressed per request. A full page enters the cache the second time it is
 * asked for (admission.ts); a pet never does (see `pet`).
 *
 * The cache key names everything the cached response depends on: the route, the position and
 * filter, whether `limit` was given (it shows in the `next` link) and the negotiated coding.
 */
import { cacheableReply, notModified, okReply } from "../http/cacheable_reply.ts";
import { type BrotliEncoder, compressBody, COMPRESSION_THRESHOLD } from "../http/compression.ts";
import { type ContentCoding, negotiateCoding } from "../http/content_coding.ts";
import { ifNoneMatchMatches } from "../http/conditional.ts";
import { pageTag, petTag } from "../http/etag.ts";
import type { Reply } from "../http/responses.ts";
import type { PetStatus } from "../schemas/pet.ts";
import type { PetStore } from "../store/store.ts";
import { Admission } from "./admission.ts";
import { type CachedResponse, ResponseCache } from "./response_cache.ts";

/** Distinct missed pages remembered for admission (admission.ts): about 0.5 MB of keys. */
const ADMISSION_WINDOW = 10_000;

/** A list request as the cache sees it. */
export interface PageRequest {
  readonly status: PetStatus | undefined;
  readonly afterId: number;
  readonly limit: number;
  readonly limitGiven: boolean;
}

/** The cacheable reads over one response cache. */
export interface CacheableReads {
  /** A list page; `nextLink` makes the `Link` header from the page's last id. */
  page(
    request: Request,
    store: PetStore,
    query: PageRequest,
    nextLink: (lastId: number) => string,
  ): Promise<Reply>;
  /** The pet `id`, or undefined when the store has none. */
  pet(request: Request, store: PetStore, id: number): Promise<Reply | undefined>;
}

const encoder = new TextEncoder();

/**
 * The reads with a cache of `cacheBytes` bytes (0: no cache, same responses), br bodies made
 * with `brotli` (node:zlib's when absent).
 */
export function createCacheableReads(cacheBytes: number, brotli?: BrotliEncoder): CacheableReads {
  const cache = new ResponseCache(cacheBytes);
  const admission = new Admission(ADMISSION_WINDOW);

  async function page(
    request: Request,
    store: PetStore,
    query: PageRequest,
    nextLink: (lastId: number) => string,
  ): Promise<Reply> {
    const wanted = negotiateCoding(request.headers.get("accept-encoding"));
    const key = `l${query.limitGiven ? "" : "d"}${query.limit}.${query.status ?? ""}.` +
      `${query.afterId}.${wanted}`;
    const hit = cacheBytes > 0 ? cache.get(key) : undefined;
    if (hit !== undefined) return cacheableReply(request, hit);
    const built = await store.listJson(query);
    const coding = codingFor(built.body, wanted);
    const etag = pageTag({
      status: query.status,
      afterId: query.afterId,
      limit: query.limit,
      firstId: built.firstId,
      lastId: built.lastId,
      count: built.count,
      hasMore: built.hasMore,
    }, coding);
    // No compression for a client that holds the tag already.
    if (ifNoneMatchMatches(request.headers.get("if-none-match"), etag)) return notModified(etag);
    // A page with pets after it is full and never changes again; any other page can still grow.
    const immutable = built.hasMore;
    const response: CachedResponse = {
      body: compressBody(built.body, coding, immutable ? "once" : "per_request", brotli),
      etag,
      coding,
      link: built.hasMore ? nextLink(built.lastId) : undefined,
    };
    if (immutable && cacheBytes > 0 && admission.admit(key)) cache.set(key, response);
    // If-None-Match was checked above, against this very tag.
    return okReply(response);
  }

  // A pet is not kept in the cache: its JSON stays under the compression threshold (at most 200
  // code points of name, an int64 and a status), so it goes out as the store holds it, and
  // keeping a copy would only cost an insert and an eviction per miss (measured: the cache-hostile
  // mix of random ids and pages ran 1.5x faster on Bun without them). For the same reason the
  // request's Accept-Encoding is only read for a body that could be compressed.
  async function pet(request: Request, store: PetStore, id: number): Promise<Reply | undefined> {
    const stored = await store.get(id);
    if (stored === undefined) return undefined;
    const identity = encoder.encode(stored.json);
    const coding = identity.byteLength > COMPRESSION_THRESHOLD
      ? negotiateCoding(request.headers.get("accept-encoding"))
      : "identity";
    return cacheableReply(request, {
      body: compressBody(identity, coding, "once", brotli),
      etag: petTag(id, coding),
      coding,
      link: undefined,
    });
  }

  return { page, pet };
}

/** The coding a body goes out in: small bodies are not worth compressing. */
function codingFor(body: Uint8Array, wanted: ContentCoding): ContentCoding {
  return body.byteLength > COMPRESSION_THRESHOLD ? wanted : "identity";
}
