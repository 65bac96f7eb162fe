/**
 * The chart of a `npm run bench` run, as a small hand-written SVG (no dependency, no network):
 * per runtime and endpoint, bars of requests per server CPU-second — ours, the fastest as-is
 * peer, the fastest same-work peer and, where one is measured (the get by id), the runtime's bare
 * server as the ceiling — each peer bar labelled with its name, ours ÷ it and, where the row has
 * a target against it, the target and whether it is met. `docs/performance.md` shows the file
 * the bench writes (`docs/performance.svg`); `postgres.ts` draws its chart with it too.
 */

/** One bar of the chart. */
export interface ChartBar {
  /** Requests per server CPU-second. */
  readonly value: number;
  /** Who made it ("hono", "fastify (same work)"…). */
  readonly label: string;
  /** Ours ÷ this peer as the bench's table prints it (median of per-round ratios). */
  readonly ratio?: number;
  /** The least ours ÷ it that meets the row's target against this bar, if there is one. */
  readonly target?: number;
  /** What the bar's label says instead of "label: ours ÷ it …" (a bar that is not a peer). */
  readonly text?: string;
}

/** One group: a runtime's endpoint, ours and the fastest peer of each yardstick. */
export interface ChartGroup {
  readonly runtime: string;
  readonly endpoint: string;
  readonly ours: number | undefined;
  readonly asIs: ChartBar | undefined;
  readonly sameWork: ChartBar | undefined;
  /** The runtime's bare server doing only what the endpoint must send (drawn when measured). */
  readonly ceiling?: ChartBar;
}

/** What the chart shows, and the line under its title that says how it was measured. */
export interface ChartData {
  readonly title: string;
  readonly subtitle: string;
  readonly groups: readonly ChartGroup[];
  /** The legend's names of the bars (default: the bench's yardsticks and the ceiling). */
  readonly legend?: { readonly asIs: string; readonly sameWork: string; readonly ceiling: string };
  /** The line at the bottom, what the bars count (default: the bench's). */
  readonly footnote?: string;
}

const WIDTH = 960;
const LABEL_WIDTH = 200;
const BAR_HEIGHT = 14;
const BAR_GAP = 3;
const GROUP_GAP = 14;
const TOP = 92;
const COLOURS = { ours: "#2563eb", asIs: "#9ca3af", sameWork: "#f59e0b", ceiling: "#10b981" };
const LEGEND = {
  asIs: "fastest as-is peer",
  sameWork: "fastest same-work peer",
  ceiling: "bare server (ceiling)",
};
const FOOTNOTE = "Requests per second of server CPU time (medians of interleaved rounds); longer " +
  "is better. Written by npm run bench.";

