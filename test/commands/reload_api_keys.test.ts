import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import { reloadApiKeys } from "../../src/commands/serve.ts";
import { keyDigest, KeyRing } from "../../src/http/auth.ts";
import { createMemoryLogger } from "../support/memory_logger.ts";

function withKeysFile(test: (file: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "key-reload-"));
  try {
    test(join(dir, "keys.txt"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("reloadApiKeys()", () => {
  it("replaces the keys with the file's, plus API_KEYS from the environment", () => {
    withKeysFile((file) => {
      writeFileSync(file, "old-key\n");
      const config = loadConfig({ API_KEYS: "env-key", API_KEYS_FILE: file });
      const keys = new KeyRing([keyDigest("env-key"), keyDigest("old-key")]);
      writeFileSync(file, "# rotated\nnew-key\n");
      const log = createMemoryLogger();
      assert.equal(reloadApiKeys(config, keys, log), true);
      assert.equal(keys.verify("old-key"), undefined);
      assert.ok(keys.verify("new-key") !== undefined);
      assert.ok(keys.verify("env-key") !== undefined);
      assert.equal(log.lines[0].level, "info");
    });
  });

  it("keeps the old keys and warns, without any key, when the file is empty, bad or gone", () => {
    withKeysFile((file) => {
      writeFileSync(file, "old-key\n");
      const config = loadConfig({ API_KEYS_FILE: file });
      const keys = new KeyRing([keyDigest("old-key")]);
      for (const text of ["", "# only a comment\n", "sha256:abc\n", "secret with space\n", null]) {
        if (text === null) rmSync(file);
        else writeFileSync(file, text);
        const log = createMemoryLogger();
        assert.equal(reloadApiKeys(config, keys, log), false, JSON.stringify(text));
        assert.ok(keys.verify("old-key") !== undefined);
        assert.equal(log.lines.length, 1);
        assert.equal(log.lines[0].level, "warn");
        assert.match(String(log.lines[0].msg), /keeping the previous 1 API keys: API_KEYS_FILE/);
        assert.ok(!JSON.stringify(log.lines).includes("old-key"));
        assert.ok(!JSON.stringify(log.lines).includes("secret"));
      }
    });
  });

  it("changes nothing without API_KEYS_FILE", () => {
    const keys = new KeyRing([keyDigest("env-key")]);
    const log = createMemoryLogger();
    assert.equal(reloadApiKeys(loadConfig({ API_KEYS: "env-key" }), keys, log), false);
    assert.ok(keys.verify("env-key") !== undefined);
  });
});
