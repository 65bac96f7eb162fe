import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import { ConfigError } from "../../src/config/settings.ts";
import { parseDatabaseUrl } from "../../src/config/database_url.ts";

describe("parseDatabaseUrl()", () => {
  it("splits libpq's host list into one URL per host, keeping the rest", () => {
    const address = parseDatabaseUrl(
      "postgres://pets:pw@db1.internal:5432,[::1]:6432,db3/pets?target_session_attrs=read-write&sslmode=require",
    );
    assert.equal(address.targetSessionAttrs, "read-write");
    assert.deepEqual(address.hosts.map(({ name, hostname }) => [name, hostname]), [
      ["db1.internal:5432", "db1.internal"],
      ["[::1]:6432", "::1"],
      ["db3:5432", "db3"],
    ]);
    assert.deepEqual(address.hosts.map(({ url }) => url), [
      "postgres://pets:pw@db1.internal:5432/pets?sslmode=require",
      "postgres://pets:pw@[::1]:6432/pets?sslmode=require",
      "postgres://pets:pw@db3/pets?sslmode=require",
    ]);
  });

  it("takes read-write by default and primary when asked", () => {
    assert.equal(parseDatabaseUrl("postgres://db/pets").targetSessionAttrs, "read-write");
    assert.equal(
      parseDatabaseUrl("postgresql://a:1,b:2/pets?target_session_attrs=primary").targetSessionAttrs,
      "primary",
    );
  });
});

describe("loadConfig() with DATABASE_URL", () => {
  it("accepts several hosts", () => {
    const url = "postgres://pets:pw@h1:5432,h2:5432/pets?target_session_attrs=read-write";
    assert.equal(loadConfig({ DATABASE_URL: url }).database?.url, url);
  });

  it("refuses a target_session_attrs that could pick a standby, an empty host and a bad port, naming DATABASE_URL and never the password", () => {
    for (
      const url of [
        "postgres://pets:secret-pw@h1,h2/pets?target_session_attrs=any",
        "postgres://pets:secret-pw@h1/pets?target_session_attrs=standby",
        "postgres://pets:secret-pw@h1,,h2/pets",
        "postgres://pets:secret-pw@h1:54x,h2/pets",
      ]
    ) {
      assert.throws(
        () => loadConfig({ DATABASE_URL: url }),
        (error: Error) =>
          error instanceof ConfigError && error.setting === "DATABASE_URL" &&
          !error.message.includes("secret-pw"),
        url,
      );
    }
    assert.throws(
      () => loadConfig({ DATABASE_URL: "postgres://h1/pets?target_session_attrs=any" }),
      /target_session_attrs must be read-write or primary .*got "any"/,
    );
  });
});
