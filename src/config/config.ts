/**
 * Settings from the environment (docs/configuration.md). A bad setting is a `ConfigError` whose
 * message names the setting; `main.ts` prints it on one line and exits with code 2.
 */
import { readFileSync } from "node:fs";
import { type TlsPair, tlsSetting } from "./tls_pair.ts";

/** The service's settings, validated. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Keys from `API_KEYS`, or undefined when unset. */
  readonly apiKeys: readonly string[] | undefined;
  /** Path of `API_KEYS_FILE`, or undefined when unset. */
  readonly apiKeysFile: string | undefined;
  /** Version prefix of every API path, e.g. `/v1`; `""` serves the API at the root. */
  readonly basePath: string;
  readonly maxBodyBytes: number;
  /** Origin that makes header URLs absolute (`https://pets.example.com`), or undefined. */
  readonly publicUrl: string | undefined;
  /** Allowed CORS origins (`["*"]` for any); empty when CORS is off. */
  readonly corsOrigins: readonly string[];
  /** Requests per minute per API key; 0 when off. */
  readonly rateLimit: number;
  /** `METRICS=on`: `GET /metrics` serves the Prometheus text format (docs/metrics.md). */
  readonly metrics: boolean;
  /** Bytes of memory for the response cache of immutable responses; 0 turns it off. */
  readonly cacheBytes: number;
  /** Seconds that requests in flight get after SIGTERM/SIGINT before connections are closed. */
  readonly shutdownTimeoutSeconds: number;
  /** The PostgreSQL store's settings when `DATABASE_URL` is set; undefined keeps the file store. */
  readonly database: DatabaseConfig | undefined;
  /** `TLS_CERT_FILE` and `TLS_KEY_FILE`, read and checked; undefined serves plain HTTP. */
  readonly tls: TlsPair | undefined;
}

/** How the PostgreSQL store connects (docs/deployment.md, PostgreSQL). */
export interface DatabaseConfig {
  /** `postgres://user:password@host:port/database?…`; never logged (it may hold a password). */
  readonly url: string;
  /** Most connections this instance opens. */
  readonly poolSize: number;
  /** Server-side limit on one statement; 0 turns it off. */
  readonly statementTimeoutMs: number;
  /** TLS: `undefined` leaves it to the URL's `sslmode` (no TLS when it has none). */
  readonly ssl: DatabaseSslMode | undefined;
  /**
   * PEM text of the certificate authorities that `verify-full` trusts instead of the system's,
   * read from `DATABASE_SSL_CA_FILE` at start: an unreadable file is a bad setting (exit 2), like
   * an unreadable keys file.
   */
  readonly sslCa: string | undefined;
}

/** `DATABASE_SSL`, with libpq's meanings: `require` encrypts, only `verify-full` checks the server. */
export type DatabaseSslMode = "disable" | "prefer" | "require" | "verify-full";

const SSL_MODES: readonly DatabaseSslMode[] = ["disable", "prefer", "require", "verify-full"];

