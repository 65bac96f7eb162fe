/**
 * The response cache: the bytes of immutable responses (full list pages, single pets), each in
 * the coding it is sent in, within a budget of bytes (`CACHE_BYTES`). Least recently used
 * entries go first; a JavaScript Map keeps insertion order, so moving an entry to the end on
 * every hit makes the first key the least recently used one.
 *
 * Only immutable responses may enter: an entry is never invalidated, only evicted. A budget of
 * 0 keeps nothing, and a body larger than the budget is simply not kept.
 */

/** A response kept in the cache: its body in its coding, and what its headers need. */
export interface CachedResponse {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly etag: string;
  /** `identity`, `br` or `gzip`. */
  readonly coding: string;
  /** The `Link` header of a list page (its `next`), if any. */
  readonly link: string | undefined;
}

/**
 * What an entry costs beyond its body: the key string, the Map slot and the entry object, the
 * tag and link strings. An estimate that keeps many tiny entries (single pets) honest against
 * the budget.
 */
export const ENTRY_OVERHEAD_BYTES = 256;

/** A byte-bounded LRU map from request keys to cached responses. */
export class ResponseCache {
  readonly #entries = new Map<string, CachedResponse>();
  readonly #capacity: number;
  #bytes = 0;

  /** `capacity`: the most bytes the entries may take, overhead included; 0 keeps nothing. */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Bytes the entries take now, overhead included. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Number of entries. */
  get size(): number {
    return this.#entries.size;
  }

  /** The entry for `key`, now the most recently used, or undefined. */
  get(key: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /** Keeps `entry` under `key` unless it alone exceeds the budget; evicts the oldest to fit. */
  set(key: string, entry: CachedResponse): void {
    const cost = costOf(key, entry);
    if (cost > this.#capacity) return;
    const before = this.#entries.get(key);
    if (before !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= costOf(key, before);
    }
    for (const [oldKey, oldEntry] of this.#entries) {
      if (this.#bytes + cost <= this.#capacity) break;
      this.#entries.delete(oldKey);
      this.#bytes -= costOf(oldKey, oldEntry);
    }
    this.#entries.set(key, entry);
    this.#bytes += cost;
  }
}

function costOf(key: string, entry: CachedResponse): number {
  return entry.body.byteLength + key.length + ENTRY_OVERHEAD_BYTES;
}
