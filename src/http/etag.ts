/**
 * Strong entity tags (RFC 9110 §8.8.3) derived from what the store knows about a response, never
 * from its bytes: a pet never changes once created and a page is the pets after a cursor in id
 * order, so the ids served, whether a `next` link exists and the coding fix the bytes exactly.
 * The same facts give the same tag after a restart, on every runtime and on every instance of a
 * PostgreSQL deployment (the facts come from the database there).
 *
 * `FORMAT_VERSION` stands for everything else that shapes the bytes (the Pet JSON layout, the
 * compression levels): a release that changes them must change it, so that no client keeps a
 * body under a tag that now means other bytes.
 */
import type { PetStatus } from "../schemas/pet.ts";
import type { ContentCoding } from "./content_coding.ts";

/** Bump when a release changes the bytes of a response for the same pets. */
export const FORMAT_VERSION = "animal-store/etag/1";

/** What fixes a list page's bytes: the request's position and filter, and the ids served. */
export interface PageFacts {
  readonly status: PetStatus | undefined;
  readonly afterId: number;
  readonly limit: number;
  /** The first and last ids of the page (0 when it is empty). */
  readonly firstId: number;
  readonly lastId: number;
  readonly count: number;
  /** Whether a `next` link is sent (a further matching pet exists). */
  readonly hasMore: boolean;
}

/** The tag of a list page sent in `coding`. */
export function pageTag(facts: PageFacts, coding: ContentCoding): string {
  return quoted(
    `${FORMAT_VERSION}|page|${facts.status ?? ""}|${facts.afterId}|${facts.limit}|` +
      `${facts.firstId}|${facts.lastId}|${facts.count}|${facts.hasMore ? 1 : 0}|${coding}`,
  );
}

/** The tag of the pet `id` sent in `coding` (a pet's bytes never change). */
export function petTag(id: number, coding: ContentCoding): string {
  return quoted(`${FORMAT_VERSION}|pet|${id}|${coding}`);
}

/**
 * 64 bits of two multiply-xorshift lanes, as 16 hex digits in quotes. Not a cryptographic
 * hash: a collision could only matter between two versions of the same URL's response (a
 * handful, differing in count or `next`), and a client can only fool itself by forging a tag.
 */
function quoted(text: string): string {
  let a = 0x2545f491;
  let b = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x85ebca6b);
    b = Math.imul(b ^ code, 0xc2b2ae35);
  }
  a = Math.imul(a ^ (a >>> 15), 0x2c1b3c6d) ^ b;
  b = Math.imul(b ^ (b >>> 13), 0x297a2d39) ^ a;
  a = Math.imul(a ^ (a >>> 16), 0x7feb352d);
  b = Math.imul(b ^ (b >>> 16), 0x846ca68b);
  return `"${hex8(a)}${hex8(b)}"`;
}

function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, "0");
}
