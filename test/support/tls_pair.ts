/**
 * Self-signed certificate pairs for the HTTPS tests, made with the `openssl` command into a
 * temporary directory. Without openssl the HTTPS tests are skipped with a notice, unless
 * `REQUIRE_OPENSSL=1` (CI), where a missing openssl fails the run instead of hiding it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

/** `openssl genpkey` arguments of the key kinds the tests use. */
const KEY_KINDS = {
  p256: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
  rsa1024: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"],
  ed448: ["-algorithm", "ED448"],
  secp256k1: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:secp256k1"],
};

/**
 * Makes a self-signed certificate for `localhost` and 127.0.0.1 as `<name>.crt` and `<name>.key`
 * in `dir`: by default on a P-256 key (EC, not RSA: key generation is instant), valid from now for
 * two days. `validity` gives other dates (`YYYYMMDDHHMMSSZ`), through `openssl ca`, since
 * OpenSSL 3.0's `req` and `x509` take only a number of days from now.
 */
export function makeCertificate(
  dir: string,
  name: string,
  options: { key?: keyof typeof KEY_KINDS; validity?: { from: string; to: string } } = {},
): CertificateFiles {
  if (!OPENSSL_FOUND) throw new Error("REQUIRE_OPENSSL=1 but the openssl command is missing");
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });
  openssl("genpkey", ...KEY_KINDS[options.key ?? "p256"], "-out", keyFile);
  const subject = [
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=DNS:localhost,IP:127.0.0.1",
  ];
  if (options.validity === undefined) {
    openssl("req", "-x509", "-key", keyFile, "-out", certFile, "-days", "2", ...subject);
  } else {
    // A one-certificate CA of its own in a scratch directory: `ca -selfsign` signs the request
    // with its own key and takes any start and end date.
    const ca = join(dir, `${name}-ca`);
    mkdirSync(ca);
    writeFileSync(join(ca, "index.txt"), "");
    writeFileSync(join(ca, "serial"), "01\n");
    writeFileSync(
      join(ca, "ca.cnf"),
      `[ca]\ndefault_ca = self\n[self]\ndatabase = ${ca}/index.txt\nserial = ${ca}/serial\n` +
        `new_certs_dir = ${ca}\ndefault_md = sha256\npolicy = any\ncopy_extensions = copy\n` +
        `unique_subject = no\n[any]\ncommonName = supplied\n`,
    );
    const request = join(ca, "request.csr");
    openssl("req", "-new", "-key", keyFile, "-out", request, ...subject);
    openssl(
      "ca",
      "-batch",
      "-notext",
      "-config",
      join(ca, "ca.cnf"),
      "-selfsign",
      "-keyfile",
      keyFile,
      "-in",
      request,
      "-startdate",
      options.validity.from,
      "-enddate",
      options.validity.to,
      "-out",
      certFile,
    );
  }
  const cert = readFileSync(certFile, "utf8");
  return { certFile, keyFile, cert, fingerprint: new X509Certificate(cert).fingerprint256 };
}
