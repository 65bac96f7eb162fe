/**
 * `TLS_CERT_FILE` and `TLS_KEY_FILE`: the PEM certificate chain and private key that turn `PORT`
 * into HTTPS. Both or neither; one alone, an unreadable file, a file that is not PEM or a key
 * that does not belong to the certificate is a bad setting (exit 2), checked here at start so
 * every runtime refuses it the same way, before listening (node:crypto does the checks on Deno,
 * Bun and Node alike). SIGHUP reads the pair again through the same function.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
// A cycle with config.ts, harmless: ConfigError is used only when a function here runs.
import { ConfigError } from "./config.ts";

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

type Environment = Readonly<Record<string, string | undefined>>;

/** The pair named by the environment, or undefined for plain HTTP; throws `ConfigError`. */
export function tlsSetting(env: Environment): TlsPair | undefined {
  const certFile = env.TLS_CERT_FILE;
  const keyFile = env.TLS_KEY_FILE;
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    const missing = certFile === undefined ? "TLS_CERT_FILE" : "TLS_KEY_FILE";
    const present = certFile === undefined ? "TLS_KEY_FILE" : "TLS_CERT_FILE";
    throw new ConfigError(missing, `${present} is set but ${missing} is not; set both or neither`);
  }
  return readTlsPair(certFile, keyFile);
}

/** Reads both files and checks that the key belongs to the certificate; throws `ConfigError`. */
export function readTlsPair(certFile: string, keyFile: string): TlsPair {
  const cert = readPem("TLS_CERT_FILE", certFile);
  const key = readPem("TLS_KEY_FILE", keyFile);
  let leaf: X509Certificate;
  try {
    if (!cert.includes("-----BEGIN CERTIFICATE-----")) throw new Error("no PEM certificate");
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

function readPem(setting: string, path: string): string {
  if (path.trim() === "") {
    throw new ConfigError(setting, `${setting} must be a file path, got an empty value`);
  }
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(setting, `Cannot read ${setting} ${path}: ${code}`);
  }
}
