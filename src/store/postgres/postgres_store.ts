/**
 * The PostgreSQL store (`DATABASE_URL`): several instances of the service share one catalogue.
 * Reads are keyset queries on the primary key and the (status, id) index; creates go through
 * `CreateBatches`, which answers only after COMMIT. While the connection is lost, reads and
 * creates answer 503 at once and `/readyz` says so; a probe notices when the database is back.
 */
import { setTimeout as delay } from "node:timers/promises";
import { setInterval } from "node:timers";
import type { DatabaseConfig } from "../../config/config.ts";
import type { Registry } from "../../metrics/registry.ts";
import type { NewPet } from "../../schemas/pet.ts";
import {
  type CreateOutcome,
  type IdempotencyClaim,
  joinPageJson,
  type PageQuery,
  petCountsGauge,
  type PetPageJson,
  type PetStore,
  type StatusCounts,
  type StoredPet,
  StoreOpenError,
  StoreUnavailableError,
} from "../store.ts";
import {
  connectPool,
  describeDatabaseError,
  fatalStartReason,
  isConnectionLost,
  isTransientDatabaseError,
  type Sql,
} from "./connect.ts";
import { CreateBatches } from "./create_batches.ts";
import { type PetRow, storedPetOf } from "./pet_rows.ts";
import { migrate } from "./schema.ts";

const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 5000];

/** How often the connection is checked, so /readyz notices a lost database with no traffic. */
const PROBE_INTERVAL_MS = 2000;

/**
 * Connects, applies missing migrations and returns the store. An unreachable database is retried
 * with backoff (told to `onWaiting`) until `signal` ends the wait; settings no retry can fix throw
 * `StoreOpenError`. `onWarning` hears of the connection lost or back, `onInfo` of a migration.
 */
export async function openPostgresStore(options: {
  readonly database: DatabaseConfig;
  readonly onWarning?: (message: string) => void;
  readonly onInfo?: (message: string) => void;
  readonly onWaiting?: (message: string) => void;
  readonly signal?: AbortSignal;
}): Promise<PostgresStore> {
  const { database, onWarning = () => {}, onInfo = () => {}, signal } = options;
  const onWaiting = options.onWaiting ?? onWarning;
  let sql: Sql;
  try {
    sql = connectPool(database, "animal-store");
  } catch (error) {
    throw new StoreOpenError(`Cannot open store: ${describeDatabaseError(error)}`);
  }
  for (let attempt = 0;; attempt++) {
    try {
      const applied = await migrate(sql);
      if (applied.length > 0) onInfo(`Database schema migrated to version ${applied.at(-1)}`);
      break;
    } catch (error) {
      const fatal = fatalStartReason(error);
      if (fatal === undefined) {
        onWaiting(`Database not reachable yet, retrying: ${describeDatabaseError(error)}`);
        const wait = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];
        const waited = await delay(wait, true, { signal }).catch(() => false);
        if (waited) continue;
      }
      await sql.end({ timeout: 1 }).catch(() => {});
      const why = fatal === undefined
        ? "stopped while waiting for the database"
        : `database: ${fatal}`;
      throw new StoreOpenError(`Cannot open store: ${why}`);
    }
  }
  return new PostgresStore(sql, database.poolSize, onWarning);
}

/** A PetStore on PostgreSQL; see openPostgresStore. */
export class PostgresStore implements PetStore {
  readonly #sql: Sql;
  readonly #creates: CreateBatches;
  readonly #onWarning: (message: string) => void;
  readonly #probe: ReturnType<typeof setInterval>;
  readonly #poolSize: number;
  #available = true;
  #probing = false;
  #closing: Promise<void> | undefined;
  /** For metrics. */
  #readsInFlight = 0;
  #createsInFlight = 0;
  #queryErrors = 0;

  /** Use openPostgresStore. */
  constructor(sql: Sql, poolSize: number, onWarning: (message: string) => void) {
    this.#sql = sql;
    this.#onWarning = onWarning;
    this.#poolSize = poolSize;
    this.#creates = new CreateBatches(sql, (error) => this.#failed(error));
    // Checked on a timer, not only when a request fails: an idle instance's /readyz must still
    // say when its database is gone. unref: the probe alone never keeps the process alive.
    this.#probe = setInterval(() => void this.#checkConnection(), PROBE_INTERVAL_MS);
    this.#probe.unref();
  }

  isAvailable(): boolean {
    return this.#available;
  }

