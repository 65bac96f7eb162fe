/** POST /v1/pets in the app: what is stored, what is refused, and the body limits. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorOf, testApp } from "../support/app.ts";

const rex = JSON.stringify({ name: "Rex", categoryId: 1, status: "available" });

describe("POST /v1/pets", () => {
  it("creates a pet: 201, the Pet, Location", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", { method: "POST", body: rex });
    assert.equal(response.status, 201);
    assert.deepEqual(await response.json(), {
      id: 1,
      name: "Rex",
      categoryId: 1,
      status: "available",
    });
    assert.equal(response.headers.get("location"), "/v1/pets/1");
  });

  it("keeps an int64 categoryId beyond 2^53 exactly", async () => {
    const { request } = testApp();
    for (const digits of ["9007199254740993", "9223372036854775807", "-9223372036854775808"]) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: `{"name":"Big","categoryId":${digits}}`,
      });
      assert.equal(response.status, 201);
      const text = await response.text();
      assert.ok(text.includes(`"categoryId":${digits}`), text);
      const id = JSON.parse(text).id;
      const fetched = await (await request(`/v1/pets/${id}`)).text();
      assert.ok(fetched.includes(`"categoryId":${digits}`), fetched);
    }
  });

  it("stores a pet without status without inventing one", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", {
      method: "POST",
      body: '{"name":"Tom","categoryId":2}',
    });
    assert.deepEqual(await response.json(), { id: 1, name: "Tom", categoryId: 2 });
    assert.deepEqual(await (await request("/v1/pets?status=available")).json(), []);
    assert.equal((await (await request("/v1/pets")).json()).length, 1);
  });

  it("stores the name exactly as sent (no trimming), counting code points", async () => {
    const { request } = testApp();
    for (const name of ["  padded ", "😀".repeat(200), "Ünïcødé 名前"]) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: JSON.stringify({ name, categoryId: 1 }),
      });
      assert.equal(response.status, 201, name);
      assert.equal((await response.json()).name, name);
    }
  });

  it("refuses invalid NewPets with 400 validation_failed naming the field", async () => {
    const { request, store } = testApp();
    const cases: [string, string][] = [
      ['{"categoryId":1}', "name"],
      ['{"name":"a"}', "categoryId"],
      ['{"name":"","categoryId":1}', "name"],
      ['{"name":"   ","categoryId":1}', "name"],
      [JSON.stringify({ name: "😀".repeat(201), categoryId: 1 }), "name"],
      ['{"name":"a\\u0000b","categoryId":1}', "name"],
      ['{"name":"a\\u0085b","categoryId":1}', "name"],
      ['{"name":"\\ud800","categoryId":1}', "name"],
      ['{"name":5,"categoryId":1}', "name"],
      ['{"name":"a","categoryId":1.5}', "categoryId"],
      ['{"name":"a","categoryId":1.0}', "categoryId"],
      ['{"name":"a","categoryId":1e3}', "categoryId"],
      ['{"name":"a","categoryId":-0}', "categoryId"],
      ['{"name":"a","categoryId":"1"}', "categoryId"],
      ['{"name":"a","categoryId":9223372036854775808}', "categoryId"],
      ['{"name":"a","categoryId":-9223372036854775809}', "categoryId"],
      ['{"name":"a","categoryId":1,"status":null}', "status"],
      ['{"name":"a","categoryId":1,"status":"lost"}', "status"],
      ['{"name":"a","categoryId":1,"color":"red"}', "color"],
      ['{"name":"a","categoryId":1,"__proto__":{"x":1}}', "__proto__"],
      ['{"name":"a","categoryId":1,"id":7}', "id"],
    ];
    for (const [body, field] of cases) {
      const response = await request("/v1/pets", { method: "POST", body });
      assert.equal(response.status, 400, body);
      const error = await errorOf(response);
      assert.equal(error.code, "validation_failed", body);
      assert.ok(error.message.includes(field), `${body}: ${error.message}`);
      assert.ok(
        error.details.some((detail: { path: string }) => detail.path === `/${field}`),
        body,
      );
    }
    assert.equal(store.pets.length, 0);
  });

  it("refuses names with U+007F or U+009F, the ends of the C1 range, as validation_failed on /name", async () => {
    const { request, store } = testApp();
    for (const name of ["a\u007fb", "\u007f", "a\u009fb", "\u009f"]) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: JSON.stringify({ name, categoryId: 1 }),
      });
      const label = JSON.stringify(name);
      assert.equal(response.status, 400, label);
      const error = await errorOf(response);
      assert.equal(error.code, "validation_failed", label);
      assert.ok(
        error.details.some((detail: { path: string }) => detail.path === "/name"),
        label,
      );
    }
    assert.equal(store.pets.length, 0);
  });

  it("refuses a near-limit name with a control character in linear time (no ReDoS)", async () => {
    const { request } = testApp();
    /** The fastest of five refusals of a name of `length` characters ending in U+0001. */
    const fastest = async (length: number) => {
      const body = JSON.stringify({ name: "a".repeat(length) + "\u0001", categoryId: 1 });
      let best = Infinity;
      for (let run = 0; run < 5; run++) {
        const started = performance.now();
        const response = await request("/v1/pets", { method: "POST", body });
        best = Math.min(best, performance.now() - started);
        assert.equal(response.status, 400);
      }
      return best;
    };
    // Compared with itself rather than a wall-clock limit, so a loaded machine cannot fail it:
    // 32 times the input costs about 32 times the time when linear, 1,024 times when quadratic
    // (a backtracking pattern took seconds here); the bound lies between the two.
    const small = await fastest(2_000);
    const large = await fastest(64_000);
    assert.ok(large < 180 * Math.max(small, 0.25), `${large} ms vs ${small} ms: not linear`);
  });

  it("refuses malformed JSON and non-objects with 400 invalid_body", async () => {
    const { request, store } = testApp();
    for (
      const body of [
        "",
        "{",
        "[]",
        "null",
        "42",
        '"pet"',
        '{"name":"a","name":"b","categoryId":1}',
        "{'a':1}",
        '{"name":"a","categoryId":1}x',
      ]
    ) {
      const response = await request("/v1/pets", { method: "POST", body });
      assert.equal(response.status, 400, body);
      assert.equal((await errorOf(response)).code, "invalid_body", body);
    }
    const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0x6e, 0xff, 0x22, 0x7d]);
    const response = await request("/v1/pets", {
      method: "POST",
      body: invalidUtf8,
      headers: { "content-type": "application/json" },
    });
    assert.equal((await errorOf(response)).code, "invalid_body");
    assert.equal(store.pets.length, 0);
  });

  it("returns 415 for a content type other than JSON, and accepts a charset parameter", async () => {
    const { request } = testApp();
    for (
      const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]
    ) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: rex,
        headers: { "content-type": contentType },
      });
      assert.equal(response.status, 415, contentType);
      assert.equal((await errorOf(response)).code, "unsupported_media_type");
    }
    const missing = await request("/v1/pets", {
      method: "POST",
      body: new TextEncoder().encode(rex),
    });
    assert.equal(missing.status, 415);
    const withCharset = await request("/v1/pets", {
      method: "POST",
      body: rex,
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    assert.equal(withCharset.status, 201);
  });

  it("returns 415 for a charset other than utf-8, and accepts utf-8 in any case, quoted or not", async () => {
    const { request, store } = testApp();
    // UTF-16 text of a valid NewPet: read as UTF-8 it would be a confusing 400, never a pet.
    const utf16 = new Uint8Array([
      0xff,
      0xfe,
      ...Array.from(rex, (c) => [c.charCodeAt(0), 0]).flat(),
    ]);
    for (const charset of ["utf-16", '"utf-16le"', "iso-8859-1", "utf8", '""']) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: charset.startsWith('"utf-16') || charset === "utf-16" ? utf16 : rex,
        headers: { "content-type": `application/json; charset=${charset}` },
      });
      assert.equal(response.status, 415, charset);
      const error = await errorOf(response);
      assert.equal(error.code, "unsupported_media_type");
      assert.match(error.message, /charset must be utf-8/);
    }
    assert.equal(store.pets.length, 0);
    for (
      const contentType of [
        "application/json;charset=UTF-8",
        'application/json; charset="utf-8"',
        "Application/JSON ; Charset = Utf-8",
        "application/json; foo=bar",
      ]
    ) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: rex,
        headers: { "content-type": contentType },
      });
      assert.equal(response.status, 201, contentType);
    }
  });

  it("returns 415 for a body with a Content-Encoding other than identity", async () => {
    const { request, store } = testApp();
    const gzipped = new Uint8Array(
      await new Response(
        new Blob([rex]).stream().pipeThrough(new CompressionStream("gzip")),
      ).arrayBuffer(),
    );
    for (
      const [coding, body] of [["gzip", gzipped], ["br", rex], ["identity, gzip", gzipped]] as const
    ) {
      const response = await request("/v1/pets", {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "content-encoding": coding },
      });
      assert.equal(response.status, 415, coding);
      const error = await errorOf(response);
      assert.equal(error.code, "unsupported_media_type");
      assert.match(error.message, /Content-Encoding .* is not supported/);
    }
    assert.equal(store.pets.length, 0);
    for (const coding of ["identity", "IDENTITY", ""]) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: rex,
        headers: { "content-type": "application/json", "content-encoding": coding },
      });
      assert.equal(response.status, 201, `Content-Encoding: ${coding}`);
    }
  });

  it("returns 413 for a body over MAX_BODY_BYTES, declared or streamed", async () => {
    const { request, store } = testApp({ env: { MAX_BODY_BYTES: "100" } });
    const big = JSON.stringify({ name: "x".repeat(200), categoryId: 1 });
    const declared = await request("/v1/pets", { method: "POST", body: big });
    assert.equal(declared.status, 413);
    assert.equal((await errorOf(declared)).code, "payload_too_large");
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const streamed = await request("/v1/pets", {
      method: "POST",
      body: stream,
      duplex: "half",
      headers: { "content-type": "application/json" },
    });
    assert.equal(streamed.status, 413);
    assert.equal(store.pets.length, 0);
    const exact = JSON.stringify({ name: "x".repeat(100 - 30), categoryId: 1 }).padEnd(100, " ");
    assert.equal(exact.length, 100);
    assert.equal((await request("/v1/pets", { method: "POST", body: exact })).status, 201);
  });

  it("answers 503 unavailable when the store cannot write", async () => {
    const { request, store } = testApp();
    store.failWrites = true;
    const response = await request("/v1/pets", { method: "POST", body: rex });
    assert.equal(response.status, 503);
    assert.equal((await errorOf(response)).code, "unavailable");
  });
});
