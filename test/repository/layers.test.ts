import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";

/**
 * Every module a source file imports, as written (`./pet.ts`, `typebox`, `../http/errors.ts`):
 * static imports and re-exports, type-only ones included, and dynamic `import("...")`s.
 */
function importsOf(path: string): string[] {
  const text = readFileSync(path, "utf8");
  const pattern = /^(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gms;
  return [...text.matchAll(pattern)].map((m) => m[1] ?? m[2]);
}

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `${folder}/${name}`);
}

/**
 * The import graph of each folder of `src/` (sub-folders included), between the folder's entries:
 * its files and its sub-folders, each sub-folder standing for everything under it. An import
 * from `store/open_store.ts` of `store/jsonl/writer.ts` is the edge `open_store.ts → jsonl` in
 * `store`; one from `runtime/deno.ts` of `http/url.ts` is `runtime → http` in `src`.
 */
function entryGraphs(): Map<string, Map<string, Set<string>>> {
  const graphs = new Map<string, Map<string, Set<string>>>();
  for (const file of sourcesUnder("src")) {
    for (const target of importsOf(file)) {
      if (!target.startsWith(".")) continue;
      const from = file.split("/");
      const to = join(dirname(file), target).split("/");
      let common = 0;
      while (from[common] === to[common]) common++;
      const folder = from.slice(0, common).join("/");
      if (!graphs.has(folder)) graphs.set(folder, new Map());
      const graph = graphs.get(folder)!;
      if (!graph.has(from[common])) graph.set(from[common], new Set());
      graph.get(from[common])!.add(to[common]);
    }
  }
  return graphs;
}

/** A cycle of entries as `a → b → a`, or undefined when the graph has none. */
function findCycle(graph: Map<string, Set<string>>): string | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (entry: string): string | undefined => {
    if (state.get(entry) === "open") {
      return [...stack.slice(stack.indexOf(entry)), entry].join(" → ");
    }
    if (state.get(entry) === "done") return undefined;
    state.set(entry, "open");
    stack.push(entry);
    for (const next of graph.get(entry) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    stack.pop();
    state.set(entry, "done");
    return undefined;
  };
  for (const entry of graph.keys()) {
    const cycle = visit(entry);
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

  it("http/ imports no layer above it (routes, store, openapi, docs, app, commands, the adapters)", () => {
    for (const file of sourcesUnder("src/http")) {
      for (const target of importsOf(file)) {
        assert.doesNotMatch(
          target,
          /^\.\.\/(routes|store|openapi|docs|commands)\/|^\.\.\/runtime\/(?!contract\.ts$)|^\.\.\/app\.ts$/,
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

  it("no two files or folders of src/ import each other, directly or through others", () => {
    const cycles = [...entryGraphs()].flatMap(([folder, graph]) => {
      const cycle = findCycle(graph);
      return cycle === undefined ? [] : [`${folder}: ${cycle}`];
    });
    assert.deepEqual(cycles, []);
  });

  it("the import graph sees dynamic imports and sub-folders", () => {
    assert.ok(importsOf("src/commands/healthcheck.ts").includes("./https_probe.ts"));
    const runtime = entryGraphs().get("src/runtime");
    assert.ok(runtime?.get("node.ts")?.has("node"), "runtime/node/ is one entry of runtime/");
  });

  it("runtime/ imports only its own files and the platform: no shared code knows an adapter", () => {
    for (const file of sourcesUnder("src/runtime")) {
      for (const target of importsOf(file)) {
        if (!target.startsWith(".")) continue;
        const resolved = join(dirname(file), target);
        assert.ok(resolved.startsWith("src/runtime/"), `${file} imports ${target}`);
      }
    }
  });

  it("config/ only parses: it imports neither runtime/ nor the log", () => {
    for (const file of sourcesUnder("src/config")) {
      for (const target of importsOf(file)) {
        assert.doesNotMatch(
          target,
          /^\.\.\/(runtime\/|observe\/log)/,
          `${file} imports ${target}`,
        );
      }
    }
  });

  it("the status names are spelled once, in schemas/pet.ts, for http, routes, schemas and metrics", () => {
    const folders = ["src/http", "src/routes", "src/schemas", "src/observe"];
    for (const file of folders.flatMap(sourcesUnder)) {
      if (file === "src/schemas/pet.ts") continue;
      assert.doesNotMatch(readFileSync(file, "utf8"), /\bpending\b.*\bsold\b/, file);
    }
  });
});
