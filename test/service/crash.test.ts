/**
 * kill -9 under load: many clients create pets concurrently, the service is killed at a random
 * moment, and after a restart every pet that was answered 201 is there with the same fields —
 * with the file store, and with PostgreSQL (a 201 only after COMMIT).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startService, targetRuntime, temporaryDirectory } from "../support/server_process.ts";
import { backends } from "../support/backends.ts";

const KEY = "crash-suite-key";
const CLIENTS = 32;

for (const backend of backends) {
  describe(`kill -9 on ${targetRuntime()}, ${backend.name}`, {
    timeout: 90_000,
    skip: backend.skip,
  }, () => {
    killNineUnderLoad(backend);
  });
}

function killNineUnderLoad(backend: (typeof backends)[number]) {
  for (let round = 1; round <= 2; round++) {
    it(`loses no pet that was answered 201 (round ${round})`, async () => {
      const dir = temporaryDirectory();
      const settings = await backend.settings();
      const env = { API_KEYS: KEY, ...settings.env };
      try {
        const service = await startService({ dataDir: dir.path, env });
        const acknowledged = new Map<number, string>();
        let stopped = false;
        const client = async (clientId: number) => {
          for (let n = 0; !stopped && n < 5000; n++) {
            const body = JSON.stringify({
              name: `c${clientId}-${n}`,
              categoryId: 9007199254740993,
              status: "pending",
            });
            try {
              const response = await fetch(`${service.url}/v1/pets`, {
                method: "POST",
                body,
                headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
              });
              if (response.status === 201) {
                const text = await response.text();
                acknowledged.set(JSON.parse(text).id, text);
              }
            } catch {
              return; // the server is gone
            }
          }
        };
        const clients = Array.from({ length: CLIENTS }, (_, i) => client(i));
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 700));
        service.kill("SIGKILL");
        stopped = true;
        await Promise.all(clients);
        await service.exited;
        assert.ok(acknowledged.size > 0, "some creates were acknowledged before the kill");

        const restarted = await startService({ dataDir: dir.path, env });
        try {
          for (const [id, text] of acknowledged) {
            const response = await fetch(`${restarted.url}/v1/pets/${id}`, {
              headers: { authorization: `Bearer ${KEY}` },
            });
            assert.equal(response.status, 200, `pet ${id} answered 201 before the kill`);
            assert.equal(await response.text(), text);
          }
          // No id answered before the kill is given again.
          const next = await fetch(`${restarted.url}/v1/pets`, {
            method: "POST",
            body: '{"name":"After","categoryId":1}',
            headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
          });
          assert.equal(next.status, 201);
          const nextId = (await next.json()).id;
          assert.ok(nextId > Math.max(...acknowledged.keys()), `id ${nextId} is new`);
        } finally {
          assert.equal(await restarted.stop(), 0);
        }
      } finally {
        await settings.remove();
        dir.remove();
      }
    });
  }
}