/** A setting that stops the start; `setting` is the environment variable's name. */
export class ConfigError extends Error {
  constructor(readonly setting: string, message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Environment = Readonly<Record<string, string | undefined>>;

/** `CACHE_BYTES` when unset: 64 MiB (docs/caching.md). */
const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

const INTEGER = /^(0|[1-9][0-9]*)$/;

function integerSetting(
  env: Environment,
  name: string,
  fallback: number,
  min: number,
  max: number,
) {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const value = Number(raw.trim());
  if (!INTEGER.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(
      name,
      `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

function basePathSetting(env: Environment): string {
  const raw = env.BASE_PATH;
  if (raw === undefined) return "/v1";
  if (raw === "" || raw === "/") return "";
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(raw)) {
    throw new ConfigError(
      "BASE_PATH",
      `BASE_PATH must be a path such as /v1 (segments of letters, digits, ".", "_", "~", "-"; no trailing slash), got ${
        JSON.stringify(raw)
      }`,
    );
  }
  return raw;
}

function publicUrlSetting(env: Environment): string | undefined {
  const raw = env.PUBLIC_URL;
  if (raw === undefined || raw === "") return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      "PUBLIC_URL",
      `PUBLIC_URL must be an origin such as https://pets.example.com, got ${JSON.stringify(raw)}`,
    );
  }
  const isOriginOnly = (url.protocol === "http:" || url.protocol === "https:") &&
    url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" &&
    !raw.replace(/\/$/, "").slice(url.origin.length);
  if (!isOriginOnly) {
    throw new ConfigError(
      "PUBLIC_URL",
      `PUBLIC_URL must be an origin only (scheme, host, optional port; no path), got ${
        JSON.stringify(raw)
      }`,
    );
  }
  return url.origin;
}

function apiKeysSetting(env: Environment): string[] | undefined {
  const raw = env.API_KEYS;
  if (raw === undefined) return undefined;
  const keys = raw.split(",").map((key) => key.trim()).filter((key) => key !== "");
  if (keys.length === 0) {
    throw new ConfigError(
      "API_KEYS",
      "API_KEYS must list at least one key (comma-separated), got an empty value",
    );
  }
  for (const key of keys) {
    if (/\s/.test(key) || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ConfigError(
        "API_KEYS",
        "API_KEYS must hold keys of visible ASCII characters without spaces",
      );
    }
  }
  return keys;
}

function corsSetting(env: Environment): string[] {
  const raw = env.CORS_ORIGINS;
  if (raw === undefined || raw.trim() === "") return [];
  const origins = raw.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "");
  for (const origin of origins) {
    if (origin === "*") continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch { /* reported below */ }
    if (parsed === undefined || parsed.origin !== origin) {
      throw new ConfigError(
        "CORS_ORIGINS",
        `CORS_ORIGINS must be "*" or comma-separated origins such as https://app.example.com, got ${
          JSON.stringify(origin)
        }`,
      );
    }
  }
  return origins;
}

function metricsSetting(env: Environment): boolean {
  const raw = env.METRICS;
  if (raw === undefined || raw === "off") return false;
  if (raw === "on") return true;
  throw new ConfigError("METRICS", `METRICS must be on or off, got ${JSON.stringify(raw)}`);
}

function databaseSetting(env: Environment): DatabaseConfig | undefined {
  const url = env.DATABASE_URL;
  if (url === undefined || url === "") {
    const dependent = [
      "DATABASE_POOL_SIZE",
      "DATABASE_STATEMENT_TIMEOUT_MS",
      "DATABASE_SSL",
      "DATABASE_SSL_CA_FILE",
    ];
    for (const name of dependent) {
      if (env[name] !== undefined) {
        throw new ConfigError(name, `${name} is set but DATABASE_URL is not; set both or neither`);
      }
    }
    return undefined;
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch { /* reported below */ }
  // The URL is never echoed: it may hold a password.
  if (
    parsed === undefined || (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:")
  ) {
    throw new ConfigError(
      "DATABASE_URL",
      "DATABASE_URL must be a URL such as postgres://user:password@host:5432/database",
    );
  }
  const ssl = env.DATABASE_SSL;
  if (ssl !== undefined && !SSL_MODES.includes(ssl as DatabaseSslMode)) {
    throw new ConfigError(
      "DATABASE_SSL",
      `DATABASE_SSL must be one of ${SSL_MODES.join(", ")}, got ${JSON.stringify(ssl)}`,
    );
  }
  const sslCaFile = env.DATABASE_SSL_CA_FILE;
  if (sslCaFile !== undefined && ssl !== "verify-full") {
    throw new ConfigError(
      "DATABASE_SSL_CA_FILE",
      "DATABASE_SSL_CA_FILE is used only with DATABASE_SSL=verify-full",
    );
  }
  return {
    url,
    poolSize: integerSetting(env, "DATABASE_POOL_SIZE", 10, 1, 1000),
    statementTimeoutMs: integerSetting(env, "DATABASE_STATEMENT_TIMEOUT_MS", 5000, 0, 3_600_000),
    ssl: ssl as DatabaseSslMode | undefined,
    sslCa: sslCaFile === undefined ? undefined : readCaFile(sslCaFile),
  };
}

function readCaFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(
      "DATABASE_SSL_CA_FILE",
      `Cannot read DATABASE_SSL_CA_FILE ${path}: ${code}`,
    );
  }
  if (!text.includes("-----BEGIN CERTIFICATE-----")) {
    throw new ConfigError(
      "DATABASE_SSL_CA_FILE",
      `DATABASE_SSL_CA_FILE ${path} holds no PEM certificate`,
    );
  }
  return text;
}

/** Reads and validates every setting; throws `ConfigError` on the first bad one. */
export function loadConfig(env: Environment): Config {
  const host = env.HOST ?? "0.0.0.0";
  if (host.trim() === "") {
    throw new ConfigError("HOST", "HOST must be a host name or address, got an empty value");
  }
  const dataDir = env.DATA_DIR ?? "./data";
  if (dataDir.trim() === "") {
    throw new ConfigError("DATA_DIR", "DATA_DIR must be a directory path, got an empty value");
  }
  const apiKeysFile = env.API_KEYS_FILE;
  if (apiKeysFile !== undefined && apiKeysFile.trim() === "") {
    throw new ConfigError("API_KEYS_FILE", "API_KEYS_FILE must be a file path, got an empty value");
  }
  return {
    port: integerSetting(env, "PORT", 8080, 0, 65535),
    host,
    dataDir,
    apiKeys: apiKeysSetting(env),
    apiKeysFile,
    basePath: basePathSetting(env),
    maxBodyBytes: integerSetting(env, "MAX_BODY_BYTES", 65536, 1, 1024 * 1024 * 1024),
    publicUrl: publicUrlSetting(env),
    corsOrigins: corsSetting(env),
    rateLimit: integerSetting(env, "RATE_LIMIT", 0, 0, 1_000_000_000),
    metrics: metricsSetting(env),
    cacheBytes: integerSetting(env, "CACHE_BYTES", DEFAULT_CACHE_BYTES, 0, 2 ** 40),
    shutdownTimeoutSeconds: integerSetting(env, "SHUTDOWN_TIMEOUT", 10, 0, 300),
    database: databaseSetting(env),
    tls: tlsSetting(env),
  };
}
