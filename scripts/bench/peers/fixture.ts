/**
 * What the peers share, so that they differ from each other (and from ours) only in their
 * framework: the pets (the driver writes the same ones into our data file), the key checked by a
 * Set lookup, the TypeBox NewPet check, a signed cursor, pages by binary search; and our
 * contract's per-request duties as helpers the same-work peers call from their own hooks.
 */
import { Buffer } from "node:buffer";
import { createHash, randomUUID } from "node:crypto";
import process from "node:process";
import { Type } from "typebox";
import { Compile } from "typebox/compile";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno: { serve(options: object, handler: unknown): unknown } | undefined;

export const BENCH_KEY = "bench-key-0123456789abcdef";
export const PET_COUNT = Number(process.env.PET_COUNT ?? 1000);
/** Which variant of a peer file runs: `as-is`, `same-work`, `postgres` (ceiling: `page`, `get`). */
export const VARIANT = process.env.PEER ?? "as-is";

export const STATUSES = ["available", "pending", "sold"] as const;
export type Status = (typeof STATUSES)[number];

/** A pet as the peers hold it (categoryId a JS number: no exact int64). */
export interface BenchPet {
  id: number;
  name: string;
  categoryId: number;
  status?: Status;
}

/** Pet `id`: a quarter each of available, pending, sold and no status. */
export function benchPet(id: number): BenchPet {
  const status = [undefined, "available", "pending", "sold"][id % 4] as Status | undefined;
  const pet: BenchPet = { id, name: `Pet ${id}`, categoryId: id * 7919 };
  if (status !== undefined) pet.status = status;
  return pet;
}

/** The creates' bodies: 66 bytes, and 1,500 (a runtime that drops keep-alive shows there). */
export const SMALL_BODY = '{"name":"Rex","categoryId":9007199254740991,"status":"available"}';
const LARGE_PET = `"name":"${
  "\\u732b".repeat(200)
}","categoryId":9007199254740991,"status":"sold"}`;
export const LARGE_BODY = `{${" ".repeat(1499 - LARGE_PET.length)}${LARGE_PET}`;

export function listenAddress(): { port: number; host: string } {
  return { port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? "127.0.0.1" };
}

/** Serves a fetch handler on the runtime's own server (Node: a `node:http` → `Request` bridge). */
export async function serveFetch(handle: (request: Request) => Promise<Response>): Promise<void> {
  const { port, host } = listenAddress();
  if (typeof Bun !== "undefined") return void Bun.serve({ port, hostname: host, fetch: handle });
  if (typeof Deno !== "undefined") {
    return void Deno.serve({ port, hostname: host, onListen() {} }, handle);
  }
  const { createServer } = await import("node:http");
  createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    const answer = await handle(
      new Request(`http://${host}${request.url}`, {
        method: request.method,
        headers: request.headers as Record<string, string>,
        body: request.method === "POST" ? text : undefined,
      }),
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(await answer.text());
  }).listen(port, host);
}

const ACCEPTED_KEYS: ReadonlySet<string> = new Set([BENCH_KEY]);

function bearerToken(authorization: string | null | undefined): string | undefined {
  return authorization?.startsWith("Bearer ") ? authorization.slice(7) : undefined;
}

export function isAuthorized(authorization: string | null | undefined): boolean {
  const token = bearerToken(authorization);
  return token !== undefined && ACCEPTED_KEYS.has(token);
}

export const UNAUTHORIZED_BODY = '{"code":"unauthorized","message":"Invalid API key","status":401}';

/** NewPet as a framework user would write it in TypeBox (categoryId as a safe integer). */
export const NewPetSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  categoryId: Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
  status: Type.Optional(Type.Enum([...STATUSES])),
}, { additionalProperties: false });

const newPetCheck = Compile(NewPetSchema);

export function isNewPet(value: unknown): value is Omit<BenchPet, "id"> {
  return newPetCheck.Check(value);
}

const LIMIT = /^[1-9][0-9]{0,2}$/;

function checksum(payload: string): string {
  const hash = createHash("sha256").update("bench-peer/cursor").update(payload);
  return hash.digest("base64url").slice(0, 16);
}

export function encodeCursor(afterId: number, status: Status | undefined): string {
  const payload = `${afterId}.${status ?? ""}`;
  return `${Buffer.from(payload).toString("base64url")}.${checksum(payload)}`;
}

