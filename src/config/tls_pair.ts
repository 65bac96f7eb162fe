/**
 * PEM files: `TLS_CERT_FILE` and `TLS_KEY_FILE`, the certificate chain and private key that turn
 * `PORT` into HTTPS, and `DATABASE_SSL_CA_FILE`. An unreadable file, a file that is not PEM or a
 * key that does not belong to the certificate is a bad setting (exit 2), checked here at start so
 * every runtime refuses it the same way, before listening (node:crypto does the checks on Deno,
 * Bun and Node alike). SIGHUP reads the pair again through the same function.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConfigError } from "./settings.ts";

/** A certificate chain and its private key, read and checked. */
export interface TlsPair {
  readonly certFile: string;
  readonly keyFile: string;
  /** PEM text of the chain, leaf first. */
  readonly cert: string;
  /** PEM text of the private key; never logged. */
  readonly key: string;
  /** SHA-256 fingerprint of the leaf (`AB:CD:…`), for logs: it tells which pair is served. */
  readonly fingerprint: string;
}

/** Reads both files and checks that the key belongs to the certificate; throws `ConfigError`. */
export function readTlsPair(certFile: string, keyFile: string): TlsPair {
  const cert = readCertificates("TLS_CERT_FILE", certFile);
  const key = readPem("TLS_KEY_FILE", keyFile);
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch {
    throw new ConfigError("TLS_CERT_FILE", `TLS_CERT_FILE ${certFile} holds no PEM certificate`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) throw new Error("no PEM key");
    privateKey = createPrivateKey(key);
  } catch {
    // An encrypted key lands here too: the service has no passphrase to give.
    throw new ConfigError(
      "TLS_KEY_FILE",
      `TLS_KEY_FILE ${keyFile} holds no unencrypted PEM private key`,
    );
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new ConfigError(
      "TLS_KEY_FILE",
      `TLS_KEY_FILE ${keyFile} does not match the certificate in TLS_CERT_FILE ${certFile}`,
    );
  }
  return { certFile, keyFile, cert, key, fingerprint: leaf.fingerprint256 };
}

/** The PEM text of the file of `setting`, which must hold a certificate; throws `ConfigError`. */
export function readCertificates(setting: string, path: string): string {
  const text = readPem(setting, path);
  if (text.includes("-----BEGIN CERTIFICATE-----")) return text;
  throw new ConfigError(setting, `${setting} ${path} holds no PEM certificate`);
}

function readPem(setting: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(setting, `Cannot read ${setting} ${path}: ${code}`);
  }
}
