/**
 * Every setting, declared once: `loadConfig` reads the environment through this table, `--help`
 * prints it, and test/config/settings.test.ts holds docs/configuration.md to it.
 */
import { readFileSync } from "node:fs";
import { errorCodeOf } from "../observe/error_code.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../schemas/limits.ts";
import { DatabaseUrlError, parseDatabaseUrl } from "./database_url.ts";

/** A setting that stops the start; `setting` is the environment variable's name. */
export class ConfigError extends Error {
  override name = "ConfigError";
  constructor(readonly setting: string, message: string) {
    super(message);
  }
}

/** The text of the file `setting` names; throws `ConfigError` (`failure`: code) if unreadable. */
export function readSettingFile(
  setting: string,
  path: string,
  failure = `Cannot read ${setting} ${path}`,
): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(setting, `${failure}: ${errorCodeOf(error)}`);
  }
}

/** What a key may hold, in API_KEYS and API_KEYS_FILE. */
export const KEY_TEXT = /^[\x21-\x7e]+$/;

export type Environment = Readonly<Record<string, string | undefined>>;

function mustBe(name: string, what: string, got: string): ConfigError {
  return new ConfigError(name, `${name} must be ${what}, got ${got}`);
}

/**
 * A setting: what it takes (as the docs' "range / values" column begins), its help, its parser, and
 * the text used when unset, as the docs show it (none: unset means off).
 */
function row<T, D extends string | undefined = undefined>(
  values: string,
  help: string,
  read: (raw: string, name: string) => T,
  fallback?: D,
) {
  return { values, help, read, default: fallback as D };
}

const INTEGER = /^(0|[1-9][0-9]*)$/;

function integer(fallback: number, min: number, max: number, help: string) {
  return row(`integer ${min}–${max}`, help, (raw, name) => {
    const value = Number(raw.trim());
    if (INTEGER.test(raw.trim()) && value >= min && value <= max) return value;
    throw mustBe(name, `an integer from ${min} to ${max}`, JSON.stringify(raw));
  }, String(fallback));
}

/** Kept as given; blank is a bad setting. */
function text<D extends string | undefined = undefined>(
  values: string,
  help: string,
  fallback?: D,
) {
  return row(values, help, (raw, name) => {
    if (raw.trim() !== "") return raw;
    throw mustBe(name, `a ${values}`, "an empty value");
  }, fallback);
}

function apiKeys(raw: string): readonly string[] {
  const keys = raw.split(",").map((key) => key.trim()).filter((key) => key !== "");
  if (keys.length > 0 && keys.every((key) => KEY_TEXT.test(key))) return keys;
  const rule = keys.length === 0
    ? "list at least one key (comma-separated), got an empty value"
    : "hold keys of visible ASCII characters without spaces";
  throw new ConfigError("API_KEYS", `API_KEYS must ${rule}`);
}

function basePath(raw: string): string {
  if (raw === "" || raw === "/") return "";
  if (/^(\/[A-Za-z0-9._~-]+)+$/.test(raw)) return raw;
  const what =
    'a path such as /v1 (segments of letters, digits, ".", "_", "~", "-"; no trailing slash)';
  throw mustBe("BASE_PATH", what, JSON.stringify(raw));
}

function publicUrl(raw: string): string | undefined {
  if (raw === "") return undefined;
  if (!URL.canParse(raw)) {
    throw mustBe("PUBLIC_URL", "an origin such as https://pets.example.com", JSON.stringify(raw));
  }
  const url = new URL(raw);
  const isOriginOnly = (url.protocol === "http:" || url.protocol === "https:") &&
    url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" &&
    !raw.replace(/\/$/, "").slice(url.origin.length);
  if (isOriginOnly) return url.origin;
  const what = "an origin only (scheme, host, optional port; no path)";
  throw mustBe("PUBLIC_URL", what, JSON.stringify(raw));
}

function corsOrigins(raw: string): readonly string[] {
  const origins = raw.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "");
  const bad = origins.find((origin) =>
    origin !== "*" && !(URL.canParse(origin) && new URL(origin).origin === origin)
  );
  if (bad === undefined) return origins;
  const what = '"*" or comma-separated origins such as https://app.example.com';
  throw mustBe("CORS_ORIGINS", what, JSON.stringify(bad));
}

const URL_EXAMPLE = "postgres://user:password@host:5432/database";

