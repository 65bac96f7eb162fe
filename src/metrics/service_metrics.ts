/**
 * The service's metric families (docs/metrics.md lists them with what to alert on). Requests are
 * counted through series bound once per route template and method, so the per-request cost is a
 * map lookup, an increment and a histogram bucket: the label text is built once, at first use.
 * Everything that can be read instead of tracked (pets per status, file bytes, memory) is read at
 * scrape time.
 */
import { PET_STATUSES } from "../schemas/pet.ts";
import type { PetStore, StoreObserver, StoreStats } from "../store/store.ts";
import { processMetrics } from "./process_metrics.ts";
import {
  type Counter,
  type CounterSeries,
  type Gauge,
  type GaugeSeries,
  type Histogram,
  type HistogramSeries,
  Registry,
} from "./registry.ts";

/** The `method` label: these as they are, any other method as `OTHER` (bounded cardinality). */
const KNOWN_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** The `route` label of a request that matched no route. */
const UNMATCHED = "unmatched";

/** Seconds; from a cached list page (~50 µs) to a slow database (10 s). */
const DURATION_BUCKETS = [
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];
/** Seconds; a healthy disk syncs in about a millisecond, a struggling one in tens. */
const FSYNC_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Creates per batch; the writer takes at most 1024. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/**
 * The series of one route template and method, bound on first use (so a scrape shows only what
 * was requested): the label text is built once, never per request.
 */
class RouteMethodSeries {
  readonly #byStatus = new Map<number, CounterSeries>();
  #duration: HistogramSeries | undefined;
  constructor(
    private readonly families: { requests: Counter; duration: Histogram },
    private readonly method: string,
    private readonly route: string,
  ) {}

  /** Counts one request of this status that took `seconds`. */
  observe(status: number, seconds: number): void {
    let counter = this.#byStatus.get(status);
    if (counter === undefined) {
      counter = this.families.requests.labels(this.method, this.route, String(status));
      this.#byStatus.set(status, counter);
    }
    counter.inc();
    (this.#duration ??= this.families.duration.labels(this.method, this.route)).observe(seconds);
  }
}

/** Where the metrics of one request go; `pattern` is the router's, e.g. `/pets/:petId`. */
export interface RouteTable {
  /** Patterns outside BASE_PATH (health, metrics): the template is the pattern. */
  readonly rootPatterns: readonly string[];
  /** Patterns under BASE_PATH: the template is BASE_PATH plus the pattern. */
  readonly apiPatterns: readonly string[];
  readonly basePath: string;
}

/** What the app knows at scrape time. */
export interface ScrapeSources {
  readonly store: PetStore | undefined;
  readonly ready: boolean;
  readonly inFlight: number;
}

/** The service's registry and the hooks that feed it. */
export class ServiceMetrics {
  readonly #registry = new Registry();
  /** Router pattern → method → series; `""` is the unmatched route. */
  readonly #routes = new Map<string, Map<string, RouteMethodSeries>>();
  readonly #refreshProcess: () => void;
  readonly #rateLimited: CounterSeries;
  readonly #inFlight: GaugeSeries;
  readonly #ready: GaugeSeries;
  readonly #loadSeconds: Gauge;
  /** Store families: their series appear once the store reports them (its backend's only). */
  readonly #pets: Gauge;
  readonly #fileBytes: Gauge;
  readonly #keys: Gauge;
  readonly #poolInUse: Gauge;
  readonly #poolSize: Gauge;
  readonly #queryErrors: Counter;
  readonly #fsync: Histogram;
  readonly #batch: Histogram;

  /** Told by the JSON-lines store of each batch fdatasync'd. */
  readonly storeObserver: StoreObserver;

