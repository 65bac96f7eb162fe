import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";

const FRAMEWORKS = ["hono", "elysia", "fastify", "@hono/node-server", "express", "koa"];

function packageJson(path: string): {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
} {
  return JSON.parse(readFileSync(path, "utf8"));
}

describe("benchmarks apart from the product", () => {
  it("the service's npm ci installs no HTTP framework; scripts/bench's own package does", () => {
    const root = packageJson("package.json");
    const lock = readFileSync("package-lock.json", "utf8");
    for (const name of FRAMEWORKS) {
      assert.equal(root.dependencies?.[name], undefined, name);
      assert.equal(root.devDependencies?.[name], undefined, name);
      assert.ok(!lock.includes(`"node_modules/${name}"`), `${name} in package-lock.json`);
    }
    const bench = packageJson("scripts/bench/package.json");
    for (const name of ["hono", "elysia", "fastify", "@hono/node-server"]) {
      assert.ok(bench.dependencies?.[name], `scripts/bench/package.json lacks ${name}`);
    }
    assert.ok(existsSync("scripts/bench/package-lock.json"));
  });

  it("npm run bench installs scripts/bench's dependencies first, from its lock file", () => {
    const { scripts = {} } = packageJson("package.json");
    assert.match(scripts.bench, /^npm run bench:install --silent && /);
    assert.match(scripts["bench:install"], /npm ci --prefix scripts\/bench/);
    assert.match(scripts.bench, /scripts\/bench\/bench\.ts/);
  });

  it("no benchmark program is left beside the build, test and operator scripts", () => {
    const stray = readdirSync("scripts").filter((name) =>
      /^bench|^measure/.test(name) && name !== "bench"
    );
    assert.deepEqual(stray, []);
  });
});
