/** Reading the repository's Markdown pages in the docs tests: links, headings, sections. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root directory. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The pages whose links are checked: README.md, CHANGELOG.md and every docs/*.md. */
export function documentationPages(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  return ["README.md", "CHANGELOG.md", ...docs.sort()];
}

/** A page's text, with fenced code blocks blanked out (their brackets are not links). */
export function proseOf(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "");
}

/** The targets of the inline links `[text](target)` of a page's prose. */
export function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const match of proseOf(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    targets.push(match[1]);
  }
  return targets;
}

/** The anchors GitHub makes for a page's headings (lower case, punctuation dropped, - for space). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of proseOf(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = match[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The text of the `## title` section of a page, up to the next `## ` heading. */
export function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`No section "## ${title}"`);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** Reads a file of the repository as text. */
export function readPage(path: string): string {
  return readFileSync(join(ROOT, path), "utf8");
}
