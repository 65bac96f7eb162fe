/** The pool from the `DATABASE_*` settings, and which failures pass (503, retry) or stop the start. */
import { checkServerIdentity } from "node:tls";
import pg from "pg";
import type { DatabaseConfig } from "../../config/config.ts";
import { type DatabaseHost, parseDatabaseUrl } from "../../config/database_url.ts";
import { setTimeout as delay } from "node:timers/promises";
import { errorCodeOf } from "../../observe/error_code.ts";
import { Database, type Queryable } from "./database.ts";

/** After `statement_timeout`: the server's cancel comes first, ours is for a server gone silent. */
export const DEADLINE_MARGIN_MS = 250;

/** A host that drops packets turns into a quick 503, not requests hanging. */
export const CONNECT_TIMEOUT_MS = 5000;

/** So a pool sized for a peak does not hold the server's slots. */
const IDLE_TIMEOUT_MS = 60_000;

/** Lazily: the first query connects. `deadline: false` for the long `import` and `backup`. */
export function connectDatabase(
  config: DatabaseConfig,
  applicationName: string,
  options: {
    deadline?: boolean;
    onIdleConnectionLost?: (error: unknown) => void;
    checkConnection?: (connection: Queryable) => Promise<void>;
  } = {},
): Database {
  const timeout = config.statementTimeoutMs;
  return new Database({
    pool: poolConfig(config, applicationName),
    deadlineMs: timeout === 0 || options.deadline === false
      ? undefined
      : timeout + DEADLINE_MARGIN_MS,
    onIdleConnectionLost: options.onIdleConnectionLost,
    checkConnection: options.checkConnection,
  });
}

export function poolConfig(config: DatabaseConfig, applicationName: string): pg.PoolConfig {
  const timeout = config.statementTimeoutMs;
  return {
    connectionString: withoutSslParameters(config.url),
    max: config.poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    ssl: sslOption(config),
    application_name: applicationName,
    ...(timeout === 0 ? {} : { statement_timeout: timeout }),
  };
}

/** One host of `DATABASE_URL`, with the settings to reach it alone. */
export interface HostConfig {
  readonly host: DatabaseHost;
  readonly config: DatabaseConfig;
}

export function hostConfigs(config: DatabaseConfig) {
  const address = parseDatabaseUrl(config.url);
  return {
    hosts: address.hosts.map((host): HostConfig => ({
      host,
      config: { ...config, url: host.url },
    })),
    targetSessionAttrs: address.targetSessionAttrs,
  };
}

/** `DATABASE_SSL` decides, with libpq's meanings. */
const SSL_PARAMETERS = ["sslmode", "ssl", "sslcert", "sslkey", "sslrootcert", "uselibpqcompat"];

/**
 * The URL without its TLS parameters: node-postgres reads `sslmode=require` as verify-full (not
 * libpq's meaning), and lets the URL's parameters override the options given beside it.
 */
function withoutSslParameters(url: string): string {
  const parsed = new URL(url);
  for (const name of SSL_PARAMETERS) parsed.searchParams.delete(name);
  return parsed.toString();
}

/** node-postgres's answer when TLS is asked for and the server has none (it has no code). */
const SSL_REFUSED = "The server does not support SSL connections";

