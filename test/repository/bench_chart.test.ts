import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeXml, renderChart } from "../../scripts/bench/chart.ts";

describe("renderChart()", () => {
  it("renderChart() draws three bars a group, labelled with the peer and ours ÷ it", () => {
    const svg = renderChart({
      title: "Ours & peers",
      subtitle: "1 round × 1 s",
      groups: [{
        runtime: "bun",
        endpoint: "get by id",
        ours: 50_000,
        asIs: { value: 40_000, label: "elysia", ratio: 1.25 },
        sameWork: { value: 25_000, label: "elysia (same work)" },
      }],
    });
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(svg, /<\/svg>\n$/);
    assert.equal(svg.match(/<rect x="\d+" y="\d+" width="[\d.]+" height="14"/g)?.length, 3);
    assert.ok(svg.includes("Ours &amp; peers"));
    assert.ok(svg.includes("40.0k elysia: ours ÷ it 1.25"));
    assert.ok(svg.includes("25.0k elysia (same work): ours ÷ it 2.00"));
  });

  it("renderChart() adds the ceiling as a fourth bar, with each target and its verdict", () => {
    const svg = renderChart({
      title: "t",
      subtitle: "s",
      groups: [{
        runtime: "deno",
        endpoint: "get by id",
        ours: 40_000,
        asIs: { value: 80_000, label: "hono" },
        sameWork: { value: 30_000, label: "hono (same work)", ratio: 1.3, target: 1.2 },
        ceiling: { value: 50_000, label: "ceiling (bare get)", ratio: 0.8, target: 0.85 },
      }, {
        runtime: "deno",
        endpoint: "first page",
        ours: 40_000,
        asIs: undefined,
        sameWork: undefined,
      }],
    });
    assert.equal(svg.match(/<rect x="\d+" y="\d+" width="[\d.]+" height="14"/g)?.length, 5);
    assert.ok(svg.includes("50.0k ceiling (bare get): ours ÷ it 0.80 (target ≥ 0.85: missed)"));
    assert.ok(svg.includes("30.0k hono (same work): ours ÷ it 1.30 (target ≥ 1.2: met)"));
    assert.ok(svg.includes("80.0k hono: ours ÷ it 0.50</text>"));
    assert.ok(svg.includes(">bare server (ceiling)</text>"), "the ceiling in the legend");
  });

  it("renderChart() draws no ceiling in the legend when no group has one", () => {
    const svg = renderChart({
      title: "t",
      subtitle: "s",
      groups: [{
        runtime: "bun",
        endpoint: "get by id",
        ours: 1,
        asIs: undefined,
        sameWork: undefined,
      }],
    });
    assert.doesNotMatch(svg, /ceiling/);
  });

  it("renderChart() says there are no figures yet when no group has any", () => {
    const svg = renderChart({ title: "t", subtitle: "s", groups: [] });
    assert.match(svg, /No figures yet: run npm run bench/);
    assert.doesNotMatch(svg, /height="14"/);
  });

  it("escapeXml() escapes the characters that would break the document", () => {
    assert.equal(escapeXml(`a<b>&"c"`), "a&lt;b&gt;&amp;&quot;c&quot;");
  });
});