function databaseUrl(raw: string): string | undefined {
  if (raw === "") return undefined;
  try {
    parseDatabaseUrl(raw);
    return raw;
  } catch (error) {
    // Never echoed: it may hold a password.
    const why = error instanceof DatabaseUrlError && error.message !== "not a postgres:// URL"
      ? `${URL_EXAMPLE} (${error.message})`
      : URL_EXAMPLE;
    throw new ConfigError("DATABASE_URL", `DATABASE_URL must be a URL such as ${why}`);
  }
}

function metrics(raw: string): boolean {
  if (raw === "on" || raw === "off") return raw === "on";
  throw mustBe("METRICS", "on or off", JSON.stringify(raw));
}

/** `DATABASE_SSL`, with libpq's meanings: `require` encrypts, only `verify-full` checks the server. */
const SSL_MODES = ["disable", "prefer", "require", "verify-full"] as const;

function databaseSsl(raw: string): (typeof SSL_MODES)[number] {
  const mode = SSL_MODES.find((mode) => mode === raw);
  if (mode !== undefined) return mode;
  throw mustBe("DATABASE_SSL", `one of ${SSL_MODES.join(", ")}`, JSON.stringify(raw));
}

/** Every setting, in the order of `--help` and docs/configuration.md. */
export const SETTINGS = {
  PORT: integer(8080, 0, 65535, "listen port; 0 picks a free port"),
  HOST: text("host name or address", "listen address", "0.0.0.0"),
  DATA_DIR: text("directory path", "data directory, created if missing", "./data"),
  API_KEYS: row("comma-separated keys", "accepted API keys", apiKeys),
  API_KEYS_FILE: text("file path", "one key (or sha256:<hex> digest) per line; re-read on SIGHUP"),
  BASE_PATH: row("a path prefix", "prefix of every API path; empty or / for none", basePath, "/v1"),
  MAX_BODY_BYTES: integer(DEFAULT_MAX_BODY_BYTES, 1, 2 ** 30, "largest accepted request body"),
  PUBLIC_URL: row("an origin only", "makes Link and Location URLs absolute", publicUrl),
  CORS_ORIGINS: row("comma-separated origins, or *", "origins browsers may call from", corsOrigins),
  RATE_LIMIT: integer(0, 0, 1_000_000_000, "requests per minute per API key; 0: off"),
  CACHE_BYTES: integer(64 * 1024 * 1024, 0, 2 ** 40, "memory for cached responses; 0: off"),
  SHUTDOWN_TIMEOUT: integer(10, 0, 300, "seconds requests in flight get after SIGTERM"),
  SHUTDOWN_DELAY: integer(0, 0, 300, "seconds /readyz answers 503 after SIGTERM before stopping"),
  METRICS: row("off or on", "on serves GET /metrics (Prometheus text format)", metrics, "off"),
  TLS_CERT_FILE: text("file path", "PEM certificate chain: with TLS_KEY_FILE, PORT speaks HTTPS"),
  TLS_KEY_FILE: text("file path", "PEM private key of TLS_CERT_FILE"),
  DATABASE_URL: row(URL_EXAMPLE, "keep pets in PostgreSQL instead of DATA_DIR's file", databaseUrl),
  DATABASE_POOL_SIZE: integer(10, 1, 1000, "most connections per instance"),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(5000, 0, 3_600_000, "limit per statement; 0: none"),
  DATABASE_SSL: row(SSL_MODES.join(", "), "unset: the URL's sslmode", databaseSsl),
  DATABASE_SSL_CA_FILE: text("file path", "PEM certificate authorities that verify-full trusts"),
};

type Settings = typeof SETTINGS;
/** A setting's value: undefined only when it is unset and has no default. */
type Value<N extends keyof Settings> = Settings[N]["default"] extends string
  ? ReturnType<Settings[N]["read"]>
  : ReturnType<Settings[N]["read"]> | undefined;

/** Returns a function that reads one setting from `env`; it throws `ConfigError` naming it. */
export function settingsOf(env: Environment) {
  return <N extends keyof Settings>(name: N): Value<N> => {
    const setting: { default?: string; read: (raw: string, name: N) => unknown } = SETTINGS[name];
    const raw = env[name] ?? setting.default;
    return (raw === undefined ? undefined : setting.read(raw, name)) as Value<N>;
  };
}
