/**
 * npm 12 runs a dependency's install script only when `allowScripts` in package.json approves it
 * (npm 11.16+ only warns). Bun's, Deno's and esbuild's fetch their binaries: without them
 * `npm ci` succeeds and the tools then fail (`Error: Bun's postinstall script was not run`). So
 * each npm project of the repository approves exactly the packages of its lock file that have
 * install scripts: a new dependency with a script fails here until someone decides about it.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

/** The npm projects whose installs the README and the scripts run (`npm ci`, `bench:install`). */
const PROJECTS = [".", "scripts/bench"];

/** The packages of `dir`'s package-lock.json that have install scripts, by name, sorted. */
function withInstallScripts(dir: string): string[] {
  const lock = JSON.parse(readFileSync(`${dir}/package-lock.json`, "utf8"));
  const names = new Set<string>();
  for (
    const [path, entry] of Object.entries<{ hasInstallScript?: boolean; name?: string }>(
      lock.packages,
    )
  ) {
    if (entry.hasInstallScript !== true) continue;
    // "node_modules/a/node_modules/@scope/b" is the package "@scope/b".
    names.add(entry.name ?? path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
  }
  return [...names].sort();
}

describe("install scripts under npm 12", () => {
  for (const dir of PROJECTS) {
    it(`${dir}/package.json's allowScripts approves exactly its lock's install scripts`, () => {
      const manifest = JSON.parse(readFileSync(`${dir}/package.json`, "utf8"));
      const allowed: Record<string, unknown> = manifest.allowScripts ?? {};
      // Name-only keys, approving every version: a lock update must not silently drop one.
      for (const [name, approved] of Object.entries(allowed)) {
        assert.equal(approved, true, `${dir}: allowScripts["${name}"]`);
      }
      assert.deepEqual(Object.keys(allowed).sort(), withInstallScripts(dir), dir);
    });
  }

  it("the service's own install approves Bun, Deno and esbuild, whose binaries it needs", () => {
    assert.deepEqual(withInstallScripts("."), ["bun", "deno", "esbuild"]);
  });
});
