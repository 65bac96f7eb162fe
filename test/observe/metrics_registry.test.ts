import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  escapeHelp,
  escapeLabelValue,
  formatNumber,
  Registry,
} from "../../src/observe/metrics_registry.ts";

describe("Registry", () => {
  it("render() writes HELP and TYPE before the samples of each family, in order", async () => {
    const registry = new Registry();
    registry.counter("a_total", "Counts a.", ["kind"]).labels("x").inc(2);
    registry.gauge("b", "Gauge b.").labels().set(-1.5);
    assert.equal(
      await registry.render(),
      [
        "# HELP a_total Counts a.",
        "# TYPE a_total counter",
        'a_total{kind="x"} 2',
        "# HELP b Gauge b.",
        "# TYPE b gauge",
        "b -1.5",
        "",
      ].join("\n"),
    );
  });

  it("render() leaves out a family with no series", async () => {
    const registry = new Registry();
    registry.gauge("unused", "Never set.");
    registry.gauge("used", "Set.").labels().set(1);
    assert.equal(await registry.render(), "# HELP used Set.\n# TYPE used gauge\nused 1\n");
  });

  it("labels() binds a series once and keeps it", () => {
    const counter = new Registry().counter("c_total", "c", ["a", "b"]);
    assert.equal(counter.labels("1", "2"), counter.labels("1", "2"));
    assert.notEqual(counter.labels("1", "2"), counter.labels("12", ""));
    assert.throws(() => counter.labels("1"), /takes 2 label values/);
  });

  it("escapes label values and HELP text as the exposition format says", async () => {
    assert.equal(escapeLabelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
    assert.equal(escapeHelp('a"b\\c\nd'), 'a"b\\\\c\\nd');
    const registry = new Registry();
    registry.counter("e_total", "Help with \\ and\nnewline.", ["v"]).labels('q"\\\n').inc();
    assert.equal(
      await registry.render(),
      '# HELP e_total Help with \\\\ and\\nnewline.\n# TYPE e_total counter\ne_total{v="q\\"\\\\\\n"} 1\n',
    );
  });

  it("a histogram renders cumulative buckets, +Inf equal to _count, then _sum and _count", async () => {
    const registry = new Registry();
    const histogram = registry.histogram("h_seconds", "h", {
      buckets: [0.1, 1, 10],
      labelNames: ["route"],
    });
    const series = histogram.labels("/x");
    for (const value of [0.05, 0.1, 0.5, 5, 50]) series.observe(value);
    assert.equal(
      await registry.render(),
      [
        "# HELP h_seconds h",
        "# TYPE h_seconds histogram",
        'h_seconds_bucket{route="/x",le="0.1"} 2',
        'h_seconds_bucket{route="/x",le="1"} 3',
        'h_seconds_bucket{route="/x",le="10"} 4',
        'h_seconds_bucket{route="/x",le="+Inf"} 5',
        'h_seconds_sum{route="/x"} 55.65',
        'h_seconds_count{route="/x"} 5',
        "",
      ].join("\n"),
    );
  });

  it("a histogram without labels puts le alone in braces", async () => {
    const registry = new Registry();
    registry.histogram("size", "s", { buckets: [1] }).labels().observe(2);
    assert.match(
      await registry.render(),
      /^size_bucket\{le="1"\} 0\nsize_bucket\{le="\+Inf"\} 1$/m,
    );
  });

  it("refuses bad names, duplicates, the le label and unsorted buckets at registration", () => {
    const registry = new Registry();
    registry.counter("ok_total", "x");
    assert.throws(() => registry.counter("ok_total", "x"), /Duplicate/);
    assert.throws(() => registry.counter("bad-name", "x"), /Invalid metric name/);
    assert.throws(() => registry.counter("c_total", "x", ["le"]), /Invalid label/);
    assert.throws(() => registry.histogram("h", "x", { buckets: [1, 1] }), /increasing/);
  });

  it("a counter never goes down; mirror() follows a larger total only", () => {
    const series = new Registry().counter("m_total", "m").labels();
    series.inc(-3);
    assert.equal(series.value, 0);
    series.mirror(5);
    series.mirror(4);
    assert.equal(series.value, 5);
  });

  it("render() runs the onScrape hooks first; a failing hook keeps its last values", async () => {
    const registry = new Registry();
    const gauge = registry.gauge("read_at_scrape", "r").labels();
    let reads = 0;
    registry.onScrape(() => {
      if (++reads === 2) throw new Error("database gone");
      gauge.set(reads);
    });
    registry.onScrape(() => Promise.reject(new Error("also gone")));
    assert.equal(
      await registry.render(),
      "# HELP read_at_scrape r\n# TYPE read_at_scrape gauge\nread_at_scrape 1\n",
    );
    assert.match(await registry.render(), /^read_at_scrape 1$/m);
    assert.match(await registry.render(), /^read_at_scrape 3$/m);
  });

  it("formatNumber() spells the special values as Prometheus parses them", () => {
    assert.deepEqual(
      [NaN, Infinity, -Infinity, 0.25, 1e21].map(formatNumber),
      ["NaN", "+Inf", "-Inf", "0.25", "1e+21"],
    );
  });
});
