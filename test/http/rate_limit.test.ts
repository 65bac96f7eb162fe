import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpError } from "../../src/http/errors.ts";
import { enforceRateLimit, RateLimiter } from "../../src/http/rate_limit.ts";

function clockAt(start = 1_000_000) {
  const clock = { now: start, read: () => clock.now };
  return clock;
}

describe("RateLimiter", () => {
  it("take() allows a burst of `limit` requests, then refuses with a retry delay", () => {
    const clock = clockAt();
    const limiter = new RateLimiter({ limit: 3, clock: clock.read });
    assert.deepEqual(
      [1, 2, 3].map(() => limiter.take("k").allowed),
      [true, true, true],
    );
    const refused = limiter.take("k");
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.equal(refused.retryAfterSeconds, 20, "one token per 60/3 s");
    assert.equal(refused.resetSeconds, 60);
  });

  it("take() refills at limit per minute and never above limit", () => {
    const clock = clockAt();
    const limiter = new RateLimiter({ limit: 60, clock: clock.read });
    for (let i = 0; i < 60; i++) assert.ok(limiter.take("k").allowed);
    assert.equal(limiter.take("k").allowed, false);
    clock.now += 1_000;
    assert.equal(limiter.take("k").allowed, true, "one token per second");
    assert.equal(limiter.take("k").allowed, false);
    clock.now += 10 * 60_000;
    assert.equal(limiter.take("k").remaining, 59, "capped at the burst");
  });

  it("take() keeps one bucket per key", () => {
    const clock = clockAt();
    const limiter = new RateLimiter({ limit: 1, clock: clock.read });
    assert.ok(limiter.take("a").allowed);
    assert.ok(limiter.take("b").allowed);
    assert.equal(limiter.take("a").allowed, false);
  });

  it("take() mints no tokens when the clock steps back", () => {
    const clock = clockAt();
    const limiter = new RateLimiter({ limit: 1, clock: clock.read });
    assert.ok(limiter.take("k").allowed);
    clock.now -= 3_600_000;
    assert.equal(limiter.take("k").allowed, false);
  });

  it("drops buckets that have refilled, so memory stays bounded by active keys", () => {
    const clock = clockAt();
    const limiter = new RateLimiter({ limit: 10, clock: clock.read });
    for (let i = 0; i < 1000; i++) limiter.take(`key-${i}`);
    assert.equal(limiter.size, 1000);
    clock.now += 61_000;
    limiter.take("fresh");
    assert.equal(limiter.size, 1);
  });

  it("enforceRateLimit() returns the draft-10 headers and throws 429 rate_limited with them and Retry-After", () => {
    const clock = clockAt();
    const limiter = new RateLimiter({ limit: 2, clock: clock.read });
    const headers = enforceRateLimit(limiter, "k");
    assert.equal(headers["ratelimit-policy"], '"per-key";q=2;w=60');
    assert.equal(headers["ratelimit"], '"per-key";r=1;t=30');
    enforceRateLimit(limiter, "k");
    assert.throws(() => enforceRateLimit(limiter, "k"), (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.equal(error.status, 429);
      assert.equal(error.code, "rate_limited");
      assert.equal(error.headers?.["retry-after"], "30");
      // The 429 carries the rate-limit headers too.
      assert.equal(error.headers?.["ratelimit"], '"per-key";r=0;t=60');
      return true;
    });
  });
});
