/** The settings (docs/configuration.md), each read by `settings.ts`, then the rules tying two. */
import { ConfigError, type Environment, SETTINGS, settingsOf } from "./settings.ts";
import { readCertificates, readTlsPair } from "./tls_pair.ts";

export type Config = Readonly<ReturnType<typeof loadConfig>>;

export type DatabaseConfig = NonNullable<Config["database"]>;

/** Throws `ConfigError` on the first bad setting. */
export function loadConfig(env: Environment) {
  const setting = settingsOf(env);
  return {
    port: setting("PORT"),
    host: setting("HOST"),
    dataDir: setting("DATA_DIR"),
    apiKeys: setting("API_KEYS"),
    apiKeysFile: setting("API_KEYS_FILE"),
    /** `""` serves the API at the root. */
    basePath: setting("BASE_PATH"),
    maxBodyBytes: setting("MAX_BODY_BYTES"),
    publicUrl: setting("PUBLIC_URL"),
    /** `["*"]` for any origin; empty when CORS is off. */
    corsOrigins: setting("CORS_ORIGINS") ?? [],
    rateLimit: setting("RATE_LIMIT"),
    metrics: setting("METRICS"),
    cacheBytes: setting("CACHE_BYTES"),
    shutdownTimeoutSeconds: setting("SHUTDOWN_TIMEOUT"),
    /** Seconds between the signal and closing the listener, with `/readyz` 503 meanwhile. */
    shutdownDelaySeconds: setting("SHUTDOWN_DELAY"),
    /** Undefined keeps the file store. */
    database: databaseSettings(env, setting),
    /** `TLS_CERT_FILE` and `TLS_KEY_FILE`, read and checked; undefined serves plain HTTP. */
    tls: tlsSettings(env, setting),
  };
}

function unpaired(present: string, missing: string, setting = present): ConfigError {
  return new ConfigError(setting, `${present} is set but ${missing} is not; set both or neither`);
}

function databaseSettings(env: Environment, setting: ReturnType<typeof settingsOf>) {
  const url = setting("DATABASE_URL");
  if (url === undefined) {
    const present = Object.keys(SETTINGS).find((name) =>
      name.startsWith("DATABASE_") && name !== "DATABASE_URL" && env[name] !== undefined
    );
    if (present !== undefined) throw unpaired(present, "DATABASE_URL");
    return undefined;
  }
  const ssl = setting("DATABASE_SSL");
  const sslCaFile = setting("DATABASE_SSL_CA_FILE");
  if (sslCaFile !== undefined && ssl !== "verify-full") {
    const message = "DATABASE_SSL_CA_FILE is used only with DATABASE_SSL=verify-full";
    throw new ConfigError("DATABASE_SSL_CA_FILE", message);
  }
  return {
    url, // never logged: it may hold a password
    poolSize: setting("DATABASE_POOL_SIZE"),
    statementTimeoutMs: setting("DATABASE_STATEMENT_TIMEOUT_MS"),
    ssl, // undefined: the URL's `sslmode`
    /** PEM text of the authorities `verify-full` trusts instead of the system's. */
    sslCa: sslCaFile && readCertificates("DATABASE_SSL_CA_FILE", sslCaFile),
  };
}

function tlsSettings(env: Environment, setting: ReturnType<typeof settingsOf>) {
  const [cert, key] = [env.TLS_CERT_FILE !== undefined, env.TLS_KEY_FILE !== undefined];
  if (cert && !key) throw unpaired("TLS_CERT_FILE", "TLS_KEY_FILE", "TLS_KEY_FILE");
  if (key && !cert) throw unpaired("TLS_KEY_FILE", "TLS_CERT_FILE", "TLS_CERT_FILE");
  const [certFile, keyFile] = [setting("TLS_CERT_FILE"), setting("TLS_KEY_FILE")];
  return certFile && keyFile ? readTlsPair(certFile, keyFile) : undefined;
}
