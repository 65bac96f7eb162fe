/**
 * PEM files: `TLS_CERT_FILE` and `TLS_KEY_FILE`, the certificate chain and private key that turn
 * `PORT` into HTTPS, and `DATABASE_SSL_CA_FILE`. An unreadable file, a file that is not PEM or a
 * key that does not belong to the certificate is a bad setting (exit 2), checked here at start so
 * every runtime refuses it the same way, before listening (node:crypto does the checks on Deno,
 * Bun and Node alike). SIGHUP reads the pair again through the same function.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Logger } from "../log.ts";
import type { RunningServer } from "../runtime/server.ts";
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
    const message = `TLS_KEY_FILE ${keyFile} holds no unencrypted PEM private key`;
    throw new ConfigError("TLS_KEY_FILE", message);
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    const message =
      `TLS_KEY_FILE ${keyFile} does not match the certificate in TLS_CERT_FILE ${certFile}`;
    throw new ConfigError("TLS_KEY_FILE", message);
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

/**
 * SIGHUP: reads the pair `current` came from again; returns the pair now served. Where the runtime
 * can swap the certificate of a running server (Node), new connections get the new pair and open
 * ones keep theirs. A pair that cannot be read, is not PEM or does not match keeps the old one and
 * logs why: a half-copied renewal must not take HTTPS down. Where the runtime cannot swap (Deno,
 * Bun), the new pair is still checked, and the log says a restart is needed to serve it.
 */
export function reloadTls(
  current: TlsPair,
  server: Pick<RunningServer, "replaceTls">,
  { runtime, log }: { runtime: string; log: Logger },
): TlsPair {
  let next: TlsPair;
  try {
    next = readTlsPair(current.certFile, current.keyFile);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log.warn({
      msg: `SIGHUP: keeping the previous TLS certificate: ${error.message}`,
      setting: error.setting,
      fingerprint: current.fingerprint,
    });
    return current;
  }
  if (server.replaceTls === undefined) {
    log.warn({
      msg:
        `SIGHUP: ${runtime} cannot swap the TLS certificate of a running server; restart the service to serve the one in TLS_CERT_FILE`,
      fingerprint: current.fingerprint,
      next: next.fingerprint,
    });
    return current;
  }
  server.replaceTls({ cert: next.cert, key: next.key });
  log.info({ msg: "SIGHUP: TLS certificate reloaded", fingerprint: next.fingerprint });
  return next;
}
