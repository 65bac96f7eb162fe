/**
 * A small Prometheus registry (text format 0.0.4). A label set is bound once and kept, so a request
 * adds to a number and builds no string; the text is built at scrape time, after `onScrape` hooks.
 */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Metric and label names the format allows (colons are for recording rules, so none here). */
const NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export class Registry {
  readonly #families: Family<Series>[] = [];
  readonly #hooks: (() => unknown)[] = [];

  counter(name: string, help: string, labelNames: readonly string[] = []): Family<CounterSeries> {
    return this.#add(new Family(name, help, "counter", labelNames, (t) => new ValueSeries(t)));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Family<GaugeSeries> {
    return this.#add(new Family(name, help, "gauge", labelNames, (t) => new ValueSeries(t)));
  }

  /** A histogram with fixed upper bounds (`+Inf` is added). */
  histogram(
    name: string,
    help: string,
    options: { buckets: readonly number[]; labelNames?: readonly string[] },
  ): Family<HistogramSeries> {
    const bounds = [...options.buckets];
    if (bounds.some((bound, i) => !Number.isFinite(bound) || (i > 0 && bound <= bounds[i - 1]))) {
      throw new Error(`${name}: buckets must be finite and increasing`);
    }
    const le = [...bounds.map(formatNumber), "+Inf"];
    const make = (text: string) => new HistogramSeries(text, bounds, le);
    return this.#add(new Family(name, help, "histogram", options.labelNames ?? [], make));
  }

  /** Runs `read` before each scrape; a hook that fails leaves its series as they were. */
  onScrape(read: () => void | Promise<void>): void {
    this.#hooks.push(read);
  }

  async render(): Promise<string> {
    await Promise.allSettled(this.#hooks.map(async (read) => await read()));
    const out: string[] = [];
    for (const family of this.#families) family.write(out);
    return out.join("\n") + "\n";
  }

  #add<S extends Series>(family: Family<S>): Family<S> {
    if (this.#families.some(({ name }) => name === family.name)) {
      throw new Error(`Duplicate metric: ${family.name}`);
    }
    this.#families.push(family);
    return family;
  }
}

export class Family<S extends Series> {
  /** By label text, unambiguous since its values are escaped. */
  readonly #series = new Map<string, S>();
  readonly #head: string;
  constructor(
    readonly name: string,
    help: string,
    type: string,
    private readonly labelNames: readonly string[],
    private readonly make: (text: string) => S,
  ) {
    if (!NAME.test(name)) throw new Error(`Invalid metric name: ${name}`);
    for (const label of labelNames) {
      if (!NAME.test(label) || label.startsWith("__") || label === "le") {
        throw new Error(`Invalid label name for ${name}: ${label}`);
      }
    }
    this.#head = `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}`;
  }

  /** The series of these label values (made on first use): bind once, keep the result. */
  labels(...values: string[]): S {
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name} takes ${this.labelNames.length} label values`);
    }
    const pairs = values.map((value, i) => `${this.labelNames[i]}="${escapeLabelValue(value)}"`);
    const text = values.length === 0 ? "" : `{${pairs.join(",")}}`;
    let series = this.#series.get(text);
    if (series === undefined) this.#series.set(text, series = this.make(text));
    return series;
  }

  /** Its HELP, TYPE and samples; nothing while it has no series (a store it does not use). */
  write(out: string[]): void {
    if (this.#series.size === 0) return;
    out.push(this.#head);
    for (const series of this.#series.values()) series.write(this.name, out);
  }
}

/** One series: its label text (`{a="x"}`, empty without labels) and its samples. */
abstract class Series {
  constructor(readonly text: string) {}
  abstract write(name: string, out: string[]): void;
}

/** The one number of a counter, which never goes down, or of a gauge, which is set. */
class ValueSeries extends Series {
  value = 0;
  inc(amount = 1): void {
    if (amount > 0) this.value += amount;
  }
  /** Mirrors a total that is counted elsewhere (CPU time, a store's failed statements). */
  mirror(total: number): void {
    if (total > this.value) this.value = total;
  }
  set(value: number): void {
    this.value = value;
  }
  write(name: string, out: string[]): void {
    out.push(`${name}${this.text} ${formatNumber(this.value)}`);
  }
}

export type CounterSeries = Omit<ValueSeries, "set">;
export type GaugeSeries = Omit<ValueSeries, "inc" | "mirror">;

/** A count per bucket, `+Inf` last (each value lands in one), sum, count. */
export class HistogramSeries extends Series {
  readonly #counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(text: string, readonly bounds: readonly number[], readonly le: readonly string[]) {
    super(text);
    this.#counts = new Float64Array(le.length);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    this.#counts[i]++;
    this.sum += value;
    this.count++;
  }

  write(name: string, out: string[]): void {
    // `le` goes last inside the braces of the series' own labels.
    const open = this.text === "" ? "{" : `${this.text.slice(0, -1)},`;
    let cumulative = 0;
    for (let i = 0; i < this.le.length; i++) {
      cumulative += this.#counts[i];
      out.push(`${name}_bucket${open}le="${this.le[i]}"} ${formatNumber(cumulative)}`);
    }
    out.push(`${name}_sum${this.text} ${formatNumber(this.sum)}`);
    out.push(`${name}_count${this.text} ${formatNumber(this.count)}`);
  }
}

export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

export function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === "\n" ? "\\n" : "\\\\"));
}

/** A sample value: Go's ParseFloat spellings for the special values. */
export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}
