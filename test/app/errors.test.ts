/** Failures that are not the client's fault in the app: the 500 path, and a client gone mid-body (499). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KEY, testApp } from "../support/app.ts";

const rex = '{"name":"Rex","categoryId":1}';

describe("the 500 path", () => {
  it("a store that throws answers 500 internal_error without stack, path or message, and logs the request id and the stack", async () => {
    const { request, store, log } = testApp();
    const secret = "disk exploded at /srv/animal-store/data/pets.jsonl";
    const throwing = () => {
      throw new TypeError(secret);
    };
    Object.assign(store, { get: throwing, listJson: throwing, create: throwing });
    const cases: [string, RequestInit][] = [
      ["/v1/pets/1", {}],
      ["/v1/pets", {}],
      ["/v1/pets", { method: "POST", body: rex }],
    ];
    for (const [index, [path, init]] of cases.entries()) {
      const requestId = `trace-500-${index}`;
      const response = await request(path, {
        ...init,
        headers: { "x-request-id": requestId },
      });
      const text = await response.text();
      assert.equal(response.status, 500, path);
      const body = JSON.parse(text);
      assert.equal(body.code, "internal_error");
      assert.equal(body.status, 500);
      for (const leak of ["disk exploded", "/srv/", "pets.jsonl", "TypeError", "    at ", ".ts:"]) {
        assert.ok(!text.includes(leak), `${path}: body leaks ${JSON.stringify(leak)}: ${text}`);
      }
      const logged = log.lines.find((line) =>
        line.level === "error" && line.requestId === requestId
      );
      assert.ok(logged !== undefined, `${path}: an error line with the request id`);
      const error = String(logged.error);
      assert.ok(error.includes(secret), "the log has the message");
      assert.match(error, /\n\s+at /, "the log has the stack");
    }
  });
});

describe("a client that goes away mid-body", () => {
  it("POST /v1/pets whose body read fails is logged as 499 at level info, and stores nothing", async () => {
    const { app, store, log } = testApp();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error("connection closed"));
        sent = true;
        controller.enqueue(new TextEncoder().encode('{"name":"Re'));
      },
    });
    const response = await app.fetch(
      new Request("http://localhost/v1/pets", {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body,
        // @ts-ignore: `duplex` is needed for a streamed body (Node, Deno) but missing from lib.dom.
        duplex: "half",
      }),
    );
    assert.equal(response.status, 499);
    assert.equal(store.pets.length, 0);
    assert.deepEqual(log.lines.filter((line) => line.level !== "info"), []);
    const line = log.lines.find((line) => line.msg === "request");
    assert.equal(line?.status, 499);
    assert.equal(line?.level, "info");
  });
});