/** libpq's `prefer` (TLS if the server has it), learnt from one connection: node-postgres has none. */
export async function settleSslMode(config: DatabaseConfig): Promise<DatabaseConfig> {
  if (sslMode(config) !== "prefer") return config;
  const client = new pg.Client({
    connectionString: withoutSslParameters(config.url),
    ssl: { rejectUnauthorized: false },
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  client.on("error", () => {}); // a late socket error after the answer changes nothing
  try {
    await client.connect();
    return { ...config, ssl: "require" };
  } catch (error) {
    if ((error as Error | undefined)?.message === SSL_REFUSED) return { ...config, ssl: "disable" };
    throw error;
  } finally {
    // A server that froze after answering must not hold the start: give the close a moment.
    await Promise.race([client.end().catch(() => {}), delay(200, undefined, { ref: false })]);
  }
}

function sslMode(config: DatabaseConfig): string {
  return config.ssl ?? new URL(config.url).searchParams.get("sslmode") ?? "disable";
}

type PeerCertificate = Parameters<typeof checkServerIdentity>[1];

function hostOf(url: string): string | undefined {
  const hostname = new URL(url).hostname;
  if (hostname === "" || hostname.includes(",")) return undefined;
  return hostname.replace(/^\[(.*)\]$/, "$1");
}

function sslOption(config: DatabaseConfig): pg.PoolConfig["ssl"] {
  const mode = sslMode(config);
  // libpq's meaning of these: encrypted, but the server's certificate is not checked. (`prefer`
  // is settled to `require` or `disable` by settleSslMode first.)
  if (mode === "prefer" || mode === "require" || mode === "allow" || mode === "verify-ca") {
    return { rejectUnauthorized: false };
  }
  if (mode !== "verify-full") return false;
  // The TLS defaults check the chain; a private CA replaces the system's. The host name is
  // checked against the URL's host explicitly: with an IP address there is no SNI name, and
  // Deno's node:tls then checks the certificate against "localhost" instead.
  const host = hostOf(config.url);
  return {
    rejectUnauthorized: true,
    ...(config.sslCa === undefined ? {} : { ca: config.sslCa }),
    ...(host === undefined ? {} : {
      checkServerIdentity: (_: string, certificate: PeerCertificate) =>
        checkServerIdentity(host, certificate),
    }),
  };
}

// ---- Which failures pass ----

/** A connection gone or not made: the sockets' codes and database.ts's own. */
const CONNECTION_CODES = new Set(
  "ECONNREFUSED ECONNRESET EPIPE ETIMEDOUT EHOSTUNREACH ENETUNREACH ENOTFOUND EAI_AGAIN".split(" ")
    .concat(["CONNECTION_LOST", "DEADLINE_MISSED", "COMMIT_UNCONFIRMED", "NOT_PRIMARY"]),
);

/** A standby now, or made read-only: given up as if lost, so the store looks for the primary. */
const READ_ONLY_TRANSACTION = "25006";

/** No retry cures these. */
const FATAL_AT_START: Record<string, string> = {
  "28P01": "the password was refused",
  "28000": "the role is not allowed to connect",
  "3D000": "the database does not exist",
  "42501": "the role lacks a privilege the schema needs",
};

/** The connection itself is gone (class 08, 57P01–57P03: shutting down or starting). */
export function isConnectionLost(error: unknown): boolean {
  const code = errorCodeOf(error);
  return CONNECTION_CODES.has(code) || /^(08[0-9A-Z]{3}|57P0[123])$/.test(code) ||
    code === READ_ONLY_TRANSACTION;
}

/** May pass by itself: classes 08, 40 (serialization, deadlock), 53 (resources), 57. */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = errorCodeOf(error);
  return CONNECTION_CODES.has(code) || /^(08|40|53|57)[0-9A-Z]{3}$/.test(code) ||
    code === READ_ONLY_TRANSACTION;
}

export function fatalStartReason(error: unknown): string | undefined {
  const code = errorCodeOf(error);
  if (Object.hasOwn(FATAL_AT_START, code)) return `${FATAL_AT_START[code]} (${code})`;
  if (isTransientDatabaseError(error)) return undefined;
  // TLS failures and anything unforeseen: waiting would only hide wrong settings.
  return describeDatabaseError(error);
}

/** One line for the log, never the URL. */
export function describeDatabaseError(error: unknown): string {
  const code = errorCodeOf(error);
  const line = (error instanceof Error ? error.message : String(error)).split("\n")[0];
  return line.includes(code) || code.includes(line) ? line : `${code}: ${line}`;
}