  create(pet: NewPet, idempotency?: IdempotencyClaim): Promise<CreateOutcome> {
    if (this.#closing !== undefined) {
      return Promise.resolve({ kind: "unavailable", reason: "the store is closing" });
    }
    if (!this.#available) {
      return Promise.resolve({ kind: "unavailable", reason: "the database is not reachable" });
    }
    this.#createsInFlight++;
    return this.#creates.create(pet, idempotency).finally(() => this.#createsInFlight--);
  }

  async get(id: number): Promise<StoredPet | undefined> {
    const rows = await this.#read(() =>
      this.#sql<PetRow[]>`SELECT id, name, category_id, status FROM pets WHERE id = ${id}`
    );
    return rows.length === 0 ? undefined : storedPetOf(rows[0]);
  }

  /**
   * One page by keyset (never OFFSET): a further row is fetched only to learn `hasMore`; the
   * rows' texts are joined into the page's bytes.
   */
  async listJson(query: PageQuery): Promise<PetPageJson> {
    const { status, afterId, limit } = query;
    const sql = this.#sql;
    const filter = status === undefined ? sql`` : sql`status = ${status} AND`;
    const rows = await this.#read(() =>
      sql<PetRow[]>`SELECT id, name, category_id, status FROM pets
                    WHERE ${filter} id > ${afterId} ORDER BY id LIMIT ${limit + 1}`
    );
    return joinPageJson(rows.slice(0, limit).map(storedPetOf), rows.length > limit);
  }

  /**
   * Pets per status (one grouped count at scrape time), the pool's use and the statements failed.
   * postgres.js hides its pool, so connections in use are counted here: each read holds one, and
   * creates one between them (`CreateBatches` commits one transaction at a time).
   */
  registerMetrics(registry: Registry): void {
    const setPets = petCountsGauge(registry);
    const inUse = registry.gauge(
      "animal_store_postgres_pool_connections_in_use",
      "Pool connections busy with a statement or transaction (PostgreSQL store).",
    ).labels();
    registry.gauge(
      "animal_store_postgres_pool_size",
      "Most connections the pool opens, DATABASE_POOL_SIZE (PostgreSQL store).",
    ).labels().set(this.#poolSize);
    const errors = registry.counter(
      "animal_store_postgres_query_errors_total",
      "Statements, transactions and connection probes that failed (PostgreSQL store).",
    ).labels();
    registry.onScrape(async () => {
      // Taken before this scrape's own query, so it counts the traffic only.
      const busy = this.#readsInFlight + (this.#createsInFlight > 0 ? 1 : 0);
      inUse.set(Math.min(busy, this.#poolSize));
      try {
        const rows = await this.#read(() =>
          this.#sql<{ status: string | null; count: string }[]>`
            SELECT status, count(*) AS count FROM pets GROUP BY status`
        );
        const pets: StatusCounts = { available: 0, pending: 0, sold: 0, none: 0 };
        for (const row of rows) {
          const status = row.status ?? "none";
          if (status in pets) pets[status as keyof typeof pets] = Number(row.count);
        }
        setPets(pets);
      } finally {
        errors.mirror(this.#queryErrors); // this count's own failure included
      }
    });
  }

  /** Waits for creates in flight, stops the probe and closes the pool. Safe to call twice. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearInterval(this.#probe);
      await this.#creates.idle();
      await this.#sql.end({ timeout: 5 });
    })();
    return this.#closing;
  }

  /** Runs a read; a passing database failure becomes StoreUnavailableError (503). */
  async #read<T>(query: () => Promise<T>): Promise<T> {
    if (!this.#available) throw new StoreUnavailableError("the database is not reachable");
    this.#readsInFlight++;
    try {
      return await query();
    } catch (error) {
      this.#failed(error);
      if (!isTransientDatabaseError(error)) throw error;
      throw new StoreUnavailableError(describeDatabaseError(error), { cause: error });
    } finally {
      this.#readsInFlight--;
    }
  }

  /** A query failed: counted; when the connection is gone, unavailable until a probe. */
  #failed(error: unknown): void {
    this.#queryErrors++;
    if (!isConnectionLost(error) || !this.#available || this.#closing !== undefined) return;
    this.#available = false;
    this.#onWarning(`Database connection lost: ${describeDatabaseError(error)}`);
  }

  async #checkConnection(): Promise<void> {
    if (this.#probing || this.#closing !== undefined) return;
    this.#probing = true;
    try {
      await this.#sql`SELECT 1`;
      if (!this.#available) {
        this.#available = true;
        this.#onWarning("Database reachable again");
      }
    } catch (error) {
      this.#failed(error);
    } finally {
      this.#probing = false;
    }
  }
}
