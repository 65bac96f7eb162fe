/**
 * Self-signed certificate pairs for the HTTPS tests, made with the `openssl` command into a
 * temporary directory. Without openssl the HTTPS tests are skipped with a notice, unless
 * `REQUIRE_OPENSSL=1` (CI), where a missing openssl fails the run instead of hiding it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

const OPENSSL_FOUND = spawnSync("openssl", ["version"], { stdio: "ignore" }).status === 0;

/** Why the tests that need a certificate are skipped, or false when they run. */
export const skipWithoutOpenssl: string | false = OPENSSL_FOUND
  ? false
  : process.env.REQUIRE_OPENSSL === "1"
  ? false // run, and fail in makeCertificate: CI must not pass by skipping
  : "openssl not installed: HTTPS tests skipped (REQUIRE_OPENSSL=1 fails them)";
if (skipWithoutOpenssl) console.log(skipWithoutOpenssl);

/** A certificate and its key on disk, with the PEM text and the leaf's SHA-256 fingerprint. */
export interface CertificateFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly fingerprint: string;
}

/**
 * Makes a self-signed P-256 certificate for `localhost` and 127.0.0.1, valid for two days, as
 * `<name>.crt` and `<name>.key` in `dir` (EC, not RSA: key generation is instant).
 */
export function makeCertificate(dir: string, name: string): CertificateFiles {
  if (!OPENSSL_FOUND) throw new Error("REQUIRE_OPENSSL=1 but the openssl command is missing");
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "2",
    "-subj",
    `/CN=localhost`,
    "-addext",
    "subjectAltName=DNS:localhost,IP:127.0.0.1",
  ], { stdio: "ignore" });
  const cert = readFileSync(certFile, "utf8");
  return { certFile, keyFile, cert, fingerprint: new X509Certificate(cert).fingerprint256 };
}
