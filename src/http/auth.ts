/**
 * Bearer API keys, held as SHA-256 digests and compared with every digest in constant time. An
 * accepted key is remembered to skip the hash (docs/performance.md, "Fast paths"); a wrong key
 * never is.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { HttpError } from "./errors.ts";
import { ERROR_MESSAGES } from "../schemas/error.ts";

export function keyDigest(key: string): Uint8Array {
  return createHash("sha256").update(key, "utf8").digest();
}

/** A short, non-reversible name for a key, for logs and idempotency scopes. */
export function keyFingerprint(digest: Uint8Array): string {
  return Array.from(digest.subarray(0, 6), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The set of accepted keys, by digest. Replaceable as a whole (SIGHUP reload). */
export class KeyRing {
  private digests: readonly Uint8Array[] = [];
  private fingerprints: readonly string[] = [];
  /** Presented keys already found accepted, with their fingerprints; emptied on `replace`. */
  private verified = new Map<string, string>();

  constructor(digests: readonly Uint8Array[]) {
    this.replace(digests);
  }

  replace(digests: readonly Uint8Array[]): void {
    this.digests = digests;
    this.fingerprints = digests.map(keyFingerprint);
    this.verified = new Map();
  }

  get size(): number {
    return this.digests.length;
  }

  /** The fingerprint of `key` when it was accepted before (no check now). */
  known(key: string): string | undefined {
    return this.verified.get(key);
  }

  /** The fingerprint of the accepted key that matches `key`, or undefined. */
  verify(key: string): string | undefined {
    const known = this.verified.get(key);
    if (known !== undefined) return known;
    const presented = keyDigest(key);
    const { digests, fingerprints } = this;
    let matched: string | undefined;
    for (let i = 0; i < digests.length; i++) {
      // Compare against every key: no early exit on a match.
      if (timingSafeEqual(presented, digests[i])) matched = fingerprints[i];
    }
    if (matched !== undefined) this.verified.set(key, matched);
    return matched;
  }
}

const BEARER = /^Bearer +([^\s]+) *$/i;

/** The `WWW-Authenticate` challenges of a 401: no key sent, and a key not accepted (RFC 6750). */
export const CHALLENGE_NO_KEY = 'Bearer realm="animal-store"';
export const CHALLENGE_INVALID_KEY = `${CHALLENGE_NO_KEY}, error="invalid_token"`;

/** The fingerprint of the request's key, or 401 with the challenge of RFC 6750 §3.1. */
export function authenticate(keys: KeyRing, authorization: string | null): string {
  // The usual form, one space and a key accepted before, by one lookup; anything else below.
  if (authorization !== null && authorization.startsWith("Bearer ")) {
    const known = keys.known(authorization.slice(7));
    if (known !== undefined) return known;
  }
  const token = authorization === null ? undefined : BEARER.exec(authorization)?.[1];
  if (token === undefined) {
    throw new HttpError(401, "unauthorized", ERROR_MESSAGES.missingKey, {
      headers: { "www-authenticate": CHALLENGE_NO_KEY },
    });
  }
  const fingerprint = keys.verify(token);
  if (fingerprint === undefined) {
    throw new HttpError(401, "unauthorized", "Invalid API key", {
      headers: { "www-authenticate": CHALLENGE_INVALID_KEY },
    });
  }
  return fingerprint;
}
