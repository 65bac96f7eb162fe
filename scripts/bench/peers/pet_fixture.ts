/**
 * What every peer server of `scripts/bench/bench.ts` shares, so the peers differ from each other (and
 * from our service) only in their framework: the benchmark's pets and key, the fixed body of the
 * bare "ceiling" servers, bearer auth (a Set lookup of the key, as a framework user checks one),
 * the TypeBox NewPet check, a signed cursor, and an in-memory store that finds a page by binary
 * search. Dev-only code: nothing under `src/` imports it.
 *
 * The pets are the same as those `scripts/bench/bench.ts` writes into our service's data file, in the
 * same field order, so a first page is byte for byte the same body everywhere.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import process from "node:process";
import { Type } from "typebox";
import { Compile } from "typebox/compile";

/** The API key every benchmark request sends. */
export const BENCH_KEY = "bench-key-0123456789abcdef";

/** How many pets each server starts with (`PET_COUNT` overrides). */
export const PET_COUNT = Number(process.env.PET_COUNT ?? 1000);

export const STATUSES = ["available", "pending", "sold"] as const;
export type Status = (typeof STATUSES)[number];

/** A pet as the peers hold it (categoryId as a JS number: the peers do not keep exact int64). */
export interface BenchPet {
  id: number;
  name: string;
  categoryId: number;
  status?: Status;
}

/** The status of pet `id`: a quarter each of available, pending, sold and none. */
export function statusOf(id: number): Status | undefined {
  return [undefined, "available", "pending", "sold"][id % 4] as Status | undefined;
}

/** Pet `id` of the benchmark data set (fields in the order our service writes them). */
export function benchPet(id: number): BenchPet {
  const status = statusOf(id);
  const pet: BenchPet = { id, name: `Pet ${id}`, categoryId: id * 7919 };
  if (status !== undefined) pet.status = status;
  return pet;
}

/** The body of a first page of 20: what the bare servers answer to everything. */
export function fixedPageBody(): string {
  return JSON.stringify(Array.from({ length: 20 }, (_, i) => benchPet(i + 1)));
}

/** Environment of a peer: where to listen. */
export function listenAddress(): { port: number; host: string } {
  return { port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? "127.0.0.1" };
}

// --- auth -------------------------------------------------------------------------------------

/**
 * The accepted keys. A framework user checks a bearer key with a Set or Map lookup, as our
 * service does once a key has passed its first constant-time check: no hash per request.
 */
export const ACCEPTED_KEYS: ReadonlySet<string> = new Set([BENCH_KEY]);
const BEARER_PREFIX = "Bearer ";

/** The token of a `Bearer <token>` header, or undefined. */
export function bearerToken(authorization: string | null | undefined): string | undefined {
  return authorization != null && authorization.startsWith(BEARER_PREFIX)
    ? authorization.slice(BEARER_PREFIX.length)
    : undefined;
}

/** True when `authorization` carries an accepted key. */
export function isAuthorized(authorization: string | null | undefined): boolean {
  const token = bearerToken(authorization);
  return token !== undefined && ACCEPTED_KEYS.has(token);
}

export const UNAUTHORIZED_BODY = '{"code":"unauthorized","message":"Invalid API key","status":401}';

// --- validation -------------------------------------------------------------------------------

/** NewPet as a framework user would write it in TypeBox (categoryId as a safe integer). */
export const NewPetSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  categoryId: Type.Integer({
    minimum: Number.MIN_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
  }),
  status: Type.Optional(Type.Enum([...STATUSES])),
}, { additionalProperties: false });

const newPetCheck = Compile(NewPetSchema);

/** True when `value` is a valid NewPet. */
export function isNewPet(value: unknown): value is Omit<BenchPet, "id"> {
  return newPetCheck.Check(value);
}

// --- query and cursor -------------------------------------------------------------------------

const LIMIT = /^[1-9][0-9]{0,2}$/;
const CURSOR_SALT = "bench-peer/cursor";

