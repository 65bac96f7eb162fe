/**
 * The PostgreSQL connection pool (node-postgres) with a deadline on every use. PostgreSQL's own
 * `statement_timeout` cancels a statement that runs too long, but only a server that answers can
 * cancel: a frozen server, or a network path that drops packets, leaves a statement waiting on an
 * open connection for as long as TCP keeps it. So each statement or transaction also has a deadline
 * here, a little after the server's: when it passes, the caller is answered at once and the
 * connection it used is destroyed (never handed to another caller, since a late answer could
 * still arrive on it).
 *
 * Every failure reaches the caller as a rejected promise. A connection that breaks while it sits
 * idle in the pool is reported by the pool's 'error' event, one that breaks while checked out by
 * the client's: both are listened to here, since an 'error' event with no listener would end the
 * process.
 */
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";

/** A statement's parameters, in the order of `$1`, `$2`, …; arrays become PostgreSQL arrays. */
export type Values = readonly unknown[];

/** What runs statements: the pool (any connection) or one transaction's connection. */
export interface Queryable {
  /** The rows of one statement; int8 and numeric columns arrive as their decimal text. */
  query<Row>(text: string, values?: Values): Promise<Row[]>;
}

/** The deadline passed: the caller was answered and the connection, if any, destroyed. */
class DeadlineMissedError extends Error {
  readonly code = "DEADLINE_MISSED";
}

/** The connection broke (or could not be made): a socket error, a close, a connect timeout. */
class ConnectionLostError extends Error {
  readonly code = "CONNECTION_LOST";
}

/**
 * COMMIT was sent but its answer never came (the connection broke, or the deadline passed):
 * the transaction may or may not have committed.
 */
export class CommitUnconfirmedError extends Error {
  readonly code = "COMMIT_UNCONFIRMED";
}

/** node-postgres's own messages for a connection that broke or was never made (they have no code). */
const CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

/** When `error` is node-postgres telling that the connection broke, the same as a ConnectionLostError. */
function asConnectionLost(error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== undefined || typeof message !== "string") return error;
  return CONNECTION_MESSAGES.test(message)
    ? new ConnectionLostError(message, { cause: error })
    : error;
}

export interface DatabaseOptions {
  /** node-postgres's pool settings (URL, pool size, TLS, connect timeout, start-up parameters). */
  readonly pool: pg.PoolConfig;
  /**
   * Runs once on each new connection before its first use, within that use's deadline (the
   * store checks that the host is still a writable primary, and its timeline); a rejection
   * discards the connection and fails the use.
   */
  readonly checkConnection?: (connection: Queryable) => Promise<void>;
  /** How long one statement or transaction may take before the connection is given up; undefined: no limit. */
  readonly deadlineMs: number | undefined;
  /** Hears of a pooled connection that broke while idle (the database restarted, say). */
  readonly onIdleConnectionLost?: (error: unknown) => void;
}

/** The pool; see the module comment. */
export class Database implements Queryable {
  #pool: pg.Pool;
  #poolConfig: pg.PoolConfig;
  readonly #deadlineMs: number | undefined;
  readonly #onIdleLost: (error: unknown) => void;
  readonly #checkConnection: ((connection: Queryable) => Promise<void>) | undefined;
  /** Connections that passed `checkConnection`. */
  readonly #checked = new WeakSet<pg.PoolClient>();
  /** Connections checked out now: destroyed by `end`, so a stop never waits on a frozen server. */
  readonly #inUse = new Set<pg.PoolClient>();

  constructor(options: DatabaseOptions) {
    this.#deadlineMs = options.deadlineMs;
    this.#onIdleLost = options.onIdleConnectionLost ?? (() => {});
    this.#checkConnection = options.checkConnection;
    this.#poolConfig = options.pool;
    this.#pool = this.#newPool(options.pool);
  }

  /** The connection string of the host the pool connects to (it may hold a password). */
  get connectionString(): string | undefined {
    return this.#poolConfig.connectionString;
  }

  /**
   * From now on, connections go to another host (`pool` replaces the pool's settings): the old
   * pool is closed, its idle connections at once, ones in use when they are given back (or at
   * their deadline).
   */
  switchTo(pool: pg.PoolConfig): void {
    const old = this.#pool;
    this.#poolConfig = pool;
    this.#pool = this.#newPool(pool);
    old.end().catch(() => {});
  }

  #newPool(config: pg.PoolConfig): pg.Pool {
    const pool = new pg.Pool(config);
    // The pool has already removed the connection; a later use opens a new one.
    pool.on("error", (error) => this.#onIdleLost(asConnectionLost(error)));
    return pool;
  }

  /** A deadline `deadlineMs` from now (a `performance.now()` time), or undefined for none. */
  deadline(): number | undefined {
    return this.#deadlineMs === undefined ? undefined : performance.now() + this.#deadlineMs;
  }

