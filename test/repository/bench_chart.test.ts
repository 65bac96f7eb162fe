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

  it("renderChart() says there are no figures yet when no group has any", () => {
    const svg = renderChart({ title: "t", subtitle: "s", groups: [] });
    assert.match(svg, /No figures yet: run npm run bench/);
    assert.doesNotMatch(svg, /height="14"/);
  });

  it("escapeXml() escapes the characters that would break the document", () => {
    assert.equal(escapeXml(`a<b>&"c"`), "a&lt;b&gt;&amp;&quot;c&quot;");
  });
});
