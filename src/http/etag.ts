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
import { digest64Hex } from "./digest64.ts";

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
 * The facts' digest in quotes (digest64.ts). Not a cryptographic hash: a collision could only
 * matter between two versions of the same URL's response (a handful, differing in count or
 * `next`), and a client can only fool itself by forging a tag.
 */
function quoted(text: string): string {
  return `"${digest64Hex(text)}"`;
}
