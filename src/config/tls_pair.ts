/**
 * PEM files (`TLS_CERT_FILE`, `TLS_KEY_FILE`, `DATABASE_SSL_CA_FILE`), checked with node:crypto at
 * start and on SIGHUP so every runtime refuses a bad pair alike (exit 2). A certificate outside its
 * dates only warns: a clock or a renewal may be wrong for a moment.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { ConfigError, readSettingFile } from "./settings.ts";

/** A certificate chain (PEM, leaf first) and its private key (PEM, never logged), checked. */
export type TlsPair = Readonly<ReturnType<typeof readTlsPair>>;

/** The keys every runtime's TLS can serve: any other fails on one or another (docs/https.md). */
const SERVABLE_KEYS = "RSA of 2048 bits or more, ECDSA on P-256, P-384 or P-521, or Ed25519";
const SERVABLE_CURVES = new Set(["prime256v1", "secp384r1", "secp521r1"]);

/** Why not every runtime can serve `key`, or undefined when all can. */
function unservableKind(key: KeyObject): string | undefined {
  const { modulusLength = 0, namedCurve } = key.asymmetricKeyDetails ?? {};
  const type = key.asymmetricKeyType;
  if (type === "ed25519" || (type === "rsa" && modulusLength >= 2048)) return undefined;
  if (type === "ec" && SERVABLE_CURVES.has(namedCurve ?? "")) return undefined;
  if (type === "rsa") return `an RSA key of ${modulusLength} bits`;
  if (type === "ec") return `an EC key on ${namedCurve ?? "a curve given by its parameters"}`;
  return `a key of type ${type}`;
}

/** Reads both files and checks that the key belongs to the certificate; throws `ConfigError`. */
export function readTlsPair(certFile: string, keyFile: string) {
  const cert = readCertificates("TLS_CERT_FILE", certFile);
  const key = readSettingFile("TLS_KEY_FILE", keyFile);
  const refuse = (why: string) => new ConfigError("TLS_KEY_FILE", `TLS_KEY_FILE ${keyFile} ${why}`);
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
    // So does an encrypted key (the service has no passphrase) and a kind Bun's crypto cannot
    // read (Ed448, secp256k1, RSA-PSS), refused below on the others.
    throw refuse(`holds no unencrypted PEM private key the service can use (${SERVABLE_KEYS})`);
  }
  const unservable = unservableKind(privateKey);
  if (unservable !== undefined) {
    throw refuse(`holds ${unservable}, which not every runtime can serve: use ${SERVABLE_KEYS}`);
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    throw refuse(`does not match the certificate in TLS_CERT_FILE ${certFile}`);
  }
  return {
    certFile,
    keyFile,
    cert,
    key,
    /** SHA-256 fingerprint of the leaf (`AB:CD:…`): the logs tell which pair is served. */
    fingerprint: leaf.fingerprint256,
    // In ms (NaN if unreadable) from `validFrom`/`validTo` ("Jan  1 00:00:00 2021 GMT"), on all
    // three runtimes; Node 20 has no Date form.
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
  const text = readSettingFile(setting, path);
  if (text.includes("-----BEGIN CERTIFICATE-----")) return text;
  throw new ConfigError(setting, `${setting} ${path} holds no PEM certificate`);
}
