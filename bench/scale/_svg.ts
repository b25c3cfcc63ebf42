// Log–log line charts as plain SVG text, so that a rerun's chart diffs as
// text in review. No dependency: the figures are few, the markup is small.

/** One line of a chart: a peer's figure at each object count. */
export interface Series {
  name: string;
  points: { x: number; y: number }[];
}

/** The peers' colours, in order (shared with the latency chart). */
export const COLOURS: readonly string[] = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#9467bd",
  "#ff7f0e",
  "#8c564b",
];
const W = 640;
const H = 400;
const LEFT = 70;
const RIGHT = 150;
const TOP = 40;
const BOTTOM = 50;

/** The powers of ten from below `min` to above `max`: a log axis's grid. */
export function decades(min: number, max: number): number[] {
  const out: number[] = [];
  for (
    let e = Math.floor(Math.log10(min));
    e <= Math.ceil(Math.log10(max));
    e++
  ) out.push(10 ** e);
  return out;
}

function label(value: number): string {
  if (value >= 1e6) return `${value / 1e6}M`;
  if (value >= 1e3) return `${value / 1e3}k`;
  return String(Number(value.toPrecision(3)));
}

/** Text made safe for SVG markup. */
export function escape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;");
}

/** A log–log chart of the series, with decade grid lines and a legend. */
export function chart(
  title: string,
  xTitle: string,
  yTitle: string,
  series: Series[],
): string {
  const points = series.flatMap((s) => s.points).filter((p) => p.y > 0);
  if (points.length === 0) return "";
  const xs = decades(
    Math.min(...points.map((p) => p.x)),
    Math.max(...points.map((p) => p.x)),
  );
  const ys = decades(
    Math.min(...points.map((p) => p.y)),
    Math.max(...points.map((p) => p.y)),
  );
  const lx0 = Math.log10(xs[0]!);
  const lx1 = Math.log10(xs.at(-1)!);
  const ly0 = Math.log10(ys[0]!);
  const ly1 = Math.log10(ys.at(-1)!);
  const px = (x: number): number =>
    LEFT + (Math.log10(x) - lx0) / (lx1 - lx0 || 1) * (W - LEFT - RIGHT);
  const py = (y: number): number =>
    H - BOTTOM - (Math.log10(y) - ly0) / (ly1 - ly0 || 1) * (H - TOP - BOTTOM);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${
      escape(title)
    }</text>`,
  ];
  for (const x of xs) {
    const at = px(x).toFixed(1);
    out.push(
      `<line x1="${at}" y1="${TOP}" x2="${at}" y2="${
        H - BOTTOM
      }" stroke="#ddd"/>`,
      `<text x="${at}" y="${H - BOTTOM + 16}" text-anchor="middle">${
        label(x)
      }</text>`,
    );
  }
  for (const y of ys) {
    const at = py(y).toFixed(1);
    out.push(
      `<line x1="${LEFT}" y1="${at}" x2="${
        W - RIGHT
      }" y2="${at}" stroke="#ddd"/>`,
      `<text x="${LEFT - 6}" y="${at}" text-anchor="end" dy="4">${
        label(y)
      }</text>`,
    );
  }
  out.push(
    `<text x="${(LEFT + W - RIGHT) / 2}" y="${H - 12}" text-anchor="middle">${
      escape(xTitle)
    }</text>`,
    `<text x="16" y="${
      (TOP + H - BOTTOM) / 2
    }" text-anchor="middle" transform="rotate(-90 16 ${
      (TOP + H - BOTTOM) / 2
    })">${escape(yTitle)}</text>`,
  );
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const pts = s.points.filter((p) => p.y > 0).sort((a, b) => a.x - b.x);
    if (pts.length === 0) return;
    const path = pts.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`)
      .join(" ");
    out.push(
      `<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="2"/>`,
    );
    for (const p of pts) {
      out.push(
        `<circle cx="${px(p.x).toFixed(1)}" cy="${
          py(p.y).toFixed(1)
        }" r="3" fill="${colour}"/>`,
      );
    }
    const ly = TOP + 10 + i * 18;
    out.push(
      `<line x1="${W - RIGHT + 12}" y1="${ly}" x2="${
        W - RIGHT + 32
      }" y2="${ly}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${W - RIGHT + 38}" y="${ly + 4}">${escape(s.name)}</text>`,
    );
  });
  out.push("</svg>", "");
  return out.join("\n");
}
