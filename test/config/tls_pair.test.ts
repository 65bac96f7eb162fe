import assert from "node:assert/strict";
import { chmodSync, copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import { ConfigError } from "../../src/config/settings.ts";
import { certificateDateWarning } from "../../src/config/tls_pair.ts";
import { temporaryDirectory } from "../support/server_process.ts";
import { makeCertificate, skipWithoutOpenssl } from "../support/tls_pair.ts";

/** The setting a bad environment is refused for (its message must name it), or undefined. */
function refusedSetting(env: Record<string, string>): string | undefined {
  try {
    loadConfig(env);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.ok(error.message.includes(error.setting), error.message);
    assert.ok(!error.message.includes("\n"), "one line");
    return error.setting;
  }
}

describe("loadConfig() TLS_CERT_FILE and TLS_KEY_FILE", { skip: skipWithoutOpenssl }, () => {
  it("reads a matching pair, and serves plain HTTP without either", () => {
    const dir = temporaryDirectory("tls-config-");
    try {
      const a = makeCertificate(dir.path, "a");
      const tls = loadConfig({ TLS_CERT_FILE: a.certFile, TLS_KEY_FILE: a.keyFile }).tls;
      assert.equal(tls?.cert, a.cert);
      assert.match(tls?.key ?? "", /PRIVATE KEY/);
      assert.equal(tls?.fingerprint, a.fingerprint);
      assert.equal(loadConfig({}).tls, undefined);
    } finally {
      dir.remove();
    }
  });

  it("refuses one alone, an unreadable or non-PEM file, and a mismatched pair", () => {
    const dir = temporaryDirectory("tls-config-");
    try {
      const a = makeCertificate(dir.path, "a");
      const b = makeCertificate(dir.path, "b");
      const text = join(dir.path, "notes.txt");
      writeFileSync(text, "not a certificate\n");
      const locked = join(dir.path, "locked.key");
      copyFileSync(a.keyFile, locked);
      chmodSync(locked, 0o000);
      const cases: [Record<string, string>, string][] = [
        [{ TLS_CERT_FILE: a.certFile }, "TLS_KEY_FILE"],
        [{ TLS_KEY_FILE: a.keyFile }, "TLS_CERT_FILE"],
        [{ TLS_CERT_FILE: "", TLS_KEY_FILE: a.keyFile }, "TLS_CERT_FILE"],
        [{ TLS_CERT_FILE: join(dir.path, "gone.crt"), TLS_KEY_FILE: a.keyFile }, "TLS_CERT_FILE"],
        [{ TLS_CERT_FILE: a.certFile, TLS_KEY_FILE: join(dir.path, "gone.key") }, "TLS_KEY_FILE"],
        [{ TLS_CERT_FILE: a.certFile, TLS_KEY_FILE: dir.path }, "TLS_KEY_FILE"], // EISDIR
        [{ TLS_CERT_FILE: text, TLS_KEY_FILE: a.keyFile }, "TLS_CERT_FILE"],
        [{ TLS_CERT_FILE: a.certFile, TLS_KEY_FILE: text }, "TLS_KEY_FILE"],
        // The two halves swapped: each file is PEM, but of the wrong kind.
        [{ TLS_CERT_FILE: a.keyFile, TLS_KEY_FILE: a.certFile }, "TLS_CERT_FILE"],
        [{ TLS_CERT_FILE: a.certFile, TLS_KEY_FILE: a.certFile }, "TLS_KEY_FILE"],
        [{ TLS_CERT_FILE: a.certFile, TLS_KEY_FILE: b.keyFile }, "TLS_KEY_FILE"],
      ];
      // root reads a mode-000 file all the same: that case holds only for other users.
      if (process.getuid?.() !== 0) {
        cases.push([{ TLS_CERT_FILE: a.certFile, TLS_KEY_FILE: locked }, "TLS_KEY_FILE"]);
      }
      for (const [env, setting] of cases) {
        assert.equal(refusedSetting(env), setting, JSON.stringify(env));
      }
      assert.throws(
        () => loadConfig({ TLS_CERT_FILE: join(dir.path, "gone.crt"), TLS_KEY_FILE: a.keyFile }),
        /Cannot read TLS_CERT_FILE .*gone\.crt: ENOENT$/,
      );
      assert.throws(
        () => loadConfig({ TLS_CERT_FILE: text, TLS_KEY_FILE: a.keyFile }),
        /TLS_CERT_FILE .*notes\.txt holds no PEM certificate$/,
      );
      assert.throws(
        () => loadConfig({ TLS_CERT_FILE: a.certFile, TLS_KEY_FILE: b.keyFile }),
        /TLS_KEY_FILE .*b\.key does not match the certificate in TLS_CERT_FILE/,
      );
      // The key's text never reaches a message.
      assert.throws(
        () => loadConfig({ TLS_CERT_FILE: a.keyFile, TLS_KEY_FILE: a.keyFile }),
        (error: Error) => !error.message.includes("PRIVATE KEY"),
      );
    } finally {
      dir.remove();
    }
  });

  it("refuses a key not every runtime can serve, or garbage in PEM armour, naming TLS_KEY_FILE", () => {
    const dir = temporaryDirectory("tls-config-");
    try {
      const garbage = join(dir.path, "garbage.key");
      writeFileSync(
        garbage,
        "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
      );
      const usable = makeCertificate(dir.path, "usable");
      const cases: [string, string][] = [[usable.certFile, garbage]];
      // Deno cannot listen with any of these; Bun cannot read the last two; Node can serve
      // RSA-1024 and Ed448 (and listens with secp256k1, then fails every handshake).
      for (const key of ["rsa1024", "ed448", "secp256k1"] as const) {
        const pair = makeCertificate(dir.path, key, { key });
        cases.push([pair.certFile, pair.keyFile]);
      }
      for (const [certFile, keyFile] of cases) {
        const env = { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile };
        assert.equal(refusedSetting(env), "TLS_KEY_FILE", keyFile);
        assert.throws(() => loadConfig(env), /RSA of 2048 bits or more, ECDSA on P-256/, keyFile);
      }
      assert.throws(
        () => loadConfig({ TLS_CERT_FILE: cases[1][0], TLS_KEY_FILE: cases[1][1] }),
        /rsa1024\.key holds an RSA key of 1024 bits, which not every runtime can serve/,
      );
    } finally {
      dir.remove();
    }
  });

  it("reads the certificate's dates, and warns of one outside them naming the file and the date", () => {
    const dir = temporaryDirectory("tls-config-");
    try {
      const pairOf = (name: string, validity?: { from: string; to: string }) => {
        const made = makeCertificate(dir.path, name, { validity });
        const tls = loadConfig({ TLS_CERT_FILE: made.certFile, TLS_KEY_FILE: made.keyFile }).tls;
        assert.ok(tls !== undefined);
        return tls;
      };
      const current = pairOf("current");
      // After the certificate is made: its notBefore is the second it was made in.
      const now = Date.now();
      assert.ok(current.notBefore <= now && now < current.notAfter);
      assert.equal(certificateDateWarning(current, now), undefined);

      const expired = pairOf("expired", { from: "20200101000000Z", to: "20210101000000Z" });
      assert.equal(expired.notAfter, Date.UTC(2021, 0, 1));
      assert.equal(
        certificateDateWarning(expired, now),
        `TLS_CERT_FILE ${join(dir.path, "expired.crt")}: the certificate expired on ` +
          "2021-01-01T00:00:00.000Z; clients will refuse it until it is renewed",
      );
      assert.equal(certificateDateWarning(expired, Date.UTC(2020, 5, 1)), undefined);

      const early = pairOf("early", { from: "21000101000000Z", to: "21010101000000Z" });
      assert.match(
        certificateDateWarning(early, now) ?? "",
        /early\.crt: the certificate is not valid before 2100-01-01T00:00:00\.000Z/,
      );
    } finally {
      dir.remove();
    }
  });
});