  /** One statement on any pooled connection, within `deadline` (default: from now). */
  query<Row>(text: string, values?: Values, deadline = this.deadline()): Promise<Row[]> {
    return this.#withConnection(
      deadline,
      { committing: false },
      (connection) => connection.query<Row>(text, values),
    );
  }

  /**
   * One statement that is a transaction by itself (no BEGIN: PostgreSQL commits it when it
   * ends), on any pooled connection, within `deadline`: one round trip where BEGIN … COMMIT takes
   * three. An error the server reports committed nothing; once the statement is sent, an answer
   * that never comes (the connection broke, the deadline passed) rejects with
   * CommitUnconfirmedError, since it may have committed.
   */
  commitStatement<Row>(
    text: string,
    values: Values,
    deadline = this.deadline(),
  ): Promise<Row[]> {
    const state = { committing: false };
    return this.#withConnection(deadline, state, (connection) => {
      state.committing = true;
      return connection.query<Row>(text, values);
    });
  }

  /**
   * Runs `work` in one transaction (`begin` is its BEGIN statement) on one connection, and
   * commits. Rejects with CommitUnconfirmedError when COMMIT was sent and its answer lost; with
   * anything else, nothing was committed. The deadline covers the whole transaction.
   */
  transaction<T>(
    work: (tx: Queryable) => Promise<T>,
    options: { readonly begin?: string; readonly deadline?: number } = {},
  ): Promise<T> {
    const state = { committing: false };
    return this.#withConnection(options.deadline ?? this.deadline(), state, async (tx) => {
      await tx.query(options.begin ?? "BEGIN");
      const result = await work(tx).catch(async (error) => {
        // A statement failed; the connection may still be sound: end the transaction on it. If
        // that fails too, the connection is not idle and is discarded (the server rolls back).
        await tx.query("ROLLBACK").catch(() => {});
        throw error;
      });
      state.committing = true;
      await tx.query("COMMIT");
      return result;
    });
  }

  /**
   * Closes every connection: idle ones politely, ones still checked out (a probe waiting on a
   * frozen server) at once, so a stop never waits for the database.
   */
  async end(): Promise<void> {
    for (const client of this.#inUse) discard(client);
    const ended = this.#pool.end().catch(() => {});
    // A connection still being opened holds `end` until its connect timeout: not worth waiting.
    await Promise.race([ended, delay(200, undefined, { ref: false })]);
  }

  /**
   * Checks out a connection, runs `work` on it and gives it back, all within `deadline`. A
   * connection that broke, or that missed the deadline, is destroyed instead of given back.
   */
  async #withConnection<T>(
    deadline: number | undefined,
    state: { committing: boolean },
    work: (connection: Queryable) => Promise<T>,
  ): Promise<T> {
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
            ? new CommitUnconfirmedError("no answer to the commit before the deadline")
            : new DeadlineMissedError("the database did not answer before the deadline"),
        );
      }, Math.max(0, deadline - performance.now()));
    });
    const run = async () => {
      const acquiring = this.#pool.connect();
      client = await acquiring.catch((error) => {
        throw asConnectionLost(error);
      });
      if (expired) {
        client.release(); // the caller has gone; the connection was never used
        return undefined as T;
      }
      this.#inUse.add(client);
      client.on("error", markBroken);
      const checking = this.#checkConnection !== undefined && !this.#checked.has(client);
      const connection: Queryable = {
        query: async <Row>(text: string, values?: Values) => {
          try {
            // The types say mutable: node-postgres only reads the values.
            const name = values === undefined ? undefined : statementName(text);
            return (await client!.query({ text, values: values as unknown[], name })).rows as Row[];
          } catch (error) {
            if (state.committing && !hasSqlState(error)) {
              throw new CommitUnconfirmedError("the connection broke during the commit", {
                cause: error,
              });
            }
            throw asConnectionLost(error);
          }
        },
      };
      try {
        if (checking) {
          await this.#checkConnection!(connection).catch((error) => {
            broken = true; // a host that failed the check is not used again
            throw error;
          });
          this.#checked.add(client);
        }
        return await work(connection);
      } finally {
        this.#inUse.delete(client);
        client.off("error", markBroken);
        // Only a connection idle outside any transaction goes back to the pool.
        if (expired || broken || client.getTransactionStatus() !== "I") discard(client);
        else client.release();
      }
    };
    const running = run();
    if (missed === undefined) return await running;
    running.catch(() => {}); // after a missed deadline its failure has no one to hear it
    try {
      return await Promise.race([running, missed]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * A name for each statement text that takes parameters, so each connection parses and plans it
 * once and then only binds and runs it (a statement without parameters, DDL or BEGIN, is sent as
 * it is). The texts are the store's own constants, so the names stay few.
 */
const statementNames = new Map<string, string>();

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `animal_store_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/** True for an error the server sent (a SQLSTATE of five characters). */
function hasSqlState(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * Takes a connection out of the pool for good and closes its socket at once: a graceful close
 * would wait for a server that may never answer.
 */
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
