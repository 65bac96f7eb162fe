/**
 * The chart of a `npm run bench` run, as a small hand-written SVG (no dependency, no network):
 * per runtime and endpoint, three bars of requests per server CPU-second — ours, the fastest
 * as-is peer and the fastest same-work peer — each peer bar labelled with its name and ours ÷
 * it. `docs/performance.md` shows the file the bench writes (`docs/performance.svg`).
 */

/** One bar of the chart. */
export interface ChartBar {
  /** Requests per server CPU-second. */
  readonly value: number;
  /** Who made it ("hono", "fastify (same work)"…). */
  readonly label: string;
  /** Ours ÷ this peer as the bench's table prints it (median of per-round ratios). */
  readonly ratio?: number;
}

/** One group: a runtime's endpoint, ours and the fastest peer of each yardstick. */
export interface ChartGroup {
  readonly runtime: string;
  readonly endpoint: string;
  readonly ours: number | undefined;
  readonly asIs: ChartBar | undefined;
  readonly sameWork: ChartBar | undefined;
}

/** What the chart shows, and the line under its title that says how it was measured. */
export interface ChartData {
  readonly title: string;
  readonly subtitle: string;
  readonly groups: readonly ChartGroup[];
}

const WIDTH = 960;
const LABEL_WIDTH = 250;
const BAR_HEIGHT = 14;
const BAR_GAP = 3;
const GROUP_GAP = 14;
const TOP = 92;
const COLOURS = { ours: "#2563eb", asIs: "#9ca3af", sameWork: "#f59e0b" };

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
    group.ours !== undefined || group.asIs !== undefined || group.sameWork !== undefined
  );
  const groupHeight = 3 * BAR_HEIGHT + 2 * BAR_GAP + GROUP_GAP;
  const height = TOP + Math.max(groups.length, 1) * groupHeight + 30;
  const max = Math.max(
    1,
    ...groups.flatMap((
      group,
    ) => [group.ours ?? 0, group.asIs?.value ?? 0, group.sameWork?.value ?? 0]),
  );
  // Room on the right for the value and the peer's name.
  const scale = (WIDTH - LABEL_WIDTH - 250) / max;
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
    [COLOURS.asIs, "fastest as-is peer"],
    [COLOURS.sameWork, "fastest same-work peer"],
  ];
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
    y += groupHeight;
  }
  parts.push(
    `<text x="16" y="${height - 12}" fill="#6b7280">Requests per second of server CPU time ` +
      `(medians of interleaved rounds); longer is better. Written by npm run bench.</text>`,
    `</svg>`,
  );
  return parts.join("\n") + "\n";
}

/** "hono: ours ÷ it 1.12", or "no peer" when there is none. */
function peerText(ours: number | undefined, peer: ChartBar | undefined): string {
  if (peer === undefined) return "no peer measured";
  if (ours === undefined) return peer.label;
  return `${peer.label}: ours ÷ it ${(peer.ratio ?? ours / peer.value).toFixed(2)}`;
}
