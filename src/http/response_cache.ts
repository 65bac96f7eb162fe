/** The cache of full list pages (immutable, never invalidated), within `CACHE_BYTES`. */

/** A response kept in the cache: its body in its coding, and what its headers need. */
export interface CachedResponse {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly etag: string;
  readonly coding: string;
  /** The `Link` header of a list page (its `next`), if any. */
  readonly link: string | undefined;
}

/** An estimate of an entry's cost beyond body and key. */
export const ENTRY_OVERHEAD_BYTES = 256;

type Key = number | string;

interface Node {
  readonly key: Key;
  entry: CachedResponse;
  cost: number;
  newer: Node | undefined;
  older: Node | undefined;
}

/**
 * A byte-bounded LRU with TinyLFU's doorkeeper: a response enters on its key's second miss within
 * `admissionWindow` misses. Recency is a list: reordering the Map left slots evictions walked.
 */
export class ResponseCache {
  readonly #nodes = new Map<Key, Node>();
  readonly #capacity: number;
  readonly #window: number;
  #bytes = 0;
  #newest: Node | undefined;
  #oldest: Node | undefined;
  #seen = new Set<Key>();

  /** `capacity` in bytes, overhead included. */
  constructor(capacity: number, admissionWindow = 10_000) {
    this.#capacity = capacity;
    this.#window = admissionWindow;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#nodes.size;
  }

  /** The entry for `key`, now the most recently used, or undefined. */
  get(key: Key): CachedResponse | undefined {
    const node = this.#nodes.get(key);
    if (node === undefined) return undefined;
    if (node !== this.#newest) {
      this.#unlink(node);
      this.#pushNewest(node);
    }
    return node.entry;
  }

  /** Keeps `entry` under `key` if the doorkeeper admits it (the key missed before). */
  offer(key: Key, entry: CachedResponse): void {
    if (this.#seen.has(key)) {
      this.#seen.delete(key);
      this.set(key, entry);
      return;
    }
    // Starting over keeps this a Set lookup and an add.
    if (this.#seen.size >= this.#window) this.#seen = new Set();
    this.#seen.add(key);
  }

  /** Keeps `entry` unless it alone exceeds the budget, evicting the oldest to fit. */
  set(key: Key, entry: CachedResponse): void {
    const cost = entry.body.byteLength + (typeof key === "string" ? key.length : 8) +
      ENTRY_OVERHEAD_BYTES;
    if (cost > this.#capacity) return;
    const before = this.#nodes.get(key);
    if (before !== undefined) this.#remove(before);
    while (this.#oldest !== undefined && this.#bytes + cost > this.#capacity) {
      this.#remove(this.#oldest);
    }
    const node: Node = { key, entry, cost, newer: undefined, older: undefined };
    this.#nodes.set(key, node);
    this.#bytes += cost;
    this.#pushNewest(node);
  }

  #remove(node: Node): void {
    this.#unlink(node);
    this.#nodes.delete(node.key);
    this.#bytes -= node.cost;
  }

  #unlink(node: Node): void {
    if (node.newer === undefined) this.#newest = node.older;
    else node.newer.older = node.older;
    if (node.older === undefined) this.#oldest = node.newer;
    else node.older.newer = node.newer;
    node.newer = undefined;
    node.older = undefined;
  }

  #pushNewest(node: Node): void {
    node.older = this.#newest;
    if (this.#newest === undefined) this.#oldest = node;
    else this.#newest.newer = node;
    this.#newest = node;
  }
}
