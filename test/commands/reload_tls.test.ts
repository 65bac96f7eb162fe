import assert from "node:assert/strict";
import { copyFileSync, writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import { reloadTls } from "../../src/commands/serve.ts";
import { createMemoryLogger } from "../support/memory_logger.ts";
import type { TlsMaterial } from "../../src/runtime/contract.ts";
import { temporaryDirectory } from "../support/server_process.ts";
import { makeCertificate, skipWithoutOpenssl } from "../support/tls_pair.ts";

/** Starts from pair `a` at the paths the service was given; `b` is a second, unrelated pair. */
function withPairs(
  test: (
    paths: { certFile: string; keyFile: string },
    b: { certFile: string; keyFile: string },
  ) => void,
): void {
  const dir = temporaryDirectory("tls-reload-");
  try {
    const a = makeCertificate(dir.path, "a");
    const b = makeCertificate(dir.path, "b");
    const paths = { certFile: `${dir.path}/served.crt`, keyFile: `${dir.path}/served.key` };
    copyFileSync(a.certFile, paths.certFile);
    copyFileSync(a.keyFile, paths.keyFile);
    test(paths, b);
  } finally {
    dir.remove();
  }
}

describe("reloadTls()", { skip: skipWithoutOpenssl }, () => {
  it("hands the new pair to a server that can swap it, and returns it", () => {
    withPairs((paths, b) => {
      const current = loadConfig({ TLS_CERT_FILE: paths.certFile, TLS_KEY_FILE: paths.keyFile })
        .tls!;
      copyFileSync(b.certFile, paths.certFile);
      copyFileSync(b.keyFile, paths.keyFile);
      const given: TlsMaterial[] = [];
      const log = createMemoryLogger();
      const served = reloadTls(current, { replaceTls: (tls) => given.push(tls) }, {
        runtime: "node",
        log,
      });
      assert.notEqual(served.fingerprint, current.fingerprint);
      assert.equal(given.length, 1);
      assert.equal(given[0].cert, served.cert);
      assert.equal(log.lines[0].level, "info");
      assert.ok(!JSON.stringify(log.lines).includes("PRIVATE KEY"));
    });
  });

  it("keeps the old pair and says why when the new one is mismatched, gone or not PEM", () => {
    withPairs((paths, b) => {
      const current = loadConfig({ TLS_CERT_FILE: paths.certFile, TLS_KEY_FILE: paths.keyFile })
        .tls!;
      const breaks: [() => void, RegExp][] = [
        [() => copyFileSync(b.keyFile, paths.keyFile), /does not match/],
        [() => writeFileSync(paths.certFile, "half a file"), /holds no PEM certificate/],
        [() => writeFileSync(paths.keyFile, ""), /no unencrypted PEM private key/],
      ];
      for (const [breakIt, reason] of breaks) {
        writeFileSync(paths.certFile, current.cert);
        writeFileSync(paths.keyFile, current.key);
        breakIt();
        const given: TlsMaterial[] = [];
        const log = createMemoryLogger();
        const served = reloadTls(current, { replaceTls: (tls) => given.push(tls) }, {
          runtime: "node",
          log,
        });
        assert.equal(served, current);
        assert.equal(given.length, 0);
        assert.equal(log.lines.length, 1);
        assert.equal(log.lines[0].level, "warn");
        assert.match(String(log.lines[0].msg), /keeping the previous TLS certificate/);
        assert.match(String(log.lines[0].msg), reason);
      }
    });
  });

  it("says a restart is needed where the runtime cannot swap", () => {
    withPairs((paths, b) => {
      const current = loadConfig({ TLS_CERT_FILE: paths.certFile, TLS_KEY_FILE: paths.keyFile })
        .tls!;
      copyFileSync(b.certFile, paths.certFile);
      copyFileSync(b.keyFile, paths.keyFile);
      const log = createMemoryLogger();
      assert.equal(reloadTls(current, {}, { runtime: "deno", log }), current);
      assert.equal(log.lines[0].level, "warn");
      assert.match(String(log.lines[0].msg), /deno cannot swap .* restart/);
    });
  });
});
