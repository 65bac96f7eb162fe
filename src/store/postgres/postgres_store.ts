/**
 * The PostgreSQL store: several instances share one catalogue (docs/architecture.md). While the
 * connection is lost, reads and creates answer 503 at once; a probe notices when the database, or
 * a newly promoted primary (failover.ts), is back.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { DatabaseConfig } from "../../config/config.ts";
import type { Registry } from "../../observe/metrics_registry.ts";
import type { PageQuery, PetPageJson } from "../../schemas/page.ts";
import type { NewPet, PetStatus } from "../../schemas/pet.ts";
import {
  type CreateOutcome,
  emptyStatusCounts,
  type IdempotencyClaim,
  joinPageJson,
  petCountsGauge,
  type PetStore,
  type StoredPet,
  StoreOpenError,
  StoreUnavailableError,
} from "../store.ts";
import { CreateBatches } from "./create_batches.ts";
import {
  Database,
  describeDatabaseError,
  fatalStartReason,
  isConnectionLost,
  isTransientDatabaseError,
  type Queryable,
} from "./database.ts";
import {
  AcknowledgedIds,
  type Candidate,
  describeIds,
  describeRole,
  enterTimeline,
  missingIds,
  PrimaryFinder,
} from "./failover.ts";
import { migrate, type PetRow, storedPetOf } from "./schema.ts";

const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 5000];

/** How often the connection is checked, so /readyz notices a lost database with no traffic. */
const PROBE_INTERVAL_MS = 2000;

/** Once lost (or while only standbys answer): how soon the service is back after the database. */
const LOST_PROBE_INTERVAL_MS = 500;

export interface PostgresStoreOptions {
  readonly database: DatabaseConfig;
  /** The connection lost or back, a host that is a standby, a primary without a synchronous standby. */
  readonly onWarning?: (message: string) => void;
  /** Pets a failover lost: ids this instance answered 201 that the new primary lacks. */
  readonly onError?: (message: string) => void;
  readonly onInfo?: (message: string) => void;
  /** The store waits for something outside the process (an unreachable database). */
  readonly onWaiting?: (message: string) => void;
  /** Ends the wait at start. */
  readonly signal?: AbortSignal;
}

