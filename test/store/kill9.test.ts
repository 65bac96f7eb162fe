import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { removeTempDirs, tempDir } from "./helpers.ts";

after(removeTempDirs);

const child = fileURLToPath(new URL("./fixtures/append_child.ts", import.meta.url));
const root = fileURLToPath(new URL("../../", import.meta.url));

/** The command that runs a TypeScript file on the runtime running this test. */
function runtimeCommand(script: string): string[] {
  if ("Deno" in globalThis) return [process.execPath, "run", "-A", script];
  if ("Bun" in globalThis) return [process.execPath, script];
  return []; // Node runs bundles only: skipped
}

describe("JsonlStore under kill -9", () => {
  it(
    "keeps every answered pet when the writing process is killed",
    { timeout: 20_000 },
    async (t) => {
      const command = runtimeCommand(child);
      if (command.length === 0) return t.skip("needs Deno or Bun");
      const dataDir = join(tempDir(), "data");
      const process_ = spawn(command[0], [...command.slice(1), dataDir], {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const acknowledged: number[] = [];
      let buffered = "";
      let stderr = "";
      process_.stderr.on("data", (chunk) => (stderr += chunk));
      const exited = new Promise((resolve) => process_.on("exit", resolve));
      await new Promise<void>((resolve, reject) => {
        process_.stdout.on("data", (chunk) => {
          buffered += chunk;
          const lines = buffered.split("\n");
          buffered = lines.pop()!;
          for (const line of lines) if (/^\d+$/.test(line)) acknowledged.push(Number(line));
          if (acknowledged.length >= 300) resolve();
        });
        process_.on("exit", () => reject(new Error(`child exited early: ${stderr}`)));
      });
      process_.kill("SIGKILL");
      await exited;

      const store = await openJsonlStore({ dataDir });
      for (const id of acknowledged) {
        assert.ok(
          store.get(id) !== undefined,
          `answered pet ${id} is lost`,
        );
      }
      assert.ok(store.size >= acknowledged.length);
      await store.close();
    },
  );
});
