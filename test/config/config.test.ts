import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { ConfigError } from "../../src/config/settings.ts";
import { parseKeysFile } from "../../src/config/api_keys.ts";

function settingOf(env: Record<string, string>): string | undefined {
  try {
    loadConfig(env);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    assert.ok(error.message.includes(error.setting), error.message);
    return error.setting;
  }
}

describe("loadConfig()", () => {
  it("reads the DATABASE_* settings, with their defaults, and none without DATABASE_URL", () => {
    assert.equal(loadConfig({}).database, undefined, "the file store is the default");
    const url = "postgres://pets:pw@db.internal:5432/pets";
    assert.deepEqual(loadConfig({ DATABASE_URL: url }).database, {
      url,
      poolSize: 10,
      statementTimeoutMs: 5000,
      ssl: undefined,
      sslCa: undefined,
    });
    const dir = mkdtempSync(join(tmpdir(), "config-test-"));
    try {
      const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
      writeFileSync(join(dir, "ca.pem"), pem);
      const full = loadConfig({
        DATABASE_URL: url,
        DATABASE_POOL_SIZE: "3",
        DATABASE_STATEMENT_TIMEOUT_MS: "0",
        DATABASE_SSL: "verify-full",
        DATABASE_SSL_CA_FILE: join(dir, "ca.pem"),
      }).database;
      assert.equal(full?.poolSize, 3);
      assert.equal(full?.statementTimeoutMs, 0);
      assert.equal(full?.ssl, "verify-full");
      assert.equal(full?.sslCa, pem, "the CA file is read at start");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an unreadable or non-PEM DATABASE_SSL_CA_FILE as a bad setting (exit 2)", () => {
    const dir = mkdtempSync(join(tmpdir(), "config-test-"));
    try {
      writeFileSync(join(dir, "not-a-ca.txt"), "hello");
      for (const file of [join(dir, "missing.pem"), join(dir, "not-a-ca.txt"), dir]) {
        const env = {
          DATABASE_URL: "postgres://pets:pw@db.internal:5432/pets",
          DATABASE_SSL: "verify-full",
          DATABASE_SSL_CA_FILE: file,
        };
        assert.equal(settingOf(env), "DATABASE_SSL_CA_FILE", file);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names the bad DATABASE_* setting, and never echoes the URL (it may hold a password)", () => {
    const url = "postgres://pets:pw@db.internal:5432/pets";
    const cases: [Record<string, string>, string][] = [
      [{ DATABASE_URL: "mysql://pets:pw@db/pets" }, "DATABASE_URL"],
      [{ DATABASE_URL: "not a url" }, "DATABASE_URL"],
      [{ DATABASE_URL: url, DATABASE_POOL_SIZE: "0" }, "DATABASE_POOL_SIZE"],
      [
        { DATABASE_URL: url, DATABASE_STATEMENT_TIMEOUT_MS: "1.5" },
        "DATABASE_STATEMENT_TIMEOUT_MS",
      ],
      [{ DATABASE_URL: url, DATABASE_SSL: "on" }, "DATABASE_SSL"],
      [{ DATABASE_URL: url, DATABASE_SSL_CA_FILE: "/ca.pem" }, "DATABASE_SSL_CA_FILE"],
      [{ DATABASE_POOL_SIZE: "5" }, "DATABASE_POOL_SIZE"],
      [{ DATABASE_SSL_CA_FILE: "/ca.pem" }, "DATABASE_SSL_CA_FILE"],
    ];
    for (const [env, setting] of cases) {
      assert.equal(settingOf(env), setting, JSON.stringify(env));
      try {
        loadConfig(env);
      } catch (error) {
        assert.ok(!(error as Error).message.includes("pw@"), (error as Error).message);
      }
    }
    assert.throws(
      () => loadConfig({ DATABASE_URL: "mysql://pets:secret-pw@db/pets" }),
      (error: Error) => error instanceof ConfigError && !error.message.includes("secret-pw"),
    );
  });

  it("has the defaults of docs/configuration.md", () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, "0.0.0.0");
    assert.equal(config.dataDir, "./data");
    assert.equal(config.basePath, "/v1");
    assert.equal(config.maxBodyBytes, 65536);
    assert.equal(config.rateLimit, 0);
    assert.equal(config.cacheBytes, 64 * 1024 * 1024);
    assert.equal(config.publicUrl, undefined);
    assert.deepEqual(config.corsOrigins, []);
    assert.equal(config.apiKeys, undefined);
    assert.equal(config.metrics, false);
  });

  it("reads METRICS=on and METRICS=off", () => {
    assert.equal(loadConfig({ METRICS: "on" }).metrics, true);
    assert.equal(loadConfig({ METRICS: "off" }).metrics, false);
  });

  it("reads every setting", () => {
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: "/tmp/x",
      API_KEYS: "a, b",
      BASE_PATH: "/api/v1",
      MAX_BODY_BYTES: "1000",
      PUBLIC_URL: "https://pets.example.com/",
      CORS_ORIGINS: "https://a.example,*",
      RATE_LIMIT: "60",
    });
    assert.deepEqual(
      [
        config.port,
        config.host,
        config.dataDir,
        config.apiKeys,
        config.basePath,
        config.maxBodyBytes,
        config.publicUrl,
        config.corsOrigins,
        config.rateLimit,
      ],
      [0, "127.0.0.1", "/tmp/x", ["a", "b"], "/api/v1", 1000, "https://pets.example.com", [
        "https://a.example",
        "*",
      ], 60],
    );
  });

  it("reads SHUTDOWN_TIMEOUT in seconds, 10 by default, 0 to 300", () => {
    assert.equal(loadConfig({}).shutdownTimeoutSeconds, 10);
    assert.equal(loadConfig({ SHUTDOWN_TIMEOUT: "0" }).shutdownTimeoutSeconds, 0);
    assert.equal(loadConfig({ SHUTDOWN_TIMEOUT: "300" }).shutdownTimeoutSeconds, 300);
  });

  it("reads SHUTDOWN_DELAY in seconds, 0 by default, 0 to 300", () => {
    assert.equal(loadConfig({}).shutdownDelaySeconds, 0);
    assert.equal(loadConfig({ SHUTDOWN_DELAY: "5" }).shutdownDelaySeconds, 5);
    assert.equal(loadConfig({ SHUTDOWN_DELAY: "300" }).shutdownDelaySeconds, 300);
  });

  it("reads CACHE_BYTES, 0 included (the cache off)", () => {
    assert.equal(loadConfig({ CACHE_BYTES: "0" }).cacheBytes, 0);
    assert.equal(loadConfig({ CACHE_BYTES: "1048576" }).cacheBytes, 1048576);
  });

  it("names the setting of every bad value", () => {
    const cases: [Record<string, string>, string][] = [
      [{ PORT: "abc" }, "PORT"],
      [{ PORT: "-1" }, "PORT"],
      [{ PORT: "65536" }, "PORT"],
      [{ PORT: "80.5" }, "PORT"],
      [{ PORT: "" }, "PORT"],
      [{ MAX_BODY_BYTES: "1.5" }, "MAX_BODY_BYTES"],
      [{ MAX_BODY_BYTES: "0" }, "MAX_BODY_BYTES"],
      [{ MAX_BODY_BYTES: "64k" }, "MAX_BODY_BYTES"],
      [{ RATE_LIMIT: "x" }, "RATE_LIMIT"],
      [{ CACHE_BYTES: "64M" }, "CACHE_BYTES"],
      [{ CACHE_BYTES: "-1" }, "CACHE_BYTES"],
      [{ SHUTDOWN_TIMEOUT: "301" }, "SHUTDOWN_TIMEOUT"],
      [{ SHUTDOWN_TIMEOUT: "1.5" }, "SHUTDOWN_TIMEOUT"],
      [{ SHUTDOWN_TIMEOUT: "-1" }, "SHUTDOWN_TIMEOUT"],
      [{ SHUTDOWN_TIMEOUT: "10s" }, "SHUTDOWN_TIMEOUT"],
      [{ SHUTDOWN_DELAY: "301" }, "SHUTDOWN_DELAY"],
      [{ SHUTDOWN_DELAY: "0.5" }, "SHUTDOWN_DELAY"],
      [{ SHUTDOWN_DELAY: "-1" }, "SHUTDOWN_DELAY"],
      [{ SHUTDOWN_DELAY: "" }, "SHUTDOWN_DELAY"],
      [{ CACHE_BYTES: "1.5" }, "CACHE_BYTES"],
      [{ CACHE_BYTES: "" }, "CACHE_BYTES"],
      [{ API_KEYS: "" }, "API_KEYS"],
      [{ API_KEYS: " ,, " }, "API_KEYS"],
      [{ BASE_PATH: "v1" }, "BASE_PATH"],
      [{ BASE_PATH: "/v1/" }, "BASE_PATH"],
      [{ PUBLIC_URL: "https://x.example/path" }, "PUBLIC_URL"],
      [{ PUBLIC_URL: "not a url" }, "PUBLIC_URL"],
      [{ CORS_ORIGINS: "https://a.example/x" }, "CORS_ORIGINS"],
      [{ API_KEYS_FILE: "" }, "API_KEYS_FILE"],
      [{ METRICS: "yes" }, "METRICS"],
      [{ METRICS: "" }, "METRICS"],
      [{ METRICS: "ON" }, "METRICS"],
    ];
    for (const [env, setting] of cases) assert.equal(settingOf(env), setting, JSON.stringify(env));
  });
});

describe("parseKeysFile()", () => {
  it("reads keys and sha256: digests, skipping comments and blank lines", () => {
    const digests = parseKeysFile(`# comment\nkey-one\n\n  sha256:${"ab".repeat(32)}  \r\n`);
    assert.equal(digests.length, 2);
    assert.equal(digests[1][0], 0xab);
  });

  it("refuses a malformed sha256: line, naming the line", () => {
    assert.throws(() => parseKeysFile("ok\nsha256:xyz\n"), /line 2/);
  });
});
