/**
 * The three pet endpoints in Elysia on Bun doing the duties our contract puts on each request,
 * in Elysia's idiom: `onRequest` notes the start, sets `X-Request-Id` (the same rule as ours),
 * `nosniff` and, on `/v1/pets/:petId`, the deprecation trio, then checks the key with a Map
 * lookup (before any body is parsed); `onAfterResponse` writes the request's JSON log line (the
 * same fields as ours, batched to stdout). The reads send an `ETag` made from the ids served,
 * `Cache-Control: private, no-cache` and `Vary`, and answer 304 when `If-None-Match` holds the
 * tag; a create sends `Location`. Listens on `HOST`:`PORT`. Dev-only benchmark peer.
 */
import { Elysia } from "elysia";
import { ElysiaNewPet } from "./elysia_new_pet.ts";
import {
  acceptedKey,
  createRequestLog,
  durationSince,
  NO_STORE,
  NOSNIFF,
  pageTag,
  pathOf,
  petTag,
  requestIdFor,
  REVALIDATE,
  tagMatches,
  VARY,
} from "./contract_duties.ts";
import {
  DEPRECATION_HEADERS,
  listenAddress,
  nextLink,
  parseListQuery,
  parsePetId,
  PetMemoryStore,
  UNAUTHORIZED_BODY,
} from "./pet_fixture.ts";

const store = new PetMemoryStore();
const log = createRequestLog();
const { port, host } = listenAddress();

/** What `onRequest` notes for `onAfterResponse`, kept in the request's context. */
interface RequestNote {
  started: number;
  requestId: string;
  key: string | undefined;
}

function logLine(request: Request, path: string, status: number, note: RequestNote): void {
  log({
    method: request.method,
    path,
    status,
    durationMs: durationSince(note.started),
    requestId: note.requestId,
    key: note.key,
  });
}

new Elysia()
  .state("request", undefined as RequestNote | undefined)
  .onRequest((context) => {
    const { request, set } = context;
    const note: RequestNote = {
      started: performance.now(),
      requestId: requestIdFor(request.headers.get("x-request-id")),
      key: acceptedKey(request.headers.get("authorization")),
    };
    // A per-request copy of the store: the idiom of Elysia's logger plugins for request state.
    context.store = { request: note };
    set.headers["x-request-id"] = note.requestId;
    set.headers["x-content-type-options"] = NOSNIFF;
    set.headers["cache-control"] = NO_STORE;
    if (request.url.includes("/v1/pets/")) Object.assign(set.headers, DEPRECATION_HEADERS);
    if (note.key === undefined) {
      set.status = 401;
      set.headers["content-type"] = "application/json";
      set.headers["www-authenticate"] = 'Bearer realm="animal-store"';
      // Elysia (1.4.30) runs no onAfterResponse for an answer given by onRequest: log it here.
      logLine(request, pathOf(request.url), 401, note);
      return UNAUTHORIZED_BODY;
    }
  })
  .onAfterResponse(({ request, path, set, store: { request: note } }) => {
    if (note !== undefined) {
      logLine(request, path, typeof set.status === "number" ? set.status : 200, note);
    }
  })
  .get("/v1/pets", ({ query, set, request }) => {
    const parsed = parseListQuery((name) => query[name]);
    if (typeof parsed === "string") {
      set.status = 400;
      return { code: "invalid_query", message: parsed, status: 400 };
    }
    const page = store.list(parsed);
    const etag = pageTag(parsed, page);
    set.headers.etag = etag;
    set.headers["cache-control"] = REVALIDATE;
    set.headers.vary = VARY;
    if (page.hasMore) set.headers.link = nextLink(parsed, page.pets[page.pets.length - 1].id);
    if (tagMatches(request.headers.get("if-none-match"), etag)) {
      set.status = 304;
      return;
    }
    return page.pets;
  })
  .get("/v1/pets/:petId", ({ params, set, request }) => {
    const id = parsePetId(params.petId);
    if (id === undefined) {
      set.status = 400;
      return { code: "invalid_path", message: "Bad pet id", status: 400 };
    }
    const pet = store.get(id);
    if (pet === undefined) {
      set.status = 404;
      return { code: "not_found", message: "No pet", status: 404 };
    }
    const etag = petTag(id);
    set.headers.etag = etag;
    set.headers["cache-control"] = REVALIDATE;
    set.headers.vary = VARY;
    if (tagMatches(request.headers.get("if-none-match"), etag)) {
      set.status = 304;
      return;
    }
    return pet;
  })
  .post("/v1/pets", ({ body, set }) => {
    const pet = store.create(body);
    set.status = 201;
    set.headers.location = `/v1/pets/${pet.id}`;
    return pet;
  }, {
    body: ElysiaNewPet,
  })
  .listen({ port, hostname: host });
