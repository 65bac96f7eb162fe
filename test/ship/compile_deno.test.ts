/**
 * scripts/compile_deno.sh where denort cannot be downloaded: one clear line and a non-zero exit,
 * not deno's chain of causes. The download is made to fail on any machine (an empty DENO_DIR, so
 * no cached denort, and a proxy that refuses connections), so the test never needs internet.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import { temporaryDirectory } from "../support/server_process.ts";

const ROOT = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

/** Runs the compile script with `env` on top of this environment, minus DENORT_BIN and proxies. */
function compile(env: Record<string, string>) {
  const base = { ...process.env };
  for (const name of ["DENORT_BIN", "DATA_DIR", "NO_PROXY", "no_proxy", "https_proxy"]) {
    delete base[name];
  }
  const result = spawnSync("bash", [join(ROOT, "scripts/compile_deno.sh")], {
    env: { ...base, NO_COLOR: "1", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("scripts/compile_deno.sh", { timeout: 60_000 }, () => {
  it("says in one line that denort could not be downloaded, and exits 1", () => {
    const dir = temporaryDirectory();
    try {
      const outfile = join(dir.path, "animal-store-deno");
      const result = compile({
        DENO_DIR: join(dir.path, "deno-dir"),
        HTTPS_PROXY: "http://127.0.0.1:9",
        OUTFILE: outfile,
      });
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.equal(
        result.stderr,
        "Cannot compile with Deno: denort could not be downloaded (no internet?); " +
          "set DENORT_BIN=/path/to/denort\n",
      );
      assert.equal(existsSync(outfile), false);
      assert.deepEqual(readdirSync(dir.path).filter((name) => name !== "deno-dir"), []);
    } finally {
      dir.remove();
    }
  });

  it("refuses a DENORT_BIN that is not a file, and a relative DATA_DIR, in one line", () => {
    const missing = compile({ DENORT_BIN: "/nonexistent/denort" });
    assert.equal(missing.code, 1);
    assert.equal(
      missing.stderr,
      "Cannot compile with Deno: DENORT_BIN=/nonexistent/denort is not a file\n",
    );
    const relative = compile({ DATA_DIR: "data" });
    assert.equal(relative.code, 1);
    assert.match(
      relative.stderr,
      /^Cannot compile with Deno: DATA_DIR must be an absolute path.*\n$/,
    );
  });
});
