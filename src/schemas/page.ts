/** The list page the store builds and the conditional GET serves (http/ and store/ meet here). */
import type { PetStatus } from "./pet.ts";

/** A value now, or a promise of it: a store answers from memory or from a database. */
export type MaybePromise<T> = T | Promise<T>;

/** Which pets a page holds: ids strictly greater than `afterId`, at most `limit` of them. */
export interface PageQuery {
  readonly status: PetStatus | undefined;
  readonly afterId: number;
  readonly limit: number;
}

/** One page in ascending id order, already the UTF-8 JSON array of its pets' texts. */
export interface PetPageJson {
  readonly body: Uint8Array<ArrayBuffer>;
  /** Ids of the page's first and last pet (0 for an empty page). */
  readonly firstId: number;
  readonly lastId: number;
  readonly count: number;
  /** At least one more matching pet follows. */
  readonly hasMore: boolean;
}

/** What fixes a list page's bytes, so its ETag. */
export type PageFacts = PageQuery & Omit<PetPageJson, "body">;
