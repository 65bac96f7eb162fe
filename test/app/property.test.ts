/**
 * Property tests of the handler with generated hostile requests (no socket): every response has
 * a status from docs/api.md and, when not 2xx, an Error body matching the ErrorBody schema; no 500
 * ever; no pet is made from an invalid body; and the real JSON-lines store still loads
 * afterwards. ~200 runs per property here; `FC_RUNS=5000` (or `scripts/fuzz.ts`) for more.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { keyDigest, KeyRing } from "../../src/http/auth.ts";
import { parseJsonText } from "../../src/http/json.ts";
import { createMemoryLogger } from "../support/memory_logger.ts";
import { validateNewPet } from "../../src/schemas/validate.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import type { PetStore } from "../../src/store/store.ts";
import {
  contractViolation,
  type HostileRequest,
  hostileRequest,
  toRequest,
  validCreate,
} from "../support/hostile_requests.ts";
import { MemoryStore } from "../support/memory_store.ts";
import { temporaryDirectory } from "../support/server_process.ts";

const RUNS = Number(process.env.FC_RUNS ?? 200);
const TIMEOUT = { timeout: 600_000 };

function hostileApp(store: PetStore, env: Record<string, string>) {
  const config = loadConfig({ API_KEYS: "test-key-1,test-key-2", ...env });
  const keys = new KeyRing([keyDigest("test-key-1"), keyDigest("test-key-2")]);
  const log = createMemoryLogger();
  return { app: createApp({ config, keys, log, store, clock: () => Date.UTC(2027, 0, 1) }), log };
}

/** True when the body a client sent is a valid NewPet (only then may a pet be created). */
function isValidNewPet(generated: HostileRequest): boolean {
  const bytes = typeof generated.body === "string"
    ? new TextEncoder().encode(generated.body)
    : generated.body;
  if (bytes === undefined) return false;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  const parsed = parseJsonText(text);
  return parsed.ok && parsed.value !== null && typeof parsed.value === "object" &&
    !Array.isArray(parsed.value) && validateNewPet(parsed.value).ok;
}

/** Sends one generated request and asserts every invariant; returns whether a pet was made. */
async function checkOne(
  fetch: (request: Request) => Response | Promise<Response>,
  count: () => number,
  generated: HostileRequest,
): Promise<boolean> {
  const request = toRequest(generated);
  const before = count();
  const response = await fetch(request);
  const violation = await contractViolation(request, response);
  assert.equal(violation, undefined, violation);
  const created = count() - before;
  if (response.status === 201 && response.headers.get("idempotent-replayed") !== "true") {
    assert.equal(created, 1, "a 201 made exactly one pet");
    assert.ok(isValidNewPet(generated), "a pet was made from an invalid body");
  } else {
    assert.equal(created, 0, `no pet without a fresh 201 (got ${response.status})`);
  }
  return created === 1;
}

describe("the handler under generated hostile requests", TIMEOUT, () => {
  it("answers every request with a contract status and Error body, never 500, never a pet from an invalid body", async () => {
    const store = new MemoryStore();
    const { app, log } = hostileApp(store, {
      MAX_BODY_BYTES: "2048",
      CORS_ORIGINS: "https://app.example.com",
    });
    await fc.assert(
      fc.asyncProperty(
        hostileRequest,
        (generated) => checkOne(app.fetch, () => store.pets.length, generated).then(() => {}),
      ),
      { numRuns: RUNS },
    );
    assert.deepEqual(log.lines.filter((line) => line.level === "error"), [], "nothing unhandled");
    assert.equal(({} as Record<string, unknown>).polluted, undefined, "no prototype pollution");
    assert.equal(({} as Record<string, unknown>).admin, undefined, "no prototype pollution");
  });

  it("keeps the JSON-lines store loadable with exactly the pets answered 201", async () => {
    const dir = temporaryDirectory();
    try {
      let store = await openJsonlStore({ dataDir: dir.path });
      const { app, log } = hostileApp(store, { RATE_LIMIT: "1000" });
      let made = 0;
      await fc.assert(
        fc.asyncProperty(fc.oneof(hostileRequest, validCreate), async (generated) => {
          if (await checkOne(app.fetch, () => store.size, generated)) made++;
        }),
        { numRuns: RUNS },
      );
      assert.deepEqual(log.lines.filter((line) => line.level === "error"), []);
      await store.close();
      store = await openJsonlStore({ dataDir: dir.path });
      assert.ok(made > 0, "some pets were made");
      assert.equal(store.size, made, "every acknowledged pet, and only those, after a reload");
      await store.close();
    } finally {
      dir.remove();
    }
  });
});
