/**
 * A small Prometheus registry: counters, gauges and histograms with fixed label names, rendered
 * in the text exposition format 0.0.4. Label sets are bound once (`labels(...)`) and kept, so the
 * request path adds to a number and builds no string; the text is built only at scrape time.
 *
 * Format rules followed here (Prometheus "Exposition formats"): one `# HELP` and one `# TYPE`
 * line per family, before its samples; in HELP text `\` and line feeds are escaped, in label
 * values also `"`; histogram buckets are cumulative, end with `le="+Inf"` (equal to `_count`) and
 * are followed by `_sum` and `_count`.
 */

/** The content type of the text format. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Metric and label names the format allows (colons are for recording rules, so none here). */
const NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Holds the families of one process and renders them. */
export class Registry {
  readonly #families: LabelledFamily<Series>[] = [];
  readonly #names = new Set<string>();

  /** A counter; `labelNames` fixes which labels each of its series carries. */
  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return this.#add(new ValueFamily(name, help, labelNames, "counter", CounterSeries));
  }

  /** A gauge. */
  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    return this.#add(new ValueFamily(name, help, labelNames, "gauge", GaugeSeries));
  }

  /** A histogram with fixed upper bounds (`+Inf` is added). */
  histogram(
    name: string,
    help: string,
    options: { buckets: readonly number[]; labelNames?: readonly string[] },
  ): Histogram {
    return this.#add(new Histogram(name, help, options.labelNames ?? [], options.buckets));
  }

  /** The text exposition of every family, in registration order. */
  render(): string {
    const out: string[] = [];
    for (const family of this.#families) family.render(out);
    return out.join("\n") + "\n";
  }

  #add<T extends LabelledFamily<Series>>(family: T): T {
    const { name, labelNames } = family;
    if (!NAME.test(name)) throw new Error(`Invalid metric name: ${name}`);
    if (this.#names.has(name)) throw new Error(`Duplicate metric: ${name}`);
    for (const label of labelNames) {
      if (!NAME.test(label) || label.startsWith("__") || label === "le") {
        throw new Error(`Invalid label name for ${name}: ${label}`);
      }
    }
    this.#names.add(name);
    this.#families.push(family);
    return family;
  }
}

/** Label values of one series, rendered once as `{a="x",b="y"}` (empty without labels). */
abstract class Series {
  readonly text: string;
  constructor(labelNames: readonly string[], values: readonly string[]) {
    this.text = labelText(labelNames, values);
  }
}

/** Families whose series are bound by label values. */
abstract class LabelledFamily<S extends Series> {
  protected readonly series = new Map<string, S>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    private readonly type: string,
  ) {}

  /** The series of these label values (made on first use): bind once, keep the result. */
  labels(...values: string[]): S {
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name} takes ${this.labelNames.length} label values`);
    }
    const key = JSON.stringify(values);
    let series = this.series.get(key);
    if (series === undefined) {
      series = this.make(values);
      this.series.set(key, series);
    }
    return series;
  }

  protected abstract make(values: readonly string[]): S;
  protected abstract samples(out: string[]): void;

  /** Its HELP, TYPE and samples; nothing while it has no series (a store it does not use). */
  render(out: string[]): void {
    if (this.series.size === 0) return;
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`);
    this.samples(out);
  }
}

/** One counter series. */
export class CounterSeries extends Series {
  value = 0;
  /** Adds `amount` (default 1); a counter never goes down. */
  inc(amount = 1): void {
    if (amount > 0) this.value += amount;
  }
  /** Mirrors a total that is counted elsewhere (CPU time, a store's error count). */
  mirror(total: number): void {
    if (total > this.value) this.value = total;
  }
}

/** One gauge series. */
export class GaugeSeries extends Series {
  value = 0;
  /** Sets the value. */
  set(value: number): void {
    this.value = value;
  }
}

type ValueSeries = Series & { value: number };

/** Counters and gauges: one number per series; its class says how the number may change. */
class ValueFamily<S extends ValueSeries> extends LabelledFamily<S> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    type: "counter" | "gauge",
    private readonly Kind: new (labelNames: readonly string[], values: readonly string[]) => S,
  ) {
    super(name, help, labelNames, type);
  }
  protected make(values: readonly string[]): S {
    return new this.Kind(this.labelNames, values);
  }
  protected samples(out: string[]): void {
    for (const series of this.series.values()) {
      out.push(`${this.name}${series.text} ${formatNumber(series.value)}`);
    }
  }
}

/** A monotonically increasing count. */
export type Counter = ValueFamily<CounterSeries>;
/** A value that goes up and down. */
export type Gauge = ValueFamily<GaugeSeries>;

/** One histogram series: a count per bucket (not cumulative until rendered), sum and count. */
export class HistogramSeries extends Series {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(labelNames: readonly string[], values: readonly string[], readonly bounds: number[]) {
    super(labelNames, values);
    this.counts = new Float64Array(bounds.length);
  }
  /** Records one observation. */
  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    if (i < bounds.length) this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

/** A distribution over fixed buckets. */
export class Histogram extends LabelledFamily<HistogramSeries> {
  readonly #bounds: number[];
  readonly #leTexts: string[];
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
  ) {
    super(name, help, labelNames, "histogram");
    const bounds = [...buckets];
    for (let i = 0; i < bounds.length; i++) {
      if (!Number.isFinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1])) {
        throw new Error(`${name}: buckets must be finite and increasing`);
      }
    }
    this.#bounds = bounds;
    this.#leTexts = [...bounds.map(formatNumber), "+Inf"];
  }
  protected make(values: readonly string[]) {
    return new HistogramSeries(this.labelNames, values, this.#bounds);
  }
  protected samples(out: string[]): void {
    for (const series of this.series.values()) {
      // `le` goes last inside the braces of the series' own labels.
      const open = series.text === "" ? "{" : `${series.text.slice(0, -1)},`;
      let cumulative = 0;
      for (let i = 0; i < this.#leTexts.length; i++) {
        cumulative = i < series.counts.length ? cumulative + series.counts[i] : series.count;
        out.push(`${this.name}_bucket${open}le="${this.#leTexts[i]}"} ${formatNumber(cumulative)}`);
      }
      out.push(`${this.name}_sum${series.text} ${formatNumber(series.sum)}`);
      out.push(`${this.name}_count${series.text} ${formatNumber(series.count)}`);
    }
  }
}

function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return "";
  return `{${names.map((name, i) => `${name}="${escapeLabelValue(values[i])}"`).join(",")}}`;
}

/** A label value as the format wants it: `\`, `"` and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

/** HELP text as the format wants it: `\` and line feed escaped. */
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
