import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
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

describe("the layers of src/", () => {
  it("schemas/ is the bottom layer: it imports only its own files and typebox", () => {
    for (const file of sourcesUnder("src/schemas")) {
      for (const target of importsOf(file)) {
        assert.match(target, /^(\.\/[a-z_]+\.ts|typebox(\/[a-z]+)?)$/, `${file} imports ${target}`);
      }
    }
  });

  it("http/ imports no layer above it (routes, openapi, docs, app, commands, runtime)", () => {
    for (const file of sourcesUnder("src/http")) {
      for (const target of importsOf(file)) {
        assert.doesNotMatch(
          target,
          /^\.\.\/(routes|openapi|docs|commands|runtime)\/|^\.\.\/app\.ts$/,
          `${file} imports ${target}`,
        );
      }
    }
  });

  it("the status names are spelled once, in schemas/pet.ts, for http, routes, schemas and metrics", () => {
    const folders = ["src/http", "src/routes", "src/schemas", "src/metrics", "src/cache"];
    for (const file of folders.flatMap(sourcesUnder)) {
      if (file === "src/schemas/pet.ts") continue;
      assert.doesNotMatch(readFileSync(file, "utf8"), /\bpending\b.*\bsold\b/, file);
    }
  });
});