export type ListQuery = { limit: number; status: Status | undefined; afterId: number };

/** The list query, or a message saying why it is refused. */
export function parseListQuery(get: (name: string) => string | undefined | null) {
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
  return { limit, status, afterId } as ListQuery;
}

export function nextLink(query: { limit: number; status: Status | undefined }, lastId: number) {
  const status = query.status === undefined ? "" : `status=${query.status}&`;
  const cursor = encodeCursor(lastId, query.status);
  return `</v1/pets?limit=${query.limit}&${status}cursor=${cursor}>; rel="next"`;
}

export function parsePetId(segment: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(segment)) return undefined;
  const id = Number(segment);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** Headers of the deprecated `GET /v1/pets/{id}`, as our service sends them. */
export const DEPRECATION_HEADERS: Record<string, string> = {
  deprecation: "@1767225600",
  sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
  link: '</v1/pets>; rel="successor-version"',
};

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
  list(query: ListQuery) {
    const pets = query.status === undefined ? this.#all : this.#byStatus.get(query.status)!;
    let low = 0, high = pets.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (pets[middle].id <= query.afterId) low = middle + 1;
      else high = middle;
    }
    return { pets: pets.slice(low, low + query.limit), hasMore: low + query.limit < pets.length };
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

// --- the contract's per-request duties (the same-work peers) ----------------------------------

/** Accepted key → its short fingerprint for the log line (hashed once, at start-up). */
const KEY_FINGERPRINTS: ReadonlyMap<string, string> = new Map(
  [BENCH_KEY].map((key) => [key, createHash("sha256").update(key).digest("hex").slice(0, 12)]),
);

export function acceptedKey(authorization: string | null | undefined): string | undefined {
  const token = bearerToken(authorization);
  return token === undefined ? undefined : KEY_FINGERPRINTS.get(token);
}

const REQUEST_ID = /^[A-Za-z0-9._:=-]{1,200}$/;

/** The client's `X-Request-Id` when it is 1–200 of `[A-Za-z0-9._:=-]`, otherwise a new UUID. */
export function requestIdFor(header: string | null | undefined): string {
  return header != null && REQUEST_ID.test(header) ? header : randomUUID();
}

export const NOSNIFF = "nosniff";
/** `Cache-Control` of a successful GET of a pet or a page (and its 304); `NO_STORE` elsewhere. */
export const REVALIDATE = "private, no-cache";
export const NO_STORE = "no-store";
export const VARY = "Accept-Encoding";

/** The tag of pet `id`: a pet never changes, so its id fixes its bytes. */
export const petTag = (id: number) => `"pet-${id}"`;

/** The tag of a page: the request's filter and size, the ids served and whether more follow. */
export function pageTag(query: ListQuery, page: { pets: readonly BenchPet[]; hasMore: boolean }) {
  const { pets } = page;
  const first = pets.length === 0 ? 0 : pets[0].id;
  const last = pets.length === 0 ? 0 : pets[pets.length - 1].id;
  return `"page-${query.status ?? ""}-${query.limit}-${first}-${last}-${pets.length}` +
    `${page.hasMore ? "-more" : ""}"`;
}

/** True when `ifNoneMatch` (tags, or `*`) holds `tag`, by weak comparison. */
export function tagMatches(ifNoneMatch: string | null | undefined, tag: string): boolean {
  if (ifNoneMatch == null) return false;
  if (ifNoneMatch === tag || ifNoneMatch.trim() === "*") return true;
  for (const part of ifNoneMatch.split(",")) {
    const candidate = part.trim();
    if (candidate === tag || candidate === `W/${tag}`) return true;
  }
  return false;
}

/**
 * One JSON line per request (our line's fields; `key` the key's fingerprint) on stdout, gathered
 * per event-loop turn and written in one call, as our service's logger does.
 */
export function createRequestLog(): (fields: {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  key: string | undefined;
}) => void {
  let buffer = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const text = buffer;
    buffer = "";
    if (text !== "") process.stdout.write(text);
  };
  return (fields) => {
    const time = new Date().toISOString();
    buffer += JSON.stringify({ time, level: "info", msg: "request", ...fields }) + "\n";
    if (buffer.length > 65536) return flush();
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 0);
    }
  };
}

export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}

export const durationSince = (started: number) =>
  Math.round((performance.now() - started) * 1000) / 1000;
