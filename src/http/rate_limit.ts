/** `RATE_LIMIT`: a token bucket per key, refilled per minute; draft ratelimit-headers-10. */
import { HttpError } from "./errors.ts";
import { ERROR_MESSAGES } from "../schemas/error.ts";

const WINDOW_MS = 60_000;
const POLICY = '"per-key"';

interface RateDecision {
  readonly allowed: boolean;
  /** Whole tokens left after this request. */
  readonly remaining: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
  /** Seconds until the next token when refused, else 0. */
  readonly retryAfterSeconds: number;
}

type Bucket = { tokens: number; updatedAt: number };

/** Token buckets per key; `clock` is injectable so tests can move time. */
export class RateLimiter {
  readonly limit: number;
  readonly #clock: () => number;
  readonly #buckets = new Map<string, Bucket>();
  readonly #perMs: number;
  #lastSweep: number;

  constructor(options: { limit: number; clock: () => number }) {
    if (!Number.isSafeInteger(options.limit) || options.limit < 1) {
      throw new Error(`Invalid rate limit: ${options.limit}`);
    }
    this.limit = options.limit;
    this.#clock = options.clock;
    this.#perMs = options.limit / WINDOW_MS;
    this.#lastSweep = options.clock();
  }

  get size(): number {
    return this.#buckets.size;
  }

  take(key: string): RateDecision {
    const now = this.#clock();
    // Full buckets are swept once a window, so the map never outgrows the active keys.
    if (now - this.#lastSweep >= WINDOW_MS) {
      this.#lastSweep = now;
      for (const [key, bucket] of this.#buckets) {
        if (bucket.tokens + (now - bucket.updatedAt) * this.#perMs >= this.limit) {
          this.#buckets.delete(key);
        }
      }
    }
    const bucket = this.#buckets.get(key) ?? { tokens: this.limit, updatedAt: now };
    // A clock that steps back (tests, NTP) must not mint tokens.
    const elapsed = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(this.limit, bucket.tokens + elapsed * this.#perMs);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.#buckets.set(key, bucket);
    return this.#decision(bucket, allowed);
  }

  /** Gives back a request's token (a 304 costs no quota): the headers after that. */
  refund(key: string): Record<string, string> {
    const bucket = this.#buckets.get(key) ?? { tokens: this.limit - 1, updatedAt: this.#clock() };
    bucket.tokens = Math.min(this.limit, bucket.tokens + 1);
    this.#buckets.set(key, bucket);
    return this.headers(this.#decision(bucket, true));
  }

  /** The `RateLimit-Policy` and `RateLimit` headers of a decision. */
  headers(decision: RateDecision): Record<string, string> {
    return {
      "ratelimit-policy": `${POLICY};q=${this.limit};w=${WINDOW_MS / 1000}`,
      ratelimit: `${POLICY};r=${decision.remaining};t=${decision.resetSeconds}`,
    };
  }

  #decision(bucket: Bucket, allowed: boolean): RateDecision {
    const toSeconds = (tokens: number) => Math.ceil(tokens / this.#perMs / 1000);
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: toSeconds(this.limit - bucket.tokens),
      retryAfterSeconds: allowed ? 0 : Math.max(1, toSeconds(1 - bucket.tokens)),
    };
  }
}

/** Takes a token of `key`: its headers, or 429 with them and `Retry-After` (RFC 9110 §10.2.3). */
export function enforceRateLimit(limiter: RateLimiter, key: string): Record<string, string> {
  const decision = limiter.take(key);
  const headers = limiter.headers(decision);
  if (decision.allowed) return headers;
  const retry = decision.retryAfterSeconds;
  headers["retry-after"] = String(retry);
  const message = ERROR_MESSAGES.rateLimited(limiter.limit, retry);
  throw new HttpError(429, "rate_limited", message, { headers });
}
