/**
 * PEM files (`TLS_CERT_FILE`, `TLS_KEY_FILE`, `DATABASE_SSL_CA_FILE`), checked with node:crypto at
 * start and on SIGHUP so every runtime refuses a bad pair alike (exit 2). A certificate outside its
 * dates only warns: a clock or a renewal may be wrong for a moment.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConfigError } from "./settings.ts";
import { errorCodeOf } from "../observe/error_code.ts";

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
  /** The leaf's validity, in milliseconds since the epoch (NaN if its dates cannot be read). */
  readonly notBefore: number;
  readonly notAfter: number;
}

/**
 * The keys every runtime's TLS can serve (RSA ≥ 2048, ECDSA P-256/384/521, Ed25519): each other
 * kind fails on one runtime or another (docs/https.md), so it is refused everywhere.
 */
const MIN_RSA_BITS = 2048;
const SERVABLE_CURVES = new Set(["prime256v1", "secp384r1", "secp521r1"]);
const SERVABLE_KEYS = "RSA of 2048 bits or more, ECDSA on P-256, P-384 or P-521, or Ed25519";

/** Why every runtime cannot serve `key`, or undefined when it can. */
function unservableKind(key: KeyObject): string | undefined {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case "rsa":
      return (details.modulusLength ?? 0) >= MIN_RSA_BITS
        ? undefined
        : `an RSA key of ${details.modulusLength} bits`;
    case "ec":
      return SERVABLE_CURVES.has(details.namedCurve ?? "")
        ? undefined
        : `an EC key on ${details.namedCurve ?? "a curve given by its parameters"}`;
    case "ed25519":
      return undefined;
    default:
      return `a key of type ${key.asymmetricKeyType}`;
  }
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
  let privateKey: KeyObject;
  try {
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) throw new Error("no PEM key");
    privateKey = createPrivateKey(key);
  } catch {
    // An encrypted key lands here too: the service has no passphrase to give. So do the kinds
    // Bun's crypto cannot read (Ed448, secp256k1, RSA-PSS), refused below on the others.
    const message = `TLS_KEY_FILE ${keyFile} holds no unencrypted PEM private key ` +
      `the service can use (${SERVABLE_KEYS})`;
    throw new ConfigError("TLS_KEY_FILE", message);
  }
  const unservable = unservableKind(privateKey);
  if (unservable !== undefined) {
    const message = `TLS_KEY_FILE ${keyFile} holds ${unservable}, which not every runtime ` +
      `can serve: use ${SERVABLE_KEYS}`;
    throw new ConfigError("TLS_KEY_FILE", message);
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    const message =
      `TLS_KEY_FILE ${keyFile} does not match the certificate in TLS_CERT_FILE ${certFile}`;
    throw new ConfigError("TLS_KEY_FILE", message);
  }
  return {
    certFile,
    keyFile,
    cert,
    key,
    fingerprint: leaf.fingerprint256,
    // `validFrom`/`validTo` ("Jan  1 00:00:00 2021 GMT") on all three; Node 20 has no Date form.
    notBefore: Date.parse(leaf.validFrom),
    notAfter: Date.parse(leaf.validTo),
  };
}

/** The warning for a leaf certificate outside its dates at `now`, or undefined. */
export function certificateDateWarning(pair: TlsPair, now: number): string | undefined {
  const day = (time: number) => new Date(time).toISOString();
  if (now > pair.notAfter) {
    return `TLS_CERT_FILE ${pair.certFile}: the certificate expired on ${day(pair.notAfter)}; ` +
      "clients will refuse it until it is renewed";
  }
  if (now < pair.notBefore) {
    return `TLS_CERT_FILE ${pair.certFile}: the certificate is not valid before ` +
      `${day(pair.notBefore)}; clients will refuse it until then (check this machine's clock)`;
  }
  return undefined;
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
    throw new ConfigError(setting, `Cannot read ${setting} ${path}: ${errorCodeOf(error)}`);
  }
}
