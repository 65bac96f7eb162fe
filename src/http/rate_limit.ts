/**
 * `RATE_LIMIT`: a token bucket per API key. Each key may send `limit` requests per minute, in a
 * burst of up to `limit`: the bucket holds at most `limit` tokens and refills continuously at
 * `limit` per 60 s. Buckets exist only for keys that authenticated (so strangers cannot fill
 * the map), and a bucket that has refilled completely is dropped: it is the same as no bucket.
 *
 * Headers follow draft-ietf-httpapi-ratelimit-headers-10 (structured-field lists):
 * `RateLimit-Policy: "per-key";q=<limit>;w=60` and `RateLimit: "per-key";r=<remaining>;t=<s>`,
 * where `t` is the seconds until the bucket is full again.
 */
import { HttpError } from "./errors.ts";
import type { HeaderTarget } from "./responses.ts";

const WINDOW_MS = 60_000;
/** Sweep full buckets at most this often (clock time), so the map never outgrows active keys. */
const SWEEP_INTERVAL_MS = WINDOW_MS;
/** The name of the one policy, shared by both header fields. */
const POLICY = '"per-key"';

/** The outcome of taking one token. */
export interface RateDecision {
  readonly allowed: boolean;
  /** Whole tokens left after this request. */
  readonly remaining: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
  /** Seconds until the next token, when refused. */
  readonly retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Token buckets per key; `clock` is injectable so tests can move time. */
export class RateLimiter {
  readonly limit: number;
  private readonly clock: () => number;
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private lastSweep: number;

  constructor(options: { limit: number; clock: () => number }) {
    if (!Number.isSafeInteger(options.limit) || options.limit < 1) {
      throw new Error(`Invalid rate limit: ${options.limit}`);
    }
    this.limit = options.limit;
    this.clock = options.clock;
    this.perMs = options.limit / WINDOW_MS;
    this.lastSweep = options.clock();
  }

  /** Number of buckets held (for tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }

  /** Takes one token for `key` if there is one. */
  take(key: string): RateDecision {
    const now = this.clock();
    this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.limit, updatedAt: now };
    // A clock that steps back (tests, NTP) must not mint tokens: elapsed is never negative.
    const elapsed = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(this.limit, bucket.tokens + elapsed * this.perMs);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    return this.decisionFor(bucket, allowed);
  }

  /**
   * Gives back the token a request took (a 304 costs no quota, as on GitHub's API). Checking
   * first and refunding after keeps one path: a key with no token left is refused whatever the
   * request would have answered.
   */
  refund(key: string): RateDecision {
    const bucket = this.buckets.get(key) ?? { tokens: this.limit - 1, updatedAt: this.clock() };
    bucket.tokens = Math.min(this.limit, bucket.tokens + 1);
    this.buckets.set(key, bucket);
    return this.decisionFor(bucket, true);
  }

  private decisionFor(bucket: Bucket, allowed: boolean): RateDecision {
    const missing = this.limit - bucket.tokens;
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil(missing / this.perMs / 1000),
      retryAfterSeconds: allowed
        ? 0
        : Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)),
    };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.perMs >= this.limit) {
        this.buckets.delete(key);
      }
    }
  }
}

/**
 * Counts a request of the key `key` and sets the rate-limit headers in `headers`; over the limit
 * throws 429 `rate_limited` with `Retry-After` (RFC 9110 §10.2.3, delay in seconds).
 */
export function enforceRateLimit(
  limiter: RateLimiter,
  key: string,
  headers: HeaderTarget,
): void {
  const decision = limiter.take(key);
  setRateLimitHeaders(limiter, decision, headers);
  if (!decision.allowed) {
    throw new HttpError(
      429,
      "rate_limited",
      `Rate limit of ${limiter.limit} requests per minute exceeded; retry in ${decision.retryAfterSeconds} s`,
      { headers: { "retry-after": String(decision.retryAfterSeconds) } },
    );
  }
}

/** Refunds the token of a request of `key` that cost nothing (a 304) and updates the headers. */
export function refundRateLimit(limiter: RateLimiter, key: string, headers: HeaderTarget): void {
  setRateLimitHeaders(limiter, limiter.refund(key), headers);
}

function setRateLimitHeaders(
  limiter: RateLimiter,
  decision: RateDecision,
  headers: HeaderTarget,
): void {
  headers.set("ratelimit-policy", `${POLICY};q=${limiter.limit};w=${WINDOW_MS / 1000}`);
  headers.set("ratelimit", `${POLICY};r=${decision.remaining};t=${decision.resetSeconds}`);
}