/**
 * Finds the primary, migrates and returns the store. A database not reachable (or only standbys)
 * is waited for until `signal` ends the wait; settings no retry can fix throw `StoreOpenError`.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const store = new PostgresStore(options);
  await store.open(options.signal);
  return store;
}

class PostgresStore implements PetStore {
  readonly #finder: PrimaryFinder;
  readonly #config: DatabaseConfig;
  /** On `#primary`; undefined until a primary is found at start. */
  #db: Database | undefined;
  #primary: Candidate | undefined;
  #creates: CreateBatches | undefined;
  readonly #log: Required<Omit<PostgresStoreOptions, "database" | "signal">>;
  #probe: ReturnType<typeof setTimeout> | undefined;
  #available = false;
  #closing: Promise<void> | undefined;
  /** Hosts whose being a standby (or read-only) was logged: once each, until it is a primary. */
  readonly #warnedHosts = new Set<string>();
  /** Once the schema has the counter's timeline (migration 2), new connections check it. */
  #schemaReady = false;
  /** The timeline this instance last wrote on. */
  #timeline: number | undefined;
  #enteringTimeline: Promise<void> | undefined;
  readonly #acknowledged = new AcknowledgedIds();
  #queryErrors = 0;
  #lostInFailover = 0;

  constructor(options: PostgresStoreOptions) {
    const { onWarning = () => {}, onInfo = () => {} } = options;
    this.#config = options.database;
    this.#finder = new PrimaryFinder(options.database);
    const { onError = onWarning, onWaiting = onWarning } = options;
    this.#log = { onWarning, onError, onInfo, onWaiting };
  }

  async open(signal: AbortSignal | undefined): Promise<void> {
    for (let attempt = 0;; attempt++) {
      let wait = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];
      try {
        if (await this.#reconnect(true)) return this.#scheduleProbe();
        wait = LOST_PROBE_INTERVAL_MS; // only standbys answer: a promotion is awaited
      } catch (error) {
        const fatal = fatalStartReason(error);
        if (fatal !== undefined) {
          await this.#db?.end();
          throw new StoreOpenError(`Cannot open store: database: ${fatal}`);
        }
        this.#log.onWaiting(
          `Database not reachable yet, retrying: ${describeDatabaseError(error)}`,
        );
      }
      if (!(await delay(wait, true, { signal }).catch(() => false))) {
        await this.#db?.end();
        throw new StoreOpenError("Cannot open store: stopped while waiting for the database");
      }
    }
  }

  /**
   * Finds the primary and moves to it, the schema migrated once; false while none answers as one
   * (each standby named once, until it is a primary); throws when every host failed.
   */
  async #reconnect(starting: boolean): Promise<boolean> {
    const { primary, answers } = await this.#finder.find();
    if (primary === undefined) {
      // Said as waiting at start: the line tells where the service listens meanwhile.
      const log = starting ? this.#log.onWaiting : this.#log.onWarning;
      for (const { host, role } of answers) {
        if (role === undefined || this.#warnedHosts.has(host.name)) continue;
        this.#warnedHosts.add(host.name);
        const why = "the service writes only to a primary and waits for one";
        log(`Database host ${host.name} ${describeRole(role)}: ${why}`);
      }
      return false;
    }
    if (this.#closing !== undefined) return false;
    this.#warnedHosts.delete(primary.host.name);
    const moved = this.#primary !== undefined && primary !== this.#primary;
    this.#primary = primary;
    if (this.#db === undefined) {
      this.#db = new Database(primary.config, {
        applicationName: "animal-store",
        onIdleConnectionLost: (error) => this.#lost(error),
        checkConnection: (connection) => this.#checkNewConnection(connection),
      });
      this.#creates = new CreateBatches(
        this.#db,
        (error) => this.#failed(error),
        (firstId, lastId) => this.#acknowledged.add(firstId, lastId),
      );
    } else if (moved) {
      this.#db.switchTo(primary.config);
      this.#log.onWarning(`Database primary is now ${primary.host.name}`);
    }
    if (!this.#schemaReady) {
      const newest = (await migrate(this.#db!)).at(-1);
      if (newest !== undefined) this.#log.onInfo(`Database schema migrated to version ${newest}`);
      this.#schemaReady = true;
    }
    await this.#checkNewConnection(this.#db!);
    this.#available = true;
    if (!starting) this.#log.onWarning("Database reachable again");
    if (starting || moved) await this.#reportSynchronousStandbys();
    return true;
  }

  /** Before a new connection's first use (or the pool's): still a writable primary, on a known timeline. */
  async #checkNewConnection(connection: Queryable): Promise<void> {
    const timeline = await this.#finder.check(connection);
    if (!this.#schemaReady || timeline === this.#timeline) return;
    await this.#enterTimeline(connection, timeline);
  }

  /** Moves the id counter to `timeline`'s range, reports the pets a failover lost; one at a time. */
  #enterTimeline(connection: Queryable, timeline: number): Promise<void> {
    this.#enteringTimeline ??= (async () => {
      const start = await enterTimeline(connection, timeline);
      if (this.#timeline !== undefined) {
        // Forgotten only once checked: a check that fails is made again on the next connection.
        const lost = await missingIds(connection, this.#acknowledged.ranges());
        this.#acknowledged.clear();
        if (lost.length > 0) {
          this.#lostInFailover += lost.length;
          const ids = describeIds(lost);
          this.#log.onError(
            `A database failover lost ${lost.length} pets this instance answered 201 (their ids are not given again): ids ${ids}; create them again (a retry with the same Idempotency-Key makes a new pet)`,
          );
        }
      }
      if (start !== undefined) {
        this.#log.onWarning(
          `Database timeline ${timeline}: new ids start after ${start}, past every id an earlier timeline could have given`,
        );
      }
      this.#timeline = timeline;
    })().finally(() => (this.#enteringTimeline = undefined));
    return this.#enteringTimeline;
  }

  /** Synchronous: undefined when the role may not see (pg_stat_replication needs pg_read_all_stats). */
  async #synchronousStandbys(): Promise<{ standbys: number; synchronous: number | undefined }> {
    type Row = { standbys: string; synchronous: string; hidden: string; commit_level: string };
    const [row] = await this.#db!.query<Row>(
      `SELECT count(*) AS standbys,
         count(*) FILTER (WHERE sync_state IN ('sync', 'quorum')) AS synchronous,
         count(*) FILTER (WHERE sync_state IS NULL) AS hidden,
         current_setting('synchronous_commit') AS commit_level
       FROM pg_stat_replication WHERE state IS DISTINCT FROM 'backup'`,
    );
    const waits = row.commit_level === "on" || row.commit_level === "remote_apply";
    return {
      standbys: Number(row.standbys),
      synchronous: row.hidden !== "0" ? undefined : waits ? Number(row.synchronous) : 0,
    };
  }

  async #reportSynchronousStandbys(): Promise<void> {
    try {
      const { standbys, synchronous } = await this.#synchronousStandbys();
      if (standbys === 0 || (synchronous ?? 0) > 0) return;
      const primary = this.#primary!.host.name;
      const has = `has ${standbys} ${standbys === 1 ? "standby" : "standbys"}`;
      this.#log.onWarning(
        synchronous === undefined
          ? `Database primary ${primary} ${has}, and the database role may not see whether they are synchronous (grant it pg_monitor)`
          : `Database primary ${primary} ${has} but none synchronous: a failover can lose acknowledged pets (set synchronous_standby_names, synchronous_commit = on)`,
      );
    } catch (error) {
      this.#failed(error);
    }
  }

  isAvailable(): boolean {
    return this.#available;
  }

  async create(pet: NewPet, idempotency?: IdempotencyClaim): Promise<CreateOutcome> {
    if (this.#closing !== undefined) return { kind: "unavailable", reason: "the store is closing" };
    if (!this.#available) return { kind: "unavailable", reason: "the database is not reachable" };
    return await this.#creates!.create(pet, idempotency);
  }

  async get(id: number): Promise<StoredPet | undefined> {
    const sql = "SELECT id, name, category_id, status FROM pets WHERE id = $1";
    const [row] = await this.#read<PetRow>(sql, [id]);
    return row === undefined ? undefined : storedPetOf(row);
  }

  /** By keyset, never OFFSET; one row more tells `hasMore`. */
  async listJson(query: PageQuery): Promise<PetPageJson> {
    const { status, afterId, limit } = query;
    const filter = status === undefined ? "" : "status = $3 AND ";
    const rows = await this.#read<PetRow>(
      `SELECT id, name, category_id, status FROM pets
       WHERE ${filter}id > $1 ORDER BY id LIMIT $2`,
      status === undefined ? [afterId, limit + 1] : [afterId, limit + 1, status],
    );
    return joinPageJson(rows.slice(0, limit).map(storedPetOf), rows.length > limit);
  }

  registerMetrics(registry: Registry): void {
    const setPets = petCountsGauge(registry);
    const inUse = registry.gauge(
      "animal_store_postgres_pool_connections_in_use",
      "Pool connections busy with a statement or transaction (PostgreSQL store).",
    ).labels();
    registry.gauge(
      "animal_store_postgres_pool_size",
      "Most connections the pool opens, DATABASE_POOL_SIZE (PostgreSQL store).",
    ).labels().set(this.#config.poolSize);
    const errors = registry.counter(
      "animal_store_postgres_query_errors_total",
      "Statements, transactions and connection probes that failed (PostgreSQL store).",
    ).labels();
    const synchronous = registry.gauge(
      "animal_store_database_synchronous_standbys",
      "Standbys the primary's commits wait for (synchronous_standby_names); 0: a failover can lose acknowledged pets (PostgreSQL store).",
    );
    const lost = registry.counter(
      "animal_store_pets_lost_in_failover_total",
      "Pets this instance answered 201 that a promoted standby lacked (PostgreSQL store).",
    ).labels();
    registry.onScrape(async () => {
      // Unknown (the role may not see) leaves the series out rather than report a guess.
      if (!this.#available) return;
      const { synchronous: count } = await this.#synchronousStandbys();
      if (count !== undefined) synchronous.labels().set(count);
    });
    registry.onScrape(async () => {
      lost.mirror(this.#lostInFailover);
      // Taken before this scrape's own query, so it counts the traffic only.
      inUse.set(Math.min(this.#db!.connectionsInUse, this.#config.poolSize));
      try {
        const rows = await this.#read<{ status: PetStatus | null; count: string }>(
          "SELECT status, count(*) AS count FROM pets GROUP BY status",
        );
        const pets = emptyStatusCounts();
        for (const row of rows) pets[row.status ?? "none"] = Number(row.count);
        setPets(pets);
      } finally {
        errors.mirror(this.#queryErrors); // this count's own failure included
      }
    });
  }

  /** Waits for creates in flight (each within its deadline), then closes the pool at once. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearTimeout(this.#probe);
      await this.#creates?.idle();
      await this.#db?.end();
    })();
    return this.#closing;
  }

  /** Runs a read; a passing database failure becomes StoreUnavailableError (503). */
  async #read<Row>(text: string, values?: readonly unknown[]): Promise<Row[]> {
    if (!this.#available) throw new StoreUnavailableError("the database is not reachable");
    try {
      return await this.#db!.query<Row>(text, values);
    } catch (error) {
      this.#failed(error);
      if (!isTransientDatabaseError(error)) throw error;
      throw new StoreUnavailableError(describeDatabaseError(error), { cause: error });
    }
  }

  #failed(error: unknown): void {
    this.#queryErrors++;
    this.#lost(error);
  }

  #lost(error: unknown): void {
    if (!isConnectionLost(error) || !this.#available || this.#closing !== undefined) return;
    this.#available = false;
    this.#log.onWarning(`Database connection lost: ${describeDatabaseError(error)}`);
  }

  /** On a timer, not only on failures: an idle instance's /readyz must still see the database go. */
  #scheduleProbe(): void {
    if (this.#closing !== undefined) return;
    const interval = this.#available ? PROBE_INTERVAL_MS : LOST_PROBE_INTERVAL_MS;
    this.#probe = setTimeout(async () => {
      try {
        if (this.#available) await this.#finder.check(this.#db!);
        else await this.#reconnect(false);
      } catch (error) {
        this.#failed(error);
      }
      this.#scheduleProbe();
    }, interval);
    this.#probe.unref?.();
  }
}
