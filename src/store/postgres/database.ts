/**
 * The node-postgres pool with a deadline on every use: `statement_timeout` needs a server that
 * answers, and a frozen one leaves a statement waiting as long as TCP keeps the connection. When
 * the deadline passes the caller is answered at once and the connection destroyed (a late answer
 * could still arrive on it). Both 'error' events (pool, client) are listened to: unheard, they end
 * the process.
 */
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";

type Values = readonly unknown[];

/** What runs statements: the pool (any connection) or one transaction's connection. */
export interface Queryable {
  /** The rows of one statement; int8 and numeric columns arrive as their decimal text. */
  query<Row>(text: string, values?: Values): Promise<Row[]>;
}

class DeadlineMissedError extends Error {
  readonly code = "DEADLINE_MISSED";
}

class ConnectionLostError extends Error {
  readonly code = "CONNECTION_LOST";
}

/** COMMIT was sent but its answer never came: the transaction may have committed. */
export class CommitUnconfirmedError extends Error {
  readonly code = "COMMIT_UNCONFIRMED";
}

/** node-postgres's own messages for a connection that broke or was never made (they have no code). */
const CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

function asConnectionLost(error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== undefined || typeof message !== "string") return error;
  return CONNECTION_MESSAGES.test(message)
    ? new ConnectionLostError(message, { cause: error })
    : error;
}

interface DatabaseOptions {
  readonly pool: pg.PoolConfig;
  /** Once per new connection, before its first use; a rejection discards it and fails the use. */
  readonly checkConnection?: (connection: Queryable) => Promise<void>;
  /** Per statement or transaction; undefined: no limit. */
  readonly deadlineMs: number | undefined;
  readonly onIdleConnectionLost?: (error: unknown) => void;
}

export class Database implements Queryable {
  #pool: pg.Pool;
  readonly #deadlineMs: number | undefined;
  readonly #onIdleLost: (error: unknown) => void;
  readonly #checkConnection: ((connection: Queryable) => Promise<void>) | undefined;
  readonly #checked = new WeakSet<pg.PoolClient>();
  /** Destroyed by `end`, so a stop never waits on a frozen server. */
  readonly #inUse = new Set<pg.PoolClient>();

  constructor(options: DatabaseOptions) {
    this.#deadlineMs = options.deadlineMs;
    this.#onIdleLost = options.onIdleConnectionLost ?? (() => {});
    this.#checkConnection = options.checkConnection;
    this.#pool = this.#newPool(options.pool);
  }

  /** Connections go to another host from now on; the old pool closes as its connections return. */
  switchTo(pool: pg.PoolConfig): void {
    const old = this.#pool;
    this.#pool = this.#newPool(pool);
    old.end().catch(() => {});
  }

  #newPool(config: pg.PoolConfig): pg.Pool {
    const pool = new pg.Pool(config);
    pool.on("error", (error) => this.#onIdleLost(asConnectionLost(error)));
    return pool;
  }

  /** A `performance.now()` time, or undefined for none. */
  deadline(): number | undefined {
    return this.#deadlineMs === undefined ? undefined : performance.now() + this.#deadlineMs;
  }

  query<Row>(text: string, values?: Values, deadline = this.deadline()): Promise<Row[]> {
    return this.#withConnection(
      deadline,
      { committing: false },
      (connection) => connection.query<Row>(text, values),
    );
  }

  /**
   * One statement that is a transaction by itself (no BEGIN). Once it is sent, an answer that
   * never comes rejects with CommitUnconfirmedError, since it may have committed.
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

  /** Rejects with CommitUnconfirmedError when COMMIT's answer was lost; else nothing committed. */
  transaction<T>(
    work: (tx: Queryable) => Promise<T>,
    options: { readonly begin?: string; readonly deadline?: number } = {},
  ): Promise<T> {
    const state = { committing: false };
    return this.#withConnection(options.deadline ?? this.deadline(), state, async (tx) => {
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
    const ended = this.#pool.end().catch(() => {});
    // A connection still being opened holds `end` until its connect timeout: not worth waiting.
    await Promise.race([ended, delay(200, undefined, { ref: false })]);
  }

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

function hasSqlState(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
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
