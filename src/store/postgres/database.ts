/**
 * The node-postgres pool with a deadline on every use, and which failures pass (503, retry) or stop
 * the start. Past the deadline (`statement_timeout` needs a server that answers) the caller is
 * answered at once and the connection destroyed: a late answer could still arrive on it. Both
 * 'error' events (pool, client) are heard: unheard, they end the process.
 */
import { checkServerIdentity } from "node:tls";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import type { DatabaseConfig } from "../../config/config.ts";
import { errorCodeOf } from "../../observe/error_code.ts";

type Values = readonly unknown[];

/** After `statement_timeout`: the server's cancel comes first, ours is for a server gone silent. */
const DEADLINE_MARGIN_MS = 250;

/** A host that drops packets turns into a quick 503, not requests hanging. */
export const CONNECT_TIMEOUT_MS = 5000;

/** So a pool sized for a peak does not hold the server's slots. */
const IDLE_TIMEOUT_MS = 60_000;

/** One host of DATABASE_URL's settings (failover.ts): `hostname` is what `verify-full` checks. */
export type HostConfig = DatabaseConfig & { readonly hostname: string };

/** The pool or one transaction's connection; int8 and numeric columns arrive as decimal text. */
export type Queryable = { query<Row>(text: string, values?: Values): Promise<Row[]> };

/** DEADLINE_MISSED, NOT_PRIMARY, COMMIT_UNCONFIRMED (COMMIT sent, no answer: it may be done). */
export class CodedError extends Error {
  constructor(readonly code: string, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** Lazily: the first query connects. `deadline: false` for the long `import` and `backup`. */
interface DatabaseOptions {
  readonly applicationName: string;
  readonly deadline?: boolean;
  readonly onIdleConnectionLost?: (error: unknown) => void;
  /** Once per new connection, before its first use; a rejection discards it and fails the use. */
  readonly checkConnection?: (connection: Queryable) => Promise<void>;
}

export class Database implements Queryable {
  #pool: pg.Pool;
  readonly #deadlineMs: number | undefined;
  readonly #options: DatabaseOptions;
  readonly #checked = new WeakSet<pg.PoolClient>();
  /** Destroyed by `end`, so a stop never waits on a frozen server. */
  readonly #inUse = new Set<pg.PoolClient>();

  constructor(config: HostConfig, options: DatabaseOptions) {
    const timeout = config.statementTimeoutMs;
    this.#deadlineMs = timeout === 0 || options.deadline === false
      ? undefined
      : timeout + DEADLINE_MARGIN_MS;
    this.#options = options;
    this.#pool = this.#newPool(config);
  }

  /** Connections go to another host from now on; the old pool closes as its connections return. */
  switchTo(config: HostConfig): void {
    this.#pool.end().catch(() => {});
    this.#pool = this.#newPool(config);
  }

  #newPool(config: HostConfig): pg.Pool {
    const timeout = config.statementTimeoutMs;
    // `sslMode` decides, with libpq's meanings: node-postgres reads the URL's `sslmode=require` as
    // verify-full, and lets the URL's TLS parameters override the options given beside it.
    const url = new URL(config.url);
    for (const name of SSL_PARAMETERS) url.searchParams.delete(name);
    const pool = new pg.Pool({
      connectionString: url.toString(),
      max: config.poolSize,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: IDLE_TIMEOUT_MS,
      ssl: sslOption(config),
      application_name: this.#options.applicationName,
      ...(timeout === 0 ? {} : { statement_timeout: timeout }),
    });
    pool.on("error", (error) => this.#options.onIdleConnectionLost?.(error));
    return pool;
  }

  /** Checked out now, for the pool's metric. */
  get connectionsInUse(): number {
    return this.#inUse.size;
  }

  /** A `performance.now()` time, or undefined for none. */
  deadline(): number | undefined {
    return this.#deadlineMs === undefined ? undefined : performance.now() + this.#deadlineMs;
  }

  /** `commits`: the statement is a transaction by itself, so an answer lost once sent may commit. */
  query<Row>(text: string, values?: Values, deadline = this.deadline(), commits = false) {
    return this.#withConnection(deadline, (connection, state) => {
      state.committing = commits;
      return connection.query<Row>(text, values);
    });
  }

