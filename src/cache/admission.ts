/**
 * Which responses earn a place in the cache: a key is admitted the second time it is asked for
 * within the last `window` distinct misses (the "doorkeeper" of TinyLFU). A page asked for once
 * never displaces one that clients keep asking for, and a cache-hostile load (random pages over a
 * large catalogue) no longer turns every miss into an insert and an eviction: that churn of
 * long-lived buffers cost a third of the throughput of such a load on Bun (measured with the
 * benchmark's mix scenario).
 */
export class Admission {
  readonly #window: number;
  #seen = new Set<string>();

  /** `window`: how many distinct missed keys are remembered before the memory starts over. */
  constructor(window: number) {
    this.#window = window;
  }

  /** True when `key` missed before within the window; otherwise remembers it and says false. */
  admit(key: string): boolean {
    if (this.#seen.has(key)) {
      this.#seen.delete(key);
      return true;
    }
    // Starting over (rather than evicting one by one) keeps this a Set lookup and an add.
    if (this.#seen.size >= this.#window) this.#seen = new Set();
    this.#seen.add(key);
    return false;
  }
}
