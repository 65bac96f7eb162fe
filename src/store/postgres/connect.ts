/**
 * The PostgreSQL connection pool from the `DATABASE_*` settings (the `postgres` package runs on
 * Deno, Bun and Node), and which of its failures pass (answer 503 and retry) and which stop the
 * start. Imported only when `DATABASE_URL` is set.
 */
import { checkServerIdentity } from "node:tls";
import postgres from "postgres";
import type { DatabaseConfig } from "../../config/config.ts";

/** The pool: a tagged-template SQL function. */
export type Sql = postgres.Sql;

/** The SQL function inside `sql.begin(…)`: every statement runs in that transaction. */
export type Transaction = postgres.TransactionSql;

/** Opens a pool (lazily: the first query connects). */
export function connectPool(config: DatabaseConfig, applicationName: string): Sql {
  return postgres(config.url, {
    max: config.poolSize,
    // Short: a database host that drops packets turns into a quick 503, not requests hanging.
    connect_timeout: 5,
    // Idle connections are closed, so a pool sized for a peak does not hold the server's slots.
    idle_timeout: 60,
    ...(config.ssl === undefined ? {} : { ssl: sslOption(config) }),
    connection: {
      application_name: applicationName,
      statement_timeout: config.statementTimeoutMs,
    },
    // NOTICEs ("relation already exists, skipping") are not errors; the service logs its own.
    onnotice: () => {},
  });
}

type PeerCertificate = Parameters<typeof checkServerIdentity>[1];

/** The one host of a URL (brackets of an IPv6 address removed); undefined for a host list. */
function hostOf(url: string): string | undefined {
  const hostname = new URL(url).hostname;
  if (hostname === "" || hostname.includes(",")) return undefined;
  return hostname.replace(/^\[(.*)\]$/, "$1");
}

function sslOption(config: DatabaseConfig): boolean | "prefer" | "require" | object {
  // libpq's meaning: encrypted, but the server's certificate is not checked.
  if (config.ssl === "prefer" || config.ssl === "require") return config.ssl;
  if (config.ssl !== "verify-full") return false;
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

/** Driver codes of a connection that is gone or cannot be made. */
const CONNECTION_CODES = new Set(
  "ECONNREFUSED ECONNRESET EPIPE ETIMEDOUT EHOSTUNREACH ENETUNREACH ENOTFOUND EAI_AGAIN".split(" ")
    .concat(["CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT"]),
);

/** SQLSTATEs no retry will cure: the operator must fix the settings. */
const FATAL_AT_START: Record<string, string> = {
  "28P01": "the password was refused",
  "28000": "the role is not allowed to connect",
  "3D000": "the database does not exist",
  "42501": "the role lacks a privilege the schema needs",
};

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : "";
}

/**
 * True when the connection itself is gone (not a slow or refused statement): the driver's
 * socket errors, SQLSTATE class 08, and the server shutting down or starting (57P01–57P03).
 */
export function isConnectionLost(error: unknown): boolean {
  const code = codeOf(error);
  return CONNECTION_CODES.has(code) || code.startsWith("08") || /^57P0[123]$/.test(code);
}

/**
 * True for a failure that may pass by itself: the connection lost, or SQLSTATE class 08
 * (connection), 40 (rollback: serialization, deadlock), 53 (resources) or 57 (operator
 * intervention: shutdown, statement timeout).
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = codeOf(error);
  return CONNECTION_CODES.has(code) || /^(08|40|53|57)[0-9A-Z]{3}$/.test(code);
}

/** Why the store cannot start, when retrying cannot help; undefined when it may. */
export function fatalStartReason(error: unknown): string | undefined {
  const reason = FATAL_AT_START[codeOf(error)];
  if (reason !== undefined) return `${reason} (${codeOf(error)})`;
  if (isTransientDatabaseError(error)) return undefined;
  // TLS failures (a certificate that does not verify) and anything unforeseen: the settings are
  // wrong, so waiting would only hide it.
  return describeDatabaseError(error);
}

/** One line for the log: the driver's or server's code and message, never the URL. */
export function describeDatabaseError(error: unknown): string {
  const code = codeOf(error);
  const line = (error instanceof Error ? error.message : String(error)).split("\n")[0];
  return code === "" || line.includes(code) ? line : `${code}: ${line}`;
}