/** Text made safe for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

function formatRate(value: number): string {
  return value >= 10_000 ? `${(value / 1000).toFixed(1)}k` : value.toFixed(0);
}

/** The SVG document of `data` (a note instead of bars when it has no figures). */
export function renderChart(data: ChartData): string {
  const groups = data.groups.filter((group) =>
    group.ours !== undefined || group.asIs !== undefined || group.sameWork !== undefined ||
    group.ceiling !== undefined
  );
  // Three bars a group, four with a ceiling.
  const groupHeight = (bars: number) => bars * BAR_HEIGHT + (bars - 1) * BAR_GAP + GROUP_GAP;
  const height = TOP + 30 + (groups.length === 0 ? groupHeight(3) : groups.reduce(
    (sum, group) => sum + groupHeight(group.ceiling === undefined ? 3 : 4),
    0,
  ));
  const max = Math.max(
    1,
    ...groups.flatMap((group) => [
      group.ours ?? 0,
      group.asIs?.value ?? 0,
      group.sameWork?.value ?? 0,
      group.ceiling?.value ?? 0,
    ]),
  );
  const names = data.legend ?? LEGEND;
  // Room on the right for the value and the peer's name.
  const scale = (WIDTH - LABEL_WIDTH - 380) / max;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" ` +
    `viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" ` +
    `font-size="12" role="img" aria-label="${escapeXml(data.title)}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="26" font-size="16" font-weight="600">${escapeXml(data.title)}</text>`,
    `<text x="16" y="46" fill="#4b5563">${escapeXml(data.subtitle)}</text>`,
  ];
  const legend: [string, string][] = [
    [COLOURS.ours, "ours"],
    [COLOURS.asIs, names.asIs],
    [COLOURS.sameWork, names.sameWork],
  ];
  if (groups.some((group) => group.ceiling !== undefined)) {
    legend.push([COLOURS.ceiling, names.ceiling]);
  }
  legend.forEach(([colour, text], i) => {
    const x = 16 + i * 190;
    parts.push(
      `<rect x="${x}" y="60" width="12" height="12" fill="${colour}"/>`,
      `<text x="${x + 18}" y="70">${escapeXml(text)}</text>`,
    );
  });
  if (groups.length === 0) {
    parts.push(
      `<text x="16" y="${TOP + 20}" fill="#b91c1c">No figures yet: run npm run bench ` +
        `on a quiet machine to draw this chart.</text>`,
    );
  }
  let y = TOP;
  let runtime = "";
  for (const group of groups) {
    if (group.runtime !== runtime) {
      runtime = group.runtime;
      parts.push(`<line x1="16" x2="${WIDTH - 16}" y1="${y - 7}" y2="${y - 7}" stroke="#e5e7eb"/>`);
    }
    parts.push(
      `<text x="16" y="${y + BAR_HEIGHT + 8}" font-weight="600">${escapeXml(group.runtime)}</text>`,
      `<text x="70" y="${y + BAR_HEIGHT + 8}">${escapeXml(group.endpoint)}</text>`,
    );
    const bars: [string, number | undefined, string][] = [
      [COLOURS.ours, group.ours, "ours"],
      [COLOURS.asIs, group.asIs?.value, peerText(group.ours, group.asIs)],
      [COLOURS.sameWork, group.sameWork?.value, peerText(group.ours, group.sameWork)],
    ];
    if (group.ceiling !== undefined) {
      bars.push([COLOURS.ceiling, group.ceiling.value, peerText(group.ours, group.ceiling)]);
    }
    bars.forEach(([colour, value, text], i) => {
      const top = y + i * (BAR_HEIGHT + BAR_GAP);
      if (value === undefined) {
        parts.push(
          `<text x="${LABEL_WIDTH}" y="${top + 11}" fill="#9ca3af">${escapeXml(text)}</text>`,
        );
        return;
      }
      const width = Math.max(1, value * scale);
      parts.push(
        `<rect x="${LABEL_WIDTH}" y="${top}" width="${width.toFixed(1)}" height="${BAR_HEIGHT}" ` +
          `fill="${colour}"><title>${escapeXml(`${text}: ${value.toFixed(0)}`)}</title></rect>`,
        `<text x="${(LABEL_WIDTH + width + 6).toFixed(1)}" y="${top + 11}">` +
          `${formatRate(value)} ${escapeXml(text)}</text>`,
      );
    });
    y += groupHeight(bars.length);
  }
  parts.push(
    `<text x="16" y="${height - 12}" fill="#6b7280">${escapeXml(data.footnote ?? FOOTNOTE)}</text>`,
    `</svg>`,
  );
  return parts.join("\n") + "\n";
}

/**
 * "hono: ours ÷ it 1.12", with "(target ≥ 1.2: missed)" when the row has a target against this
 * bar; the bar's own text when it has one; "no peer measured" when there is no bar.
 */
function peerText(ours: number | undefined, peer: ChartBar | undefined): string {
  if (peer === undefined) return "no peer measured";
  if (peer.text !== undefined) return peer.text;
  if (ours === undefined) return peer.label;
  const ratio = peer.ratio ?? ours / peer.value;
  const target = peer.target === undefined
    ? ""
    : ` (target ≥ ${peer.target.toFixed(2).replace(/0$/, "")}: ${
      ratio >= peer.target ? "met" : "missed"
    })`;
  return `${peer.label}: ours ÷ it ${ratio.toFixed(2)}${target}`;
}
