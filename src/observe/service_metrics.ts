/**
 * The service's own metric families (docs/metrics.md); each store registers its own in `registry`
 * once it is open. Requests are counted through series bound once per route template and method,
 * so a request builds no label text; memory, CPU and in-flight are read at scrape time.
 */
import process from "node:process";
import type { CounterSeries, Family, GaugeSeries, HistogramSeries } from "./metrics_registry.ts";
import { Registry } from "./metrics_registry.ts";

/** The `method` label: these as they are, any other method as `OTHER` (bounded cardinality). */
const KNOWN_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"];

/** From a page served from memory to a slow database (milliseconds here, seconds in the text). */
const DURATION_BUCKETS = [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000]
  .map((ms) => ms / 1000);

type RouteFamilies = { requests: Family<CounterSeries>; duration: Family<HistogramSeries> };

/** Counts one route template and method; its series are bound on first use. */
function routeObserver({ requests, duration }: RouteFamilies, method: string, route: string) {
  const byStatus = new Map<number, CounterSeries>();
  let durations: HistogramSeries | undefined;
  return (status: number, seconds: number): void => {
    let counter = byStatus.get(status);
    if (counter === undefined) {
      counter = requests.labels(method, route, String(status));
      byStatus.set(status, counter);
    }
    counter.inc();
    (durations ??= duration.labels(method, route)).observe(seconds);
  };
}

export class ServiceMetrics {
  readonly registry = new Registry();
  /** Router pattern → method → series; `""` is the unmatched route. */
  readonly #routes = new Map<string, Map<string, ReturnType<typeof routeObserver>>>();
  readonly #rateLimited: CounterSeries;
  readonly #loadSeconds: Family<GaugeSeries>;

  /** `routes`: the router's patterns outside BASE_PATH and under it; `app`: read at each scrape. */
  constructor(
    routes: { rootPatterns: readonly string[]; apiPatterns: readonly string[]; basePath: string },
    app: { ready: () => boolean; inFlight: () => number; logLinesDropped: () => number },
  ) {
    const r = this.registry;
    const families = {
      requests: r.counter(
        "animal_store_http_requests_total",
        "HTTP requests answered, by method, route template and status.",
        ["method", "route", "status"],
      ),
      duration: r.histogram(
        "animal_store_http_request_duration_seconds",
        "Time from a request's arrival to its response being built, by method and route template.",
        { buckets: DURATION_BUCKETS, labelNames: ["method", "route"] },
      ),
    };
    const templates = [
      ...routes.rootPatterns.map((pattern) => [pattern, pattern]),
      ...routes.apiPatterns.map((pattern) => [pattern, routes.basePath + pattern]),
      ["", "unmatched"],
    ];
    for (const [pattern, template] of templates) {
      if (this.#routes.has(pattern)) continue; // a root path shadows an API one, as in routing
      const route = template.replace(/:([A-Za-z0-9]+)/g, "{$1}");
      const byMethod = new Map(
        KNOWN_METHODS.map((method) => [method, routeObserver(families, method, route)]),
      );
      this.#routes.set(pattern, byMethod);
    }
    this.#rateLimited = r.counter(
      "animal_store_rate_limited_requests_total",
      "Requests refused with 429 by RATE_LIMIT.",
    ).labels();
    const inFlight = r.gauge(
      "animal_store_http_requests_in_flight",
      "Requests being handled, this scrape included.",
    ).labels();
    const ready = r.gauge(
      "animal_store_ready",
      "1 when the store is loaded and reachable and the service is not shutting down (as /readyz).",
    ).labels();
    const logLinesDropped = r.counter(
      "animal_store_log_lines_dropped_total",
      "Log lines dropped because stdout could not take them (its reader gone, stalled or slow; its disk full).",
    ).labels();
    this.#loadSeconds = r.gauge(
      "animal_store_store_load_seconds",
      "Time the last start spent opening the store (replaying the data file, or migrating).",
    );
    // The standard process families, from `node:process` (alike on every runtime, off Linux too).
    const rss = r.gauge("process_resident_memory_bytes", "Resident memory size in bytes.").labels();
    const cpu = r.counter(
      "process_cpu_seconds_total",
      "Total user and system CPU time spent in seconds.",
    ).labels();
    r.gauge(
      "process_start_time_seconds",
      "Start time of the process since unix epoch in seconds.",
    ).labels().set(Math.round((Date.now() / 1000 - process.uptime()) * 1000) / 1000);
    r.onScrape(() => {
      inFlight.set(app.inFlight());
      ready.set(app.ready() ? 1 : 0);
      logLinesDropped.mirror(app.logLinesDropped());
      rss.set(process.memoryUsage().rss);
      const usage = process.cpuUsage();
      cpu.mirror((usage.user + usage.system) / 1e6);
    });
  }

  /** Counts one answered request; `pattern` is the matched router pattern, undefined for none. */
  observe(method: string, pattern: string | undefined, status: number, seconds: number): void {
    const byMethod = this.#routes.get(pattern ?? "") ?? this.#routes.get("")!;
    (byMethod.get(method) ?? byMethod.get("OTHER")!)(status, seconds);
    if (status === 429) this.#rateLimited.inc();
  }

  storeLoaded(seconds: number): void {
    this.#loadSeconds.labels().set(seconds);
  }
}
