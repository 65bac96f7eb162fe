/** Building the app for handler tests: no socket, a memory store, a fixed key. */
import { createApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config/config.ts";
import { keyDigest, KeyRing } from "../../src/http/auth.ts";
import { createMemoryLogger } from "./memory_logger.ts";
import { MemoryStore } from "./memory_store.ts";
import assert from "node:assert/strict";
import { clockBeforeSunset } from "./sunset.ts";

export const KEY = "test-key-1";
export const OTHER_KEY = "test-key-2";

/**
 * A test app and its parts; `request` sends a request with the test key unless told not to. With
 * `storeLoaded: false` the app starts as the service does, before its store has loaded: the
 * test hands it `store` with `app.ready(store)`.
 */
export function testApp(
  options: {
    env?: Record<string, string>;
    clock?: () => number;
    storeLoaded?: boolean;
    /** How long requests wait for a store that is loading (the app's `loadWaitMs`). */
    loadWaitMs?: number;
  } = {},
) {
  const config: Config = loadConfig({ API_KEYS: `${KEY},${OTHER_KEY}`, ...options.env });
  const store = new MemoryStore();
  const log = createMemoryLogger();
  const keys = new KeyRing([keyDigest(KEY), keyDigest(OTHER_KEY)]);
  const app = createApp({
    config,
    keys,
    log,
    store: options.storeLoaded === false ? undefined : store,
    loadWaitMs: options.loadWaitMs,
    // Runs like the real clock but before the sunset, so GET /pets/{petId} answers as on any
    // day the tests were written for, whatever the date they run on.
    clock: options.clock ?? clockBeforeSunset(),
  });
  const request = (
    path: string,
    init: RequestInit & { key?: string | null; duplex?: "half" } = {},
  ) => {
    const headers = new Headers(init.headers);
    const key = init.key === undefined ? KEY : init.key;
    if (key !== null && !headers.has("authorization")) {
      headers.set("authorization", `Bearer ${key}`);
    }
    if (typeof init.body === "string" && !headers.has("content-type")) {
      headers.set("content-type", "application/json");
    }
    return app.fetch(new Request(`http://localhost${path}`, { ...init, headers }));
  };
  return { app, store, log, config, request };
}

/** The Error body of `response`, after checking its shape: JSON, a string code and message, the status. */
export async function errorOf(response: Response) {
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  const body = await response.json();
  assert.equal(typeof body.code, "string");
  assert.equal(typeof body.message, "string");
  assert.equal(body.status, response.status);
  return body;
}
