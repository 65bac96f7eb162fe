/**
 * Smoke test of the single executable (`npm run compile` → dist/animal-store): it starts, serves
 * the API with a key, serves every asset from inside itself, answers `healthcheck`, prints
 * `openapi`, runs `verify`, and exits 0 on SIGTERM. `npm test` builds it and runs this suite as
 * its "executable" line; under another TARGET_RUNTIME, or without the executable, it is skipped.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import {
  EXECUTABLE,
  runService,
  type ServiceProcess,
  startService,
  temporaryDirectory,
} from "../support/server_process.ts";
import { assertDocsScriptLoads } from "../support/docs_script.ts";

const KEY = "executable-suite-key";
const requested = process.env.TARGET_RUNTIME ?? "executable";
const enabled = requested === "executable" && existsSync(EXECUTABLE);
const suite = enabled ? describe : describe.skip;

suite("single executable dist/animal-store", { timeout: 60_000 }, () => {
  const dir = temporaryDirectory();
  let service: ServiceProcess;
  const options = { runtime: "executable" as const };

  before(async () => {
    service = await startService({ ...options, dataDir: dir.path, env: { API_KEYS: KEY } });
  });
  after(async () => {
    await service?.stop();
    dir.remove();
  });

  it("starts on the Bun runtime embedded in it", () => {
    assert.match(service.stdout(), /"runtime":"bun \d+\.\d+\.\d+"/);
  });

  it("creates and lists pets with a key, and refuses requests without one", async () => {
    const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
    const created = await fetch(`${service.url}/v1/pets`, {
      method: "POST",
      headers,
      body: '{"name":"Rex","categoryId":9223372036854775807,"status":"available"}',
    });
    assert.equal(created.status, 201);
    assert.equal(
      await created.text(),
      '{"id":1,"name":"Rex","categoryId":9223372036854775807,"status":"available"}',
    );
    const list = await fetch(`${service.url}/v1/pets?status=available`, { headers });
    assert.equal(list.status, 200);
    assert.match(await list.text(), /^\[\{"id":1,"name":"Rex",/);
    const anonymous = await fetch(`${service.url}/v1/pets`);
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
  });

  it("serves /healthz, /readyz, the OpenAPI document and the docs page from inside itself", async () => {
    for (
      const [path, type] of [
        ["/healthz", "application/json"],
        ["/readyz", "application/json"],
        ["/v1/openapi.json", "application/json"],
        ["/v1/docs", "text/html"],
        ["/v1/docs/app.js", "text/javascript"],
        ["/v1/docs/style.css", "text/css"],
      ]
    ) {
      const response = await fetch(`${service.url}${path}`);
      const body = await response.text();
      assert.equal(response.status, 200, `${path}: ${body}`);
      assert.ok(response.headers.get("content-type")?.startsWith(type), path);
      assert.ok(body.length > 10, path);
      if (path.endsWith(".js")) {
        assertDocsScriptLoads(body); // as bun build --minify compiled it into the executable
      }
    }
  });

  it("healthcheck exits 0 against it on its PORT", async () => {
    const result = await runService(["healthcheck"], {
      ...options,
      env: { PORT: String(service.port) },
    });
    assert.equal(result.code, 0, result.stderr);
  });

  it("openapi prints the document the service serves", async () => {
    const result = await runService(["openapi"], options);
    assert.equal(result.code, 0, result.stderr);
    const served = await (await fetch(`${service.url}/v1/openapi.json`)).json();
    assert.deepEqual(JSON.parse(result.stdout), served);
  });

  it("verify counts the pets in its data directory", async () => {
    const result = await runService(["verify"], { ...options, env: { DATA_DIR: dir.path } });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /1 pets \(available 1, pending 0, sold 0, no status 0\)/);
  });

  it("exits 0 on SIGTERM after logging that it stopped", async () => {
    assert.equal(await service.stop("SIGTERM"), 0);
    assert.match(service.stdout(), /"msg":"stopped"/);
    assert.equal(existsSync(`${dir.path}/animal-store.lock`), false, "lock released");
  });
});
