/**
 * The pets' JSON text, kept as UTF-8 bytes in shared buffers (the chunks replay read, and an arena
 * new lines are encoded into), not a string per pet: pages are copied from these bytes.
 */
const ARENA_BYTES = 256 * 1024;

/**
 * Decoded texts kept, one per slot of `position % RECENT_TEXTS`: a popular pet read again costs no
 * decoding (one of the get's fast paths, docs/performance.md, "Fast paths"). About a megabyte at
 * most.
 */
const RECENT_TEXTS = 1024;

const decoder = new TextDecoder();

/** Pet texts addressed by position (the order pets were added in). */
export class PetTexts {
  readonly #segments: Uint8Array[] = [];
  #segmentOf = new Uint32Array(1024);
  #startOf = new Uint32Array(1024);
  #lengthOf = new Uint16Array(1024);
  #count = 0;
  /** The position each slot's text is of (-1: none yet), and the text. */
  readonly #recentPosition = new Float64Array(RECENT_TEXTS).fill(-1);
  readonly #recentText: string[] = new Array(RECENT_TEXTS).fill("");
  /** The segment new lines are encoded into, and how much of it is taken. */
  #arena = -1;
  #arenaUsed = 0;

  /** Keeps a chunk of file bytes; returns its segment number. */
  addSegment(bytes: Uint8Array): number {
    return this.#segments.push(bytes) - 1;
  }

  get nextSegment(): number {
    return this.#segments.length;
  }

  /** The next pet's text is bytes [start, end) of a segment. */
  add(segment: number, start: number, end: number): void {
    if (this.#count === this.#segmentOf.length) this.#grow();
    this.#segmentOf[this.#count] = segment;
    this.#startOf[this.#count] = start;
    this.#lengthOf[this.#count] = end - start;
    this.#count++;
  }

  /** The pet's JSON text. A position's bytes never change, so a text once decoded stays true. */
  text(position: number): string {
    const slot = position % RECENT_TEXTS;
    if (this.#recentPosition[slot] === position) return this.#recentText[slot];
    const start = this.#startOf[position];
    const bytes = this.#segments[this.#segmentOf[position]];
    const text = decoder.decode(bytes.subarray(start, start + this.#lengthOf[position]));
    this.#recentPosition[slot] = position;
    this.#recentText[slot] = text;
    return text;
  }

  byteLength(position: number): number {
    return this.#lengthOf[position];
  }

  /** Returns the offset after the copy. */
  copyTo(position: number, target: Uint8Array, offset: number): number {
    const source = this.#segments[this.#segmentOf[position]];
    const start = this.#startOf[position];
    const end = start + this.#lengthOf[position];
    // A byte loop: for a pet's few bytes a typed-array view costs more than the copy.
    for (let i = start; i < end; i++) target[offset++] = source[i];
    return offset;
  }

  /** Free until `commit` takes it: a batch takes its bytes once encoded, so none are shared. */
  reserve(size: number): { segment: number; bytes: Uint8Array; offset: number } {
    const arena = this.#arena < 0 ? undefined : this.#segments[this.#arena];
    if (arena === undefined || arena.length - this.#arenaUsed < size) {
      this.#arena = this.addSegment(new Uint8Array(Math.max(ARENA_BYTES, size)));
      this.#arenaUsed = 0;
    }
    return { segment: this.#arena, bytes: this.#segments[this.#arena], offset: this.#arenaUsed };
  }

  commit(size: number): void {
    this.#arenaUsed += size;
  }

  #grow(): void {
    const capacity = this.#segmentOf.length * 2;
    this.#segmentOf = grown(this.#segmentOf, new Uint32Array(capacity));
    this.#startOf = grown(this.#startOf, new Uint32Array(capacity));
    this.#lengthOf = grown(this.#lengthOf, new Uint16Array(capacity));
  }
}

function grown<T extends Uint32Array | Uint16Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
