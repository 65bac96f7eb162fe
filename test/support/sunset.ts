/**
 * The deprecated `GET /pets/{petId}` answers 410 from its sunset on (5 December 2030). Tests that
 * call it on a service running on the real clock assert the answer for the day they run on, so
 * they do not start failing on that date.
 */
import assert from "node:assert/strict";
import { SUNSET_AT } from "../../src/http/deprecation.ts";

/** True when a service on the real clock is past the sunset of the deprecated route. */
export function pastSunset(now = Date.now()): boolean {
  return now >= SUNSET_AT;
}

/** The status a service on the real clock answers to a `GET /pets/{petId}` of a known pet. */
export function knownPetStatus(): 200 | 410 {
  return pastSunset() ? 410 : 200;
}

/**
 * Asserts a `GET /pets/{petId}` answer of a service on the real clock: before the sunset, 200
 * with `expected` as body (when given); from the sunset on, 410 `gone`.
 */
export async function assertPetGet(response: Response, expected?: string): Promise<void> {
  const text = await response.text();
  if (pastSunset()) {
    assert.equal(response.status, 410, text);
    assert.equal(JSON.parse(text).code, "gone");
    return;
  }
  assert.equal(response.status, 200, text);
  if (expected !== undefined) assert.equal(text, expected);
}

/**
 * A clock for app tests that runs like the real one but always stands before the sunset: shifted
 * back by whole years once the real date comes within a year of it.
 */
export function clockBeforeSunset(real: () => number = Date.now): () => number {
  const year = 365 * 24 * 3600 * 1000;
  const shift = Math.max(0, Math.ceil((real() - (SUNSET_AT - year)) / year) * year);
  return () => real() - shift;
}
