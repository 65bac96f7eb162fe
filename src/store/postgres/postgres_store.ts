/**
 * The PostgreSQL store (`DATABASE_URL`): several instances of the service share one catalogue.
 * Reads are keyset queries on the primary key and the (status, id) index; creates go through
 * `CreateBatches`, which answers only after COMMIT. While the connection is lost, reads and
 * creates answer 503 at once and `/readyz` says so; a probe notices when the database is back.
 * Every statement has a deadline (database.ts), so a database that stops answering costs a
 * request at most that long, and counts as lost.
 *
 * With several hosts in `DATABASE_URL`, the store writes to the one that is a writable primary
 * (primary_finder.ts): a lost connection, or a host that turned standby or read-only, sends the
 * probe asking every host again, and the pool moves to whichever is the primary now. A new
 * timeline on it moves the id counter past what the old primary could have given, and the ids
 * this instance acknowledged that the new primary lacks are logged (failover_ids.ts).
 */
import { setTimeout as delay } from "node:timers/promises";
import type { DatabaseConfig } from "../../config/config.ts";
import type { DatabaseHost } from "../../config/database_url.ts";
import type { Registry } from "../../metrics/registry.ts";
import type { PageQuery, PetPageJson } from "../../schemas/page.ts";
import type { NewPet } from "../../schemas/pet.ts";
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
import {
  connectDatabase,
  describeDatabaseError,
  fatalStartReason,
  isConnectionLost,
  isTransientDatabaseError,
  poolConfig,
} from "./connect.ts";
import type { Database, Queryable } from "./database.ts";
import { CreateBatches } from "./create_batches.ts";
import { AcknowledgedIds, describeIds, enterTimeline, missingIds } from "./failover_ids.ts";
import { type PetRow, storedPetOf } from "./pet_rows.ts";
import {
  checkPrimary,
  describeRole,
  type FoundPrimary,
  type HostAnswer,
  PrimaryFinder,
} from "./primary_finder.ts";
import { migrate } from "./schema.ts";

const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 5000];

/** How often the connection is checked, so /readyz notices a lost database with no traffic. */
const PROBE_INTERVAL_MS = 2000;

/**
 * How often, once it is lost (or while only standbys answer at start): the service is back within
 * this of the database, or of a standby's promotion.
 */
const LOST_PROBE_INTERVAL_MS = 500;

/** What the store tells the operator, and when it gives up waiting at start. */
export interface PostgresStoreOptions {
  readonly database: DatabaseConfig;
  /** The connection lost or back, a host that is a standby, a primary without a synchronous standby. */
  readonly onWarning?: (message: string) => void;
  /** Pets a failover lost: ids this instance answered 201 that the new primary lacks. */
  readonly onError?: (message: string) => void;
  readonly onInfo?: (message: string) => void;
  readonly onWaiting?: (message: string) => void;
  readonly signal?: AbortSignal;
}

/**
 * Finds the primary among the hosts of `DATABASE_URL`, applies missing migrations and returns the
 * store. An unreachable database, or one whose hosts are all standbys, is waited for (told to
 * `onWaiting`, each standby once to `onWarning`) until `signal` ends the wait; settings no retry
 * can fix throw `StoreOpenError`. `onInfo` hears of a migration.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const store = new PostgresStore(options);
  await store.open(options.signal);
  return store;
}

/** A PetStore on PostgreSQL; see openPostgresStore. */
class PostgresStore implements PetStore {
  readonly #finder: PrimaryFinder;
  readonly #config: DatabaseConfig;
  /** The pool, on the primary's host; undefined until one is found at start. */
  #db: Database | undefined;
  /** The host `#db` connects to. */
  #host: DatabaseHost | undefined;
  #creates: CreateBatches | undefined;
  readonly #onWarning: (message: string) => void;
  readonly #onError: (message: string) => void;
  readonly #onInfo: (message: string) => void;
  readonly #onWaiting: (message: string) => void;
  #probe: ReturnType<typeof setTimeout> | undefined;
  #available = false;
  #closing: Promise<void> | undefined;
  /** Hosts whose being a standby (or read-only) was logged: once each, until it is a primary. */
  readonly #warnedHosts = new Set<string>();
  /** Once the schema has the counter's timeline (migration 2), new connections check it. */
  #schemaReady = false;
  /** The timeline this instance last wrote on (failover_ids.ts). */
  #timeline: number | undefined;
  #enteringTimeline: Promise<void> | undefined;
  readonly #acknowledged = new AcknowledgedIds();
  /** For metrics. */
  #readsInFlight = 0;
  #queryErrors = 0;
  #lostInFailover = 0;

