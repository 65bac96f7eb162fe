import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { temporaryDirectory } from "../support/server_process.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

describe("test/client/animal_store.d.ts", () => {
  it("is what scripts/generate_client_types.sh makes from the current document", () => {
    const directory = temporaryDirectory();
    try {
      const output = join(directory.path, "animal_store.d.ts");
      const script = join(HERE, "../../scripts/generate_client_types.sh");
      const result = spawnSync("bash", [script, output], { encoding: "utf8" });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(
        readFileSync(output, "utf8"),
        readFileSync(join(HERE, "animal_store.d.ts"), "utf8"),
        "the committed types are stale: run scripts/generate_client_types.sh",
      );
    } finally {
      directory.remove();
    }
  });
});
