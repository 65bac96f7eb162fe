/**
 * The three pet endpoints in Elysia on Bun, as an Elysia user would write them: bearer auth in
 * `onRequest` (before the body is parsed), `t.Object` (Elysia's TypeBox) for the body, objects
 * returned as JSON. Listens on `HOST`:`PORT`. Dev-only benchmark peer.
 */
import { Elysia } from "elysia";
import { ElysiaNewPet } from "./elysia_new_pet.ts";
import {
  DEPRECATION_HEADERS,
  isAuthorized,
  listenAddress,
  nextLink,
  parseListQuery,
  parsePetId,
  PetMemoryStore,
  UNAUTHORIZED_BODY,
} from "./pet_fixture.ts";

const store = new PetMemoryStore();
const { port, host } = listenAddress();

new Elysia()
  .onRequest(({ request }) => {
    if (!isAuthorized(request.headers.get("authorization"))) {
      return new Response(UNAUTHORIZED_BODY, {
        status: 401,
        headers: {
          "content-type": "application/json",
          "www-authenticate": 'Bearer realm="animal-store"',
        },
      });
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
  }, {
    body: ElysiaNewPet,
  })
  .listen({ port, hostname: host });
