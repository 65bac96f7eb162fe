/**
 * The documentation holds together: every relative link in README.md, CHANGELOG.md and docs/*.md
 * names a file of the repository (and a heading of it, for a `#anchor`), and no tracked file
 * points at requirements that live outside the repository.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { documentationPages, headingAnchors, linkTargets, readPage, ROOT } from "./markdown.ts";

/** Strings that would point outside a clone; split so this file does not match itself. */
const OUTSIDE_REFERENCES = ["../" + "shared", "SPEC" + ".md"];

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

/** Every broken relative link of one page, as "page: target (reason)". */
function brokenLinks(page: string, text = readPage(page)): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(text)) {
    if (isExternal(target)) continue;
    const [pathPart, anchor] = target.split("#", 2);
    if (pathPart === "") {
      if (!headingAnchors(text).has(anchor)) broken.push(`${page}: ${target} (no heading)`);
      continue;
    }
    const file = resolve(join(ROOT, dirname(page)), pathPart);
    const inside = relative(ROOT, file);
    if (inside.startsWith("..")) {
      broken.push(`${page}: ${target} (outside the repository)`);
      continue;
    }
    if (!existsSync(file)) {
      broken.push(`${page}: ${target} (no such file)`);
      continue;
    }
    if (anchor !== undefined && anchor !== "" && file.endsWith(".md")) {
      if (!headingAnchors(readFileSync(file, "utf8")).has(anchor)) {
        broken.push(`${page}: ${target} (no heading #${anchor})`);
      }
    }
  }
  return broken;
}

describe("documentation links", () => {
  it("documentationPages() finds the README, the changelog and the docs pages", () => {
    const pages = documentationPages();
    for (const page of ["README.md", "CHANGELOG.md", "docs/api.md", "docs/architecture.md"]) {
      assert.ok(pages.includes(page), page);
    }
  });

  it("every relative link and anchor resolves inside the repository", () => {
    const broken = documentationPages().flatMap((page) => brokenLinks(page));
    assert.deepEqual(broken, []);
  });

  it("brokenLinks() reports a missing file, a missing heading and a path outside", () => {
    // The checker itself, on links known to be wrong, so a checker that passes everything fails.
    const page = [
      "[ok](api.md#errors) [ok](../README.md) [ok](#here) [web](https://example.com/x.md)",
      "[gone](no_such_page.md) [anchor](api.md#no-such-heading) [out](../../outside.md)",
      "```",
      "[in code](not_checked.md)",
      "```",
      "## Here",
    ].join("\n");
    assert.deepEqual(brokenLinks("docs/example.md", page), [
      "docs/example.md: no_such_page.md (no such file)",
      "docs/example.md: api.md#no-such-heading (no heading #no-such-heading)",
      "docs/example.md: ../../outside.md (outside the repository)",
    ]);
  });

  it("headingAnchors() makes GitHub's anchors, numbering repeated headings", () => {
    assert.deepEqual([...headingAnchors("# A b\n## Ça, `x` — y\n## A b\n")], [
      "a-b",
      "ça-x--y",
      "a-b-1",
    ]);
    assert.ok(headingAnchors("## The store's crash rules\n").has("the-stores-crash-rules"));
  });
});

describe("the repository stands on its own", () => {
  it("no tracked file refers to requirements outside the repository", (t) => {
    const listed = spawnSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" });
    if (listed.status !== 0) {
      t.skip("not a git checkout");
      return;
    }
    const offenders: string[] = [];
    for (const path of listed.stdout.split("\0").filter((name) => name !== "")) {
      const file = join(ROOT, path);
      if (!existsSync(file)) continue;
      const text = readFileSync(file, "latin1");
      if (text.includes("\0")) continue; // binary
      text.split("\n").forEach((line, index) => {
        for (const needle of OUTSIDE_REFERENCES) {
          if (line.includes(needle)) offenders.push(`${path}:${index + 1}: ${needle}`);
        }
      });
    }
    assert.deepEqual(offenders, []);
  });
});