  constructor(routes: RouteTable) {
    const r = this.#registry;
    const requests = r.counter(
      "animal_store_http_requests_total",
      "HTTP requests answered, by method, route template and status.",
      ["method", "route", "status"],
    );
    const duration = r.histogram(
      "animal_store_http_request_duration_seconds",
      "Time from a request's arrival to its response being built, by method and route template.",
      { buckets: DURATION_BUCKETS, labelNames: ["method", "route"] },
    );
    const templates: [string, string][] = [
      ...routes.rootPatterns.map((pattern): [string, string] => [pattern, pattern]),
      ...routes.apiPatterns.map((pattern): [string, string] => [
        pattern,
        routes.basePath + pattern,
      ]),
      ["", UNMATCHED],
    ];
    for (const [pattern, template] of templates) {
      if (this.#routes.has(pattern)) continue; // a root path shadows an API one, as in routing
      const route = template.replace(/:([A-Za-z0-9]+)/g, "{$1}");
      const byMethod = new Map<string, RouteMethodSeries>();
      for (const method of [...KNOWN_METHODS, "OTHER"]) {
        byMethod.set(method, new RouteMethodSeries({ requests, duration }, method, route));
      }
      this.#routes.set(pattern, byMethod);
    }
    this.#rateLimited = r.counter(
      "animal_store_rate_limited_requests_total",
      "Requests refused with 429 by RATE_LIMIT.",
    ).labels();
    this.#inFlight = r.gauge(
      "animal_store_http_requests_in_flight",
      "Requests being handled, this scrape included.",
    ).labels();
    this.#ready = r.gauge(
      "animal_store_ready",
      "1 when the store is loaded and reachable and the service is not shutting down (as /readyz).",
    ).labels();
    this.#loadSeconds = r.gauge(
      "animal_store_store_load_seconds",
      "Time the last start spent opening the store (replaying the data file, or migrating).",
    );
    this.#pets = r.gauge("animal_store_pets", "Pets in the store by status.", ["status"]);
    this.#refreshProcess = processMetrics(r);
    this.#fsync = r.histogram(
      "animal_store_jsonl_fsync_duration_seconds",
      "Time one fdatasync of a batch of creates took (JSON-lines store).",
      { buckets: FSYNC_BUCKETS },
    );
    this.#batch = r.histogram(
      "animal_store_jsonl_batch_size",
      "Creates written and fdatasync'd together (JSON-lines store).",
      { buckets: BATCH_BUCKETS },
    );
    this.#fileBytes = r.gauge(
      "animal_store_jsonl_data_file_bytes",
      "Size of the durable part of the data file (JSON-lines store).",
    );
    this.#keys = r.gauge(
      "animal_store_jsonl_idempotency_keys",
      "Idempotency keys held in memory (JSON-lines store).",
    );
    this.#poolInUse = r.gauge(
      "animal_store_postgres_pool_connections_in_use",
      "Pool connections busy with a statement or transaction (PostgreSQL store).",
    );
    this.#poolSize = r.gauge(
      "animal_store_postgres_pool_size",
      "Most connections the pool opens, DATABASE_POOL_SIZE (PostgreSQL store).",
    );
    this.#queryErrors = r.counter(
      "animal_store_postgres_query_errors_total",
      "Statements, transactions and connection probes that failed (PostgreSQL store).",
    );
    let fsync: HistogramSeries | undefined;
    let batch: HistogramSeries | undefined;
    const fsyncFamily = this.#fsync;
    const batchFamily = this.#batch;
    this.storeObserver = {
      batchSynced(seconds, creates) {
        (fsync ??= fsyncFamily.labels()).observe(seconds);
        (batch ??= batchFamily.labels()).observe(creates);
      },
    };
  }

  /** Counts one answered request; `pattern` is the matched router pattern, undefined for none. */
  observe(method: string, pattern: string | undefined, status: number, seconds: number): void {
    const byMethod = this.#routes.get(pattern ?? "") ?? this.#routes.get("")!;
    const series = byMethod.get(method) ?? byMethod.get("OTHER")!;
    series.observe(status, seconds);
    if (status === 429) this.#rateLimited.inc();
  }

  /** Records how long the store took to open at this start. */
  storeLoaded(seconds: number): void {
    this.#loadSeconds.labels().set(seconds);
  }

  /**
   * The text exposition. Numbers a store cannot give right now (database gone) keep their last
   * values, so the scrape still succeeds and the other families still arrive.
   */
  async render(sources: ScrapeSources): Promise<string> {
    let stats: StoreStats | undefined;
    try {
      stats = await sources.store?.stats?.();
    } catch {
      // Reported by readiness (and by the query error counter); the scrape goes on.
    }
    if (stats !== undefined) {
      const pets = stats.pets;
      if (pets !== undefined) {
        for (const status of [...PET_STATUSES, "none"] as const) {
          this.#pets.labels(status).set(pets[status]);
        }
      }
      if (stats.dataFileBytes !== undefined) {
        this.#fileBytes.labels().set(stats.dataFileBytes);
        // Present (at zero) before the first create, so rate() over them starts at once.
        this.#fsync.labels();
        this.#batch.labels();
      }
      if (stats.idempotencyKeys !== undefined) this.#keys.labels().set(stats.idempotencyKeys);
      if (stats.poolSize !== undefined) this.#poolSize.labels().set(stats.poolSize);
      if (stats.poolConnectionsInUse !== undefined) {
        this.#poolInUse.labels().set(stats.poolConnectionsInUse);
      }
      if (stats.queryErrors !== undefined) this.#queryErrors.labels().mirror(stats.queryErrors);
    }
    this.#inFlight.set(sources.inFlight);
    this.#ready.set(sources.ready ? 1 : 0);
    this.#refreshProcess();
    return this.#registry.render();
  }
}
