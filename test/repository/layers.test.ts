import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";

/** Every module a source file imports, as written (`./pet.ts`, `typebox`, `../http/errors.ts`). */
function importsOf(path: string): string[] {
  const text = readFileSync(path, "utf8");
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)].map((m) => m[1]);
}

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `${folder}/${name}`);
}

/** The top folder of `src/` a file lives in (`http`, `store`); a file at the top is its own. */
function folderOf(file: string): string {
  const inSrc = relative("src", file);
  return inSrc.includes("/") ? inSrc.slice(0, inSrc.indexOf("/")) : inSrc;
}

/** Which top folders of `src/` each top folder imports (its own excluded). */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourcesUnder("src")) {
    const from = folderOf(file);
    for (const target of importsOf(file)) {
      if (!target.startsWith(".")) continue;
      const to = folderOf(join(dirname(file), target));
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** A cycle of folders as `a → b → a`, or undefined when the graph has none. */
function findCycle(graph: Map<string, Set<string>>): string | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (folder: string): string | undefined => {
    if (state.get(folder) === "open") {
      return [...stack.slice(stack.indexOf(folder)), folder].join(" → ");
    }
    if (state.get(folder) === "done") return undefined;
    state.set(folder, "open");
    stack.push(folder);
    for (const next of graph.get(folder) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    stack.pop();
    state.set(folder, "done");
    return undefined;
  };
  for (const folder of graph.keys()) {
    const cycle = visit(folder);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

describe("the layers of src/", () => {
  it("schemas/ is the bottom layer: it imports only its own files and typebox", () => {
    for (const file of sourcesUnder("src/schemas")) {
      for (const target of importsOf(file)) {
        assert.match(target, /^(\.\/[a-z_]+\.ts|typebox(\/[a-z]+)?)$/, `${file} imports ${target}`);
      }
    }
  });

  it("http/ imports no layer above it (routes, store, openapi, docs, app, commands, runtime)", () => {
    for (const file of sourcesUnder("src/http")) {
      for (const target of importsOf(file)) {
        assert.doesNotMatch(
          target,
          /^\.\.\/(routes|store|openapi|docs|commands|runtime)\/|^\.\.\/app\.ts$/,
          `${file} imports ${target}`,
        );
      }
    }
  });

  it("store/catalogue/ imports neither store, and nothing under store/ imports tools/ or commands/", () => {
    for (const file of sourcesUnder("src/store/catalogue")) {
      for (const target of importsOf(file)) {
        assert.doesNotMatch(target, /^\.\.\/(jsonl|postgres)\//, `${file} imports ${target}`);
      }
    }
    for (const file of sourcesUnder("src/store")) {
      for (const target of importsOf(file)) {
        assert.doesNotMatch(target, /\/(tools|commands)\//, `${file} imports ${target}`);
      }
    }
  });

  it("no two folders of src/ import each other, directly or through others", () => {
    assert.equal(findCycle(folderGraph()), undefined);
  });

  it("the status names are spelled once, in schemas/pet.ts, for http, routes, schemas and metrics", () => {
    const folders = ["src/http", "src/routes", "src/schemas", "src/metrics"];
    for (const file of folders.flatMap(sourcesUnder)) {
      if (file === "src/schemas/pet.ts") continue;
      assert.doesNotMatch(readFileSync(file, "utf8"), /\bpending\b.*\bsold\b/, file);
    }
  });
});
