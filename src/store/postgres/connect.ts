/**
 * The PostgreSQL connection pool, made from the `DATABASE_*` settings with the `postgres` package
 * (one package that runs unchanged on Deno, Bun and Node). This module is imported only when
 * `DATABASE_URL` is set, so the default file store never loads the driver.
 */
import { checkServerIdentity } from "node:tls";
import postgres from "postgres";
import type { DatabaseConfig } from "../../config/config.ts";

/** The pool: a tagged-template SQL function. */
export type Sql = postgres.Sql;

/** The SQL function inside `sql.begin(…)`: every statement runs in that transaction. */
export type Transaction = postgres.TransactionSql;

/**
 * How long a new connection may take before the attempt counts as failed. Short, so that a
 * database host that drops packets turns into a quick 503 rather than requests hanging.
 */
const CONNECT_TIMEOUT_SECONDS = 5;

/** Opens a pool (lazily: the first query connects). */
export function connectPool(config: DatabaseConfig, applicationName: string): Sql {
  return postgres(config.url, {
    max: config.poolSize,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
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
  switch (config.ssl) {
    case "disable":
      return false;
    case "prefer":
    case "require":
      // libpq's meaning: encrypted, but the server's certificate is not checked.
      return config.ssl;
    case "verify-full": {
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
    default:
      return false;
  }
}
