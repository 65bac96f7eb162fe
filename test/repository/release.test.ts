/**
 * One version for a release (docs/releasing.md): package.json's is the one the service prints
 * (src/app/version.ts), the lock file's, the container image's label and the changelog's newest
 * release.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { VERSION } from "../../src/app/version.ts";

const packageVersion: string = JSON.parse(readFileSync("package.json", "utf8")).version;

describe("the release version", () => {
  it("src/app/version.ts and package-lock.json hold package.json's version", () => {
    assert.equal(VERSION, packageVersion);
    const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
    assert.equal(lock.version, packageVersion);
    assert.equal(lock.packages[""].version, packageVersion);
  });

  it("the Containerfile labels the image with package.json's version", () => {
    const label = /org\.opencontainers\.image\.version="([^"]+)"/.exec(
      readFileSync("Containerfile", "utf8"),
    );
    assert.equal(label?.[1], packageVersion);
  });

  it("the changelog's newest release is package.json's version, dated, under Unreleased", () => {
    const headings = readFileSync("CHANGELOG.md", "utf8").split("\n").filter((line) =>
      line.startsWith("## ")
    );
    assert.equal(headings[0], "## [Unreleased]");
    assert.match(
      headings[1],
      new RegExp(`^## \\[${packageVersion.replaceAll(".", "\\.")}\\] - \\d{4}-\\d{2}-\\d{2}$`),
    );
  });
});
