/**
 * The supported Node versions, written once in .ci/run (the oldest and the newest, which CI runs
 * the Node part of the suite on): everything that builds for Node or names it follows the oldest.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

const ci = readFileSync(".ci/run", "utf8");
const oldest = /^NODE_OLDEST=(\d+)$/m.exec(ci)?.[1];
const newest = /^NODE_NEWEST=(\d+)$/m.exec(ci)?.[1];
const packageJson = JSON.parse(readFileSync("package.json", "utf8"));

describe("the supported Node versions", () => {
  it(".ci/run names the oldest and the newest", () => {
    assert.ok(oldest !== undefined && newest !== undefined && Number(newest) >= Number(oldest));
  });

  it("package.json's engines, esbuild targets and @types/node follow the oldest", () => {
    assert.equal(packageJson.engines.node, `>=${oldest}`);
    const targets = Object.values<string>(packageJson.scripts).flatMap((script) =>
      [...script.matchAll(/--target=node(\d+)/g)].map((match) => match[1])
    );
    assert.ok(targets.length > 0);
    assert.deepEqual(new Set(targets), new Set([oldest]));
    assert.match(packageJson.devDependencies["@types/node"], new RegExp(`^\\^${oldest}\\.`));
  });

  it("the Containerfile builds on the oldest", () => {
    const stage = /^FROM \S+\/node:(\d+)-\S+ AS build$/m.exec(
      readFileSync("Containerfile", "utf8"),
    );
    assert.equal(stage?.[1], oldest);
  });

  it("the README and the deployment guide ask for the oldest or later and name the two CI runs", () => {
    for (const file of ["README.md", "docs/deployment.md"]) {
      // Words, whatever line breaks fall between them.
      const text = readFileSync(file, "utf8").replaceAll(/\s+/g, " ");
      assert.ok(
        text.includes(`Node ${oldest} or later`),
        `${file} does not ask for Node ${oldest}`,
      );
      assert.ok(
        text.includes(`${oldest} and ${newest}`),
        `${file} does not name ${oldest} and ${newest}`,
      );
    }
  });
});
