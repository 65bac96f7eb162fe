/**
 * The shape of a list page that the store builds and the conditional GET serves: http/ and store/
 * do not import each other, so what they exchange is written here, once.
 */
import type { PetStatus } from "./pet.ts";

/** A value now, or a promise of it: a store answers reads from memory or from a database. */
export type MaybePromise<T> = T | Promise<T>;

/** Which pets a page holds: ids strictly greater than `afterId`, at most `limit` of them. */
export interface PageQuery {
  readonly status: PetStatus | undefined;
  readonly afterId: number;
  readonly limit: number;
}

/** One page, in ascending id order, already serialised: the JSON array of Pet, in UTF-8. */
export interface PetPageJson {
  /** `[pet,pet,…]`: the pets' `json` texts joined. */
  readonly body: Uint8Array<ArrayBuffer>;
  /** Ids of the page's first and last pet (0 for an empty page); the next page starts after. */
  readonly firstId: number;
  readonly lastId: number;
  readonly count: number;
  /** True when at least one more matching pet exists after the last one of this page. */
  readonly hasMore: boolean;
}

/**
 * What fixes a list page's bytes: the request's position and filter, the first and last ids
 * served (0 when none), their count, and whether a `next` link is sent.
 */
export type PageFacts = PageQuery & Omit<PetPageJson, "body">;