  /** Rejects with COMMIT_UNCONFIRMED when COMMIT's answer was lost; else nothing committed. */
  transaction<T>(
    work: (tx: Queryable) => Promise<T>,
    options: { readonly begin?: string; readonly deadline?: number } = {},
  ): Promise<T> {
    return this.#withConnection(options.deadline ?? this.deadline(), async (tx, state) => {
      await tx.query(options.begin ?? "BEGIN");
      const result = await work(tx).catch(async (error) => {
        // If the ROLLBACK fails too, the connection is not idle and is discarded below.
        await tx.query("ROLLBACK").catch(() => {});
        throw error;
      });
      state.committing = true;
      await tx.query("COMMIT");
      return result;
    });
  }

  /** Idle connections politely, checked-out ones at once: a stop never waits for the database. */
  async end(): Promise<void> {
    for (const client of this.#inUse) discard(client);
    // A connection still being opened holds `end` until its connect timeout: not worth waiting.
    await Promise.race([this.#pool.end().catch(() => {}), delay(200, undefined, { ref: false })]);
  }

  async #withConnection<T>(
    deadline: number | undefined,
    work: (connection: Queryable, state: { committing: boolean }) => Promise<T>,
  ): Promise<T> {
    const state = { committing: false };
    let client: pg.PoolClient | undefined;
    let broken = false;
    let expired = false;
    const markBroken = () => (broken = true);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const missed = deadline === undefined ? undefined : new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        if (client !== undefined) discard(client);
        reject(
          state.committing
            ? new CodedError("COMMIT_UNCONFIRMED", "no answer to the commit before the deadline")
            : new CodedError("DEADLINE_MISSED", "the database did not answer before the deadline"),
        );
      }, Math.max(0, deadline - performance.now()));
    });
    const running = (async () => {
      client = await this.#pool.connect();
      if (expired) {
        client.release(); // the caller has gone; the connection was never used
        return undefined as T;
      }
      this.#inUse.add(client);
      client.on("error", markBroken);
      const check = this.#checked.has(client) ? undefined : this.#options.checkConnection;
      const connection: Queryable = {
        query: async <Row>(text: string, values?: Values) => {
          // The types say mutable: node-postgres only reads the values.
          const name = values === undefined ? undefined : statementName(text);
          const result = await client!.query({ text, values: values as unknown[], name })
            .catch((error) => {
              if (!state.committing || answeredByServer(error)) throw error;
              const message = "the connection broke during the commit";
              throw new CodedError("COMMIT_UNCONFIRMED", message, { cause: error });
            });
          return result.rows as Row[];
        },
      };
      try {
        if (check !== undefined) {
          await check(connection).catch((error) => {
            broken = true; // a host that failed the check is not used again
            throw error;
          });
          this.#checked.add(client);
        }
        return await work(connection, state);
      } finally {
        this.#inUse.delete(client);
        client.off("error", markBroken);
        // Only a connection idle outside any transaction goes back to the pool.
        if (expired || broken || client.getTransactionStatus() !== "I") discard(client);
        else client.release();
      }
    })();
    running.catch(() => {}); // after a missed deadline its failure has no one to hear it
    try {
      return await (missed === undefined ? running : Promise.race([running, missed]));
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Named statements are parsed and planned once per connection; the texts are our constants. */
const statementNames = new Map<string, string>();

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `animal_store_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/** Closes the socket at once: a graceful close would wait for a server that may never answer. */
function discard(client: pg.PoolClient): void {
  const released = client as pg.PoolClient & { discarded?: boolean };
  if (released.discarded) return;
  released.discarded = true;
  try {
    client.release(new Error("discarded"));
  } catch { /* released already */ }
  // node-postgres's pool does the same for a connect that times out.
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream
    ?.destroy();
}

// ---- TLS ----

const SSL_PARAMETERS = ["sslmode", "ssl", "sslcert", "sslkey", "sslrootcert", "uselibpqcompat"];

export function sslMode(config: DatabaseConfig): string {
  return config.ssl ?? new URL(config.url).searchParams.get("sslmode") ?? "disable";
}

function sslOption(config: HostConfig): pg.PoolConfig["ssl"] {
  const mode = sslMode(config);
  // libpq's meaning of these: encrypted, the certificate not checked (`prefer` is settled first).
  if (mode === "prefer" || mode === "require" || mode === "allow" || mode === "verify-ca") {
    return { rejectUnauthorized: false };
  }
  if (mode !== "verify-full") return false;
  // A private CA replaces the system's. The host is checked against the URL's explicitly: with
  // an IP address there is no SNI name, and Deno's node:tls then checks "localhost" instead.
  const { hostname: host, sslCa: ca } = config;
  return {
    rejectUnauthorized: true,
    ...(ca === undefined ? {} : { ca }),
    ...(host === "" ? {} : {
      checkServerIdentity: (_: string, certificate: Parameters<typeof checkServerIdentity>[1]) =>
        checkServerIdentity(host, certificate),
    }),
  };
}

// ---- Which failures pass ----

/** A connection gone or not made: the sockets' codes and ours. */
const CONNECTION_CODES = new Set(
  "ECONNREFUSED ECONNRESET EPIPE ETIMEDOUT EHOSTUNREACH ENETUNREACH ENOTFOUND EAI_AGAIN".split(" ")
    .concat(["DEADLINE_MISSED", "COMMIT_UNCONFIRMED", "NOT_PRIMARY"]),
);

/** node-postgres's own messages for a connection that broke or was never made (they have no code). */
const CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

/** No retry cures these. */
const FATAL_AT_START: Record<string, string> = {
  "28P01": "the password was refused",
  "28000": "the role is not allowed to connect",
  "3D000": "the database does not exist",
  "42501": "the role lacks a privilege the schema needs",
};

/**
 * The server's own error (it has a SQLSTATE): a COMMIT it answered so failed, its answer was not
 * lost. A socket's code is not one, though `EPIPE` has a SQLSTATE's shape.
 */
export function answeredByServer(error: unknown): boolean {
  return error instanceof pg.DatabaseError;
}

/**
 * The connection itself is gone (class 08, 57P01–57P03: shutting down or starting), or the host
 * is a standby now or read-only (25006): given up as if lost, so the store looks for the primary.
 */
export function isConnectionLost(error: unknown): boolean {
  const code = errorCodeOf(error); // the message when there is no code
  return CONNECTION_CODES.has(code) || /^(08[0-9A-Z]{3}|57P0[123]|25006)$/.test(code) ||
    CONNECTION_MESSAGES.test(code);
}

/** May pass by itself: a lost connection, classes 40 (serialization, deadlock), 53, 57. */
export function isTransientDatabaseError(error: unknown): boolean {
  return isConnectionLost(error) || /^(40|53|57)[0-9A-Z]{3}$/.test(errorCodeOf(error));
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