  /** Use openPostgresStore. */
  constructor(options: PostgresStoreOptions) {
    const { onWarning = () => {}, onInfo = () => {} } = options;
    this.#config = options.database;
    this.#finder = new PrimaryFinder(options.database);
    this.#onWarning = onWarning;
    this.#onError = options.onError ?? onWarning;
    this.#onInfo = onInfo;
    this.#onWaiting = options.onWaiting ?? onWarning;
  }

  /** Waits for a primary, connects and migrates; see openPostgresStore. */
  async open(signal: AbortSignal | undefined): Promise<void> {
    for (let attempt = 0;; attempt++) {
      let wait = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];
      try {
        const { primary, answers } = await this.#finder.find();
        if (primary === undefined) {
          // Said as waiting: the line tells where the service listens meanwhile.
          this.#reportHosts(answers, this.#onWaiting);
          const errors = answers.flatMap((answer) => "error" in answer ? [answer.error] : []);
          if (errors.length === answers.length) {
            throw errors.find((error) => fatalStartReason(error) !== undefined) ?? errors[0];
          }
          // Standbys answer: no line per attempt (each was named once), and a prompt look
          // again, since a promotion is what is awaited.
          wait = LOST_PROBE_INTERVAL_MS;
        } else {
          this.#use(primary);
          const applied = await migrate(this.#db!);
          if (applied.length > 0) {
            this.#onInfo(`Database schema migrated to version ${applied.at(-1)}`);
          }
          this.#schemaReady = true;
          await this.#enterCurrentTimeline();
          this.#available = true;
          await this.#reportSynchronousStandbys();
          break;
        }
      } catch (error) {
        const fatal = fatalStartReason(error);
        if (fatal !== undefined) {
          await this.#db?.end();
          throw new StoreOpenError(`Cannot open store: database: ${fatal}`);
        }
        this.#onWaiting(`Database not reachable yet, retrying: ${describeDatabaseError(error)}`);
      }
      const waited = await delay(wait, true, { signal }).catch(() => false);
      if (!waited) {
        await this.#db?.end();
        throw new StoreOpenError("Cannot open store: stopped while waiting for the database");
      }
    }
    this.#scheduleProbe();
  }

