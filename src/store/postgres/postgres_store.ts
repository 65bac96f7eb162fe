/**
 * The PostgreSQL store (`DATABASE_URL`): several instances of the service share one catalogue.
 * Reads are keyset queries on the primary key and the (status, id) index; creates go through
 * `CreateBatches`, which answers only after COMMIT. While the connection is lost, reads and
 * creates answer 503 at once and `/readyz` says so; a probe notices when the database is back.
 * Every statement has a deadline (database.ts), so a database that stops answering costs a
 * request at most that long, and counts as lost.
 */
import { setTimeout as delay } from "node:timers/promises";
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
  connectDatabase,
  type Database,
  describeDatabaseError,
  fatalStartReason,
  isConnectionLost,
  isTransientDatabaseError,
  settleSslMode,
} from "./connect.ts";
import { CreateBatches } from "./create_batches.ts";
import { type PetRow, storedPetOf } from "./pet_rows.ts";
import { migrate } from "./schema.ts";

const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 5000];

/** How often the connection is checked, so /readyz notices a lost database with no traffic. */
const PROBE_INTERVAL_MS = 2000;

/** How often, once it is lost: the service is back within this of the database. */
const LOST_PROBE_INTERVAL_MS = 500;

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
  let db: Database | undefined;
  // The store hears of pooled connections that break while idle, once it exists.
  let onIdleConnectionLost = (_: unknown) => {};
  for (let attempt = 0;; attempt++) {
    try {
      // Made once the TLS mode is settled, which needs the server (and so is retried too).
      db ??= connectDatabase(await settleSslMode(database), "animal-store", {
        onIdleConnectionLost: (error) => onIdleConnectionLost(error),
      });
      const applied = await migrate(db);
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
      await db?.end();
      const why = fatal === undefined
        ? "stopped while waiting for the database"
        : `database: ${fatal}`;
      throw new StoreOpenError(`Cannot open store: ${why}`);
    }
  }
  const store = new PostgresStore(db, database.poolSize, onWarning);
  onIdleConnectionLost = (error) => store.connectionLost(error);
  return store;
}

/** A PetStore on PostgreSQL; see openPostgresStore. */
export class PostgresStore implements PetStore {
  readonly #db: Database;
  readonly #creates: CreateBatches;
  readonly #onWarning: (message: string) => void;
  #probe: ReturnType<typeof setTimeout> | undefined;
  readonly #poolSize: number;
  #available = true;
  #closing: Promise<void> | undefined;
  /** For metrics. */
  #readsInFlight = 0;
  #queryErrors = 0;

  /** Use openPostgresStore. */
  constructor(db: Database, poolSize: number, onWarning: (message: string) => void) {
    this.#db = db;
    this.#onWarning = onWarning;
    this.#poolSize = poolSize;
    this.#creates = new CreateBatches(db, (error) => this.#failed(error));
    this.#scheduleProbe();
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
    return this.#creates.create(pet, idempotency);
  }

  async get(id: number): Promise<StoredPet | undefined> {
    const rows = await this.#read(() =>
      this.#db.query<PetRow>("SELECT id, name, category_id, status FROM pets WHERE id = $1", [id])
    );
    return rows.length === 0 ? undefined : storedPetOf(rows[0]);
  }

  /**
   * One page by keyset (never OFFSET): a further row is fetched only to learn `hasMore`; the
   * rows' texts are joined into the page's bytes.
   */
  async listJson(query: PageQuery): Promise<PetPageJson> {
    const { status, afterId, limit } = query;
    const rows = await this.#read(() =>
      status === undefined
        ? this.#db.query<PetRow>(
          "SELECT id, name, category_id, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2",
          [afterId, limit + 1],
        )
        : this.#db.query<PetRow>(
          `SELECT id, name, category_id, status FROM pets
           WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`,
          [status, afterId, limit + 1],
        )
    );
    return joinPageJson(rows.slice(0, limit).map(storedPetOf), rows.length > limit);
  }

  /**
   * Pets per status (one grouped count at scrape time), the pool's use and the statements failed.
   * Connections in use are counted here, from what the store runs: each read holds one, and the
   * batch of creates being committed one.
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
      const busy = this.#readsInFlight + this.#creates.connectionsInUse;
      inUse.set(Math.min(busy, this.#poolSize));
      try {
        const rows = await this.#read(() =>
          this.#db.query<{ status: string | null; count: string }>(
            "SELECT status, count(*) AS count FROM pets GROUP BY status",
          )
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

  /**
   * Waits for creates in flight (each within its deadline), stops the probe and closes the pool
   * at once, whatever state the database is in. Safe to call twice.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearTimeout(this.#probe);
      await this.#creates.idle();
      await this.#db.end();
    })();
    return this.#closing;
  }

  /** A pooled connection broke while idle: the database may be gone. */
  connectionLost(error: unknown): void {
    this.#lost(error);
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
    this.#lost(error);
  }

  /** When `error` says the connection is gone: unavailable until a probe succeeds. */
  #lost(error: unknown): void {
    if (!isConnectionLost(error) || !this.#available || this.#closing !== undefined) return;
    this.#available = false;
    this.#onWarning(`Database connection lost: ${describeDatabaseError(error)}`);
  }

  /**
   * Checks the connection on a timer, not only when a request fails: an idle instance's /readyz
   * must still say when its database is gone, and one that is lost must come back by itself.
   * unref: the probe alone never keeps the process alive.
   */
  #scheduleProbe(): void {
    if (this.#closing !== undefined) return;
    const interval = this.#available ? PROBE_INTERVAL_MS : LOST_PROBE_INTERVAL_MS;
    this.#probe = setTimeout(async () => {
      await this.#checkConnection();
      this.#scheduleProbe();
    }, interval);
    this.#probe.unref?.();
  }

  async #checkConnection(): Promise<void> {
    try {
      await this.#db.query("SELECT 1");
      if (!this.#available) {
        this.#available = true;
        this.#onWarning("Database reachable again");
      }
    } catch (error) {
      this.#failed(error);
    }
  }
}