function checksum(payload: string): string {
  return createHash("sha256").update(CURSOR_SALT).update(payload).digest("base64url").slice(0, 16);
}

/** A signed cursor after `afterId` for `status`. */
export function encodeCursor(afterId: number, status: Status | undefined): string {
  const payload = `${afterId}.${status ?? ""}`;
  return `${Buffer.from(payload).toString("base64url")}.${checksum(payload)}`;
}

/** The list query, or a message saying why it is refused. */
export function parseListQuery(
  get: (name: string) => string | undefined | null,
): { limit: number; status: Status | undefined; afterId: number } | string {
  const rawLimit = get("limit") ?? undefined;
  const rawStatus = get("status") ?? undefined;
  const rawCursor = get("cursor") ?? undefined;
  let limit = 20;
  if (rawLimit !== undefined) {
    limit = Number(rawLimit);
    if (!LIMIT.test(rawLimit) || limit > 100) return "limit must be an integer from 1 to 100";
  }
  if (rawStatus !== undefined && !(STATUSES as readonly string[]).includes(rawStatus)) {
    return "status must be available, pending or sold";
  }
  const status = rawStatus as Status | undefined;
  let afterId = 0;
  if (rawCursor !== undefined) {
    const dot = rawCursor.indexOf(".");
    const payload = Buffer.from(rawCursor.slice(0, Math.max(dot, 0)), "base64url").toString();
    const [id, cursorStatus] = payload.split(".");
    if (dot <= 0 || checksum(payload) !== rawCursor.slice(dot + 1)) return "cursor is not valid";
    if ((cursorStatus || undefined) !== status) return "cursor belongs to another status";
    afterId = Number(id);
  }
  return { limit, status, afterId };
}

/** The `Link` header of the next page. */
export function nextLink(
  query: { limit: number; status: Status | undefined },
  lastId: number,
): string {
  const status = query.status === undefined ? "" : `status=${query.status}&`;
  return `</v1/pets?limit=${query.limit}&${status}cursor=${
    encodeCursor(lastId, query.status)
  }>; rel="next"`;
}

/** Headers of the deprecated `GET /v1/pets/{id}`, as our service sends them. */
export const DEPRECATION_HEADERS: Record<string, string> = {
  deprecation: "@1767225600",
  sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
  link: '</v1/pets>; rel="successor-version"',
};

// --- store ------------------------------------------------------------------------------------

/** Pets in id order, plus one id-ordered array per status; pages by binary search. */
export class PetMemoryStore {
  readonly #all: BenchPet[] = [];
  readonly #byStatus = new Map<Status, BenchPet[]>(STATUSES.map((status) => [status, []]));

  constructor(count = PET_COUNT) {
    for (let id = 1; id <= count; id++) this.#add(benchPet(id));
  }

  #add(pet: BenchPet): void {
    this.#all.push(pet);
    if (pet.status !== undefined) this.#byStatus.get(pet.status)!.push(pet);
  }

  /** One page after `afterId`; `hasMore` when another matching pet follows. */
  list(query: { status: Status | undefined; afterId: number; limit: number }) {
    const pets = query.status === undefined ? this.#all : this.#byStatus.get(query.status)!;
    let low = 0, high = pets.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (pets[middle].id <= query.afterId) low = middle + 1;
      else high = middle;
    }
    return {
      pets: pets.slice(low, low + query.limit),
      hasMore: low + query.limit < pets.length,
    };
  }

  get(id: number): BenchPet | undefined {
    return this.#all[id - 1];
  }

  create(fields: Omit<BenchPet, "id">): BenchPet {
    const pet: BenchPet = { id: this.#all.length + 1, ...fields };
    this.#add(pet);
    return pet;
  }
}

/** A pet id from a path segment (1 to 2^53−1), or undefined. */
export function parsePetId(segment: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(segment)) return undefined;
  const id = Number(segment);
  return Number.isSafeInteger(id) ? id : undefined;
}