  /** Connections go to `primary` from now on (a pool made at the first, switched after). */
  #use(primary: FoundPrimary): void {
    this.#warnedHosts.delete(primary.host.name); // named again if it is ever a standby
    if (this.#db !== undefined && this.#host?.url === primary.host.url) return;
    this.#host = primary.host;
    if (this.#db === undefined) {
      this.#db = connectDatabase(primary.config, "animal-store", {
        onIdleConnectionLost: (error) => this.connectionLost(error),
        checkConnection: (connection) => this.#checkNewConnection(connection),
      });
      this.#creates = new CreateBatches(
        this.#db,
        (error) => this.#failed(error),
        (firstId, lastId) => this.#acknowledged.add(firstId, lastId),
      );
    } else {
      this.#db.switchTo(poolConfig(primary.config, "animal-store"));
    }
  }

  /**
   * When no host is a primary: logs each that answered as a standby (or read-only), once until it
   * is the primary.
   */
  #reportHosts(answers: readonly HostAnswer[], log = this.#onWarning): void {
    for (const answer of answers) {
      if (!("role" in answer) || answer.role === "primary") continue;
      const { host, role } = answer;
      if (!this.#warnedHosts.has(host.name)) {
        this.#warnedHosts.add(host.name);
        log(
          `Database host ${host.name} ${
            describeRole(role)
          }: the service writes only to a primary and waits for one`,
        );
      }
    }
  }

  /**
   * Before a new connection's first use: the host must still be a writable primary, and on the
   * timeline this instance knows; a new timeline moves the id counter first.
   */
  async #checkNewConnection(connection: Queryable): Promise<void> {
    const { timeline } = await checkPrimary(connection, this.#host!, this.#finder.target);
    if (!this.#schemaReady || timeline === this.#timeline) return;
    await this.#enterTimeline(connection, timeline);
  }

  /** The current timeline, entered if it is new: after the start's migration and a reconnect. */
  async #enterCurrentTimeline(): Promise<void> {
    const { timeline } = await checkPrimary(this.#db!, this.#host!, this.#finder.target);
    if (timeline !== this.#timeline) await this.#enterTimeline(this.#db!, timeline);
  }

  /**
   * Moves the id counter to `timeline`'s range (failover_ids.ts) and, when this instance wrote on
   * another timeline before, reports the ids it acknowledged there that the database lacks. One
   * at a time: a second caller waits for the first.
   */
  #enterTimeline(connection: Queryable, timeline: number): Promise<void> {
    this.#enteringTimeline ??= (async () => {
      const start = await enterTimeline(connection, timeline);
      if (this.#timeline !== undefined) {
        // Forgotten only once checked: a check that fails is made again on the next connection.
        const lost = await missingIds(connection, this.#acknowledged.ranges());
        this.#acknowledged.clear();
        if (lost.length > 0) {
          this.#lostInFailover += lost.length;
          this.#onError(
            `A database failover lost ${lost.length} pets this instance answered 201 (their ids are not given again): ids ${
              describeIds(lost)
            }; create them again (a retry with the same Idempotency-Key makes a new pet)`,
          );
        }
      }
      if (start !== undefined) {
        this.#onWarning(
          `Database timeline ${timeline}: new ids start after ${start}, past every id an earlier timeline could have given`,
        );
      }
      this.#timeline = timeline;
    })().finally(() => (this.#enteringTimeline = undefined));
    return this.#enteringTimeline;
  }

  /**
   * Standbys of the primary, and how many its commits wait for (undefined when the role may not
   * see: pg_stat_replication shows others' details only to pg_read_all_stats).
   */
  async #synchronousStandbys(): Promise<{ standbys: number; synchronous: number | undefined }> {
    const [row] = await this.#db!.query<
      { standbys: string; synchronous: string; hidden: string; commit_level: string }
    >(
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

  /** At start and on a new primary: a `warn` when it has standbys but none synchronous. */
  async #reportSynchronousStandbys(): Promise<void> {
    try {
      const { standbys, synchronous } = await this.#synchronousStandbys();
      if (standbys === 0 || (synchronous ?? 0) > 0) return;
      const primary = this.#host!.name;
      const has = `has ${standbys} ${standbys === 1 ? "standby" : "standbys"}`;
      this.#onWarning(
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

  create(pet: NewPet, idempotency?: IdempotencyClaim): Promise<CreateOutcome> {
    if (this.#closing !== undefined) {
      return Promise.resolve({ kind: "unavailable", reason: "the store is closing" });
    }
    if (!this.#available) {
      return Promise.resolve({ kind: "unavailable", reason: "the database is not reachable" });
    }
    return this.#creates!.create(pet, idempotency);
  }

  async get(id: number): Promise<StoredPet | undefined> {
    const rows = await this.#read(() =>
      this.#db!.query<PetRow>("SELECT id, name, category_id, status FROM pets WHERE id = $1", [id])
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
        ? this.#db!.query<PetRow>(
          "SELECT id, name, category_id, status FROM pets WHERE id > $1 ORDER BY id LIMIT $2",
          [afterId, limit + 1],
        )
        : this.#db!.query<PetRow>(
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
      // Read at each scrape: a standby may connect, or turn synchronous, at any time. Unknown
      // (the role may not see) leaves the series out rather than report a guess.
      if (!this.#available) return;
      const { synchronous: count } = await this.#synchronousStandbys();
      if (count !== undefined) synchronous.labels().set(count);
    });
    registry.onScrape(() => lost.mirror(this.#lostInFailover));
    registry.onScrape(async () => {
      // Taken before this scrape's own query, so it counts the traffic only.
      const busy = this.#readsInFlight + this.#creates!.connectionsInUse;
      inUse.set(Math.min(busy, this.#config.poolSize));
      try {
        const rows = await this.#read(() =>
          this.#db!.query<{ status: string | null; count: string }>(
            "SELECT status, count(*) AS count FROM pets GROUP BY status",
          )
        );
        const pets = emptyStatusCounts();
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
      await this.#creates?.idle();
      await this.#db?.end();
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

  /**
   * While available: the host is still a writable primary (one statement on the pool). While
   * lost: which host is the primary now, and if it is another, the pool moves there.
   */
  async #checkConnection(): Promise<void> {
    try {
      if (this.#available) {
        await checkPrimary(this.#db!, this.#host!, this.#finder.target);
        return;
      }
      const { primary, answers } = await this.#finder.find();
      if (primary === undefined) this.#reportHosts(answers);
      if (primary === undefined || this.#closing !== undefined) return;
      const moved = primary.host.url !== this.#host!.url;
      this.#use(primary);
      if (moved) this.#onWarning(`Database primary is now ${primary.host.name}`);
      await this.#enterCurrentTimeline();
      this.#available = true;
      this.#onWarning("Database reachable again");
      if (moved) await this.#reportSynchronousStandbys();
    } catch (error) {
      this.#failed(error);
    }
  }
}
