/**
 * The typed client users can copy: types generated from the served document
 * (`scripts/generate_client_types.sh` → `animal_store.d.ts`) and `openapi-fetch`, against the
 * real service process. `deno check` type-checks every call below against the document.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import createClient from "openapi-fetch";
import type { components, paths } from "./animal_store.d.ts";
import { nextLink } from "../support/link_header.ts";
import { pastSunset } from "../support/sunset.ts";
import {
  type ServiceProcess,
  startService,
  temporaryDirectory,
} from "../support/server_process.ts";

type Pet = components["schemas"]["Pet"];
type PetStatus = components["schemas"]["PetStatus"];

const KEY = "typed-client-test-key";

/** The `cursor` of a response's `Link: <…>; rel="next"`, or undefined on the last page. */
function nextCursor(response: Response): string | undefined {
  const next = nextLink(response);
  return next === undefined
    ? undefined
    : new URL(next, "http://x").searchParams.get("cursor") ?? undefined;
}

describe("typed client (openapi-typescript + openapi-fetch)", () => {
  let service: ServiceProcess;
  let dataDir: { path: string; remove: () => void };

  before(async () => {
    dataDir = temporaryDirectory();
    service = await startService({ dataDir: dataDir.path, env: { API_KEYS: KEY } });
  });

  after(async () => {
    await service?.stop();
    dataDir?.remove();
  });

  function client() {
    return createClient<paths>({
      baseUrl: `${service.url}/v1`,
      headers: { Authorization: `Bearer ${KEY}` },
    });
  }

  it("creates, lists by each status, walks the Link pages and gets one", async () => {
    const api = client();
    const statuses: PetStatus[] = ["available", "pending", "sold"];
    const created: Pet[] = [];
    for (let i = 0; i < 7; i++) {
      const { data, error, response } = await api.POST("/pets", {
        body: { name: `Pet ${i}`, categoryId: i, status: statuses[i % 3] },
        params: { header: { "Idempotency-Key": `create-${i}` } },
      });
      assert.equal(error, undefined);
      assert.equal(response.status, 201);
      assert.equal(response.headers.get("location"), `/v1/pets/${data!.id}`);
      created.push(data!);
    }
    const { data: noStatus } = await api.POST("/pets", { body: { name: "Plain", categoryId: 9 } });
    assert.equal(noStatus?.status, undefined);

    for (const status of statuses) {
      const { data, response } = await api.GET("/pets", { params: { query: { status } } });
      assert.equal(response.status, 200);
      assert.deepEqual(
        data!.map((pet) => pet.id),
        created.filter((pet) => pet.status === status).map((pet) => pet.id),
      );
    }

    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { data, response } = await api.GET("/pets", {
        params: { query: { limit: 3, cursor } },
      });
      seen.push(...data!.map((pet) => pet.id));
      cursor = nextCursor(response);
      pages++;
    } while (cursor !== undefined);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...created.map((pet) => pet.id), noStatus!.id]);

    const { data: one, error, response } = await api.GET("/pets/{petId}", {
      params: { path: { petId: created[1].id } },
    });
    // The deprecated route answers 410 from its sunset on: assert what is right on the day.
    if (pastSunset()) assert.equal(error?.code, "gone");
    else assert.deepEqual(one, created[1]);
    assert.equal(response.headers.get("sunset"), "Thu, 05 Dec 2030 00:00:00 GMT");
  });

  it("returns the Error body, typed, for an error", async () => {
    const { data, error, response } = await client().GET("/pets", {
      params: { query: { limit: 3 } },
      headers: { Authorization: "Bearer wrong" },
    });
    assert.equal(data, undefined);
    assert.equal(response.status, 401);
    assert.equal(error?.code, "unauthorized");
    assert.equal(error?.status, 401);
  });
});
