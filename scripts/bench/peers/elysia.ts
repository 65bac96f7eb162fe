/**
 * Elysia on Bun. `PEER=as-is`: as its users write the endpoints (auth in `onRequest`, `t.Object`
 * for the body, objects returned as JSON). `PEER=same-work`: also our contract's duties in
 * Elysia's idiom (`onRequest` notes the start in a per-request store as Elysia's logger plugins
 * do, sets the headers and checks the key; `onAfterResponse` logs; ETag, Cache-Control, Vary, 304).
 */
import { Elysia, t } from "elysia";
import {
  acceptedKey,
  createRequestLog,
  DEPRECATION_HEADERS,
  durationSince,
  isAuthorized,
  listenAddress,
  nextLink,
  NO_STORE,
  NOSNIFF,
  pageTag,
  parseListQuery,
  parsePetId,
  pathOf,
  PetMemoryStore,
  petTag,
  requestIdFor,
  REVALIDATE,
  tagMatches,
  UNAUTHORIZED_BODY,
  VARIANT,
  VARY,
} from "./fixture.ts";

const NewPet = t.Object({
  name: t.String({ minLength: 1, maxLength: 200 }),
  categoryId: t.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
  status: t.Optional(t.Union([t.Literal("available"), t.Literal("pending"), t.Literal("sold")])),
}, { additionalProperties: false });

const store = new PetMemoryStore();
const { port, host } = listenAddress();
const UNAUTHORIZED = {
  "content-type": "application/json",
  "www-authenticate": 'Bearer realm="animal-store"',
};

const asIs = () =>
  new Elysia()
    .onRequest(({ request }) => {
      if (!isAuthorized(request.headers.get("authorization"))) {
        return new Response(UNAUTHORIZED_BODY, { status: 401, headers: UNAUTHORIZED });
      }
    })
    .get("/v1/pets", ({ query, set }) => {
      set.headers["cache-control"] = "no-store";
      const parsed = parseListQuery((name) => query[name]);
      if (typeof parsed === "string") {
        set.status = 400;
        return { code: "invalid_query", message: parsed, status: 400 };
      }
      const page = store.list(parsed);
      if (page.hasMore) set.headers.link = nextLink(parsed, page.pets[page.pets.length - 1].id);
      return page.pets;
    })
    .get("/v1/pets/:petId", ({ params, set }) => {
      set.headers["cache-control"] = "no-store";
      Object.assign(set.headers, DEPRECATION_HEADERS);
      const id = parsePetId(params.petId);
      const pet = id === undefined ? undefined : store.get(id);
      if (pet === undefined) {
        set.status = 404;
        return { code: "not_found", message: "No pet", status: 404 };
      }
      return pet;
    })
    .post("/v1/pets", ({ body, set }) => {
      set.headers["cache-control"] = "no-store";
      const pet = store.create(body);
      set.status = 201;
      set.headers.location = `/v1/pets/${pet.id}`;
      return pet;
    }, { body: NewPet });

/** What `onRequest` notes for `onAfterResponse`, kept in the request's context. */
interface RequestNote {
  started: number;
  requestId: string;
  key: string | undefined;
}

function sameWork() {
  const log = createRequestLog();
  const logLine = (request: Request, path: string, status: number, note: RequestNote) => {
    const { requestId, key } = note;
    const durationMs = durationSince(note.started);
    log({ method: request.method, path, status, durationMs, requestId, key });
  };
  return new Elysia()
    .state("request", undefined as RequestNote | undefined)
    .onRequest((context) => {
      const { request, set } = context;
      const note: RequestNote = {
        started: performance.now(),
        requestId: requestIdFor(request.headers.get("x-request-id")),
        key: acceptedKey(request.headers.get("authorization")),
      };
      context.store = { request: note };
      set.headers["x-request-id"] = note.requestId;
      set.headers["x-content-type-options"] = NOSNIFF;
      set.headers["cache-control"] = NO_STORE;
      if (request.url.includes("/v1/pets/")) Object.assign(set.headers, DEPRECATION_HEADERS);
      if (note.key === undefined) {
        set.status = 401;
        Object.assign(set.headers, UNAUTHORIZED);
        // Elysia (1.4.30) runs no onAfterResponse for an answer given by onRequest: log it here.
        logLine(request, pathOf(request.url), 401, note);
        return UNAUTHORIZED_BODY;
      }
    })
    .onAfterResponse(({ request, path, set, store: { request: note } }) => {
      if (note === undefined) return;
      logLine(request, path, typeof set.status === "number" ? set.status : 200, note);
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
    }, { body: NewPet });
}

(VARIANT === "same-work" ? sameWork() : asIs()).listen({ port, hostname: host });
