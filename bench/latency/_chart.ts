// The latency chart as plain SVG text (a rerun diffs as text in review):
// one panel per concurrency, change rate on the x axis and latency on the
// y axis, both log scale (rates span a decade, latencies several); a peer
// is one colour, its p99 a solid line and its p50 a dashed one.
import { COLOURS, decades, escape } from "../scale/_svg.ts";

/** One line: a peer's percentile at each rate it sustained or tried. */
export interface Line {
  peer: string;
  percentile: "p50" | "p99";
  points: { x: number; y: number }[];
}

/** One panel: the lines of one concurrency. */
export interface Panel {
  title: string;
  lines: Line[];
}

const PW = 300;
const PH = 300;
const LEFT = 60;
const GAP = 20;
const TOP = 50;
const BOTTOM = 50;
const LEGEND = 70;

/** The x ticks: the rates themselves, as a log axis of one decade has few. */
function label(value: number): string {
  if (value >= 1e3) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(Number(value.toPrecision(3)));
}

/** Panels side by side on shared axes, with one legend below. */
export function latencyChart(title: string, panels: Panel[]): string {
  const points = panels.flatMap((p) => p.lines.flatMap((l) => l.points))
    .filter((p) => p.y > 0 && Number.isFinite(p.y));
  if (points.length === 0) return "";
  const rates = [...new Set(points.map((p) => p.x))].sort((a, b) => a - b);
  const xMin = rates[0]! / 1.2;
  const xMax = rates.at(-1)! * 1.2;
  const ys = decades(
    Math.min(...points.map((p) => p.y)),
    Math.max(...points.map((p) => p.y)),
  );
  const peers = [...new Set(panels.flatMap((p) => p.lines.map((l) => l.peer)))];
  const width = LEFT + panels.length * (PW + GAP);
  const height = TOP + PH + BOTTOM + LEGEND;
  const ly0 = Math.log10(ys[0]!);
  const ly1 = Math.log10(ys.at(-1)!);
  const py = (y: number): number =>
    TOP + PH - (Math.log10(y) - ly0) / (ly1 - ly0 || 1) * PH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${
      escape(title)
    }</text>`,
    `<text x="14" y="${
      TOP + PH / 2
    }" text-anchor="middle" transform="rotate(-90 14 ${
      TOP + PH / 2
    })">latency, change → reconcile start (ms)</text>`,
  ];
  panels.forEach((panel, i) => {
    const x0 = LEFT + i * (PW + GAP);
    const px = (x: number): number =>
      x0 + (Math.log10(x) - Math.log10(xMin)) /
        (Math.log10(xMax) - Math.log10(xMin)) * PW;
    out.push(
      `<text x="${x0 + PW / 2}" y="${TOP - 8}" text-anchor="middle">${
        escape(panel.title)
      }</text>`,
      `<rect x="${x0}" y="${TOP}" width="${PW}" height="${PH}" fill="none" stroke="#999"/>`,
    );
    for (const y of ys) {
      const at = py(y).toFixed(1);
      out.push(
        `<line x1="${x0}" y1="${at}" x2="${
          x0 + PW
        }" y2="${at}" stroke="#ddd"/>`,
      );
      if (i === 0) {
        out.push(
          `<text x="${x0 - 6}" y="${at}" text-anchor="end" dy="4">${
            label(y)
          }</text>`,
        );
      }
    }
    for (const x of rates) {
      const at = px(x).toFixed(1);
      out.push(
        `<line x1="${at}" y1="${TOP}" x2="${at}" y2="${
          TOP + PH
        }" stroke="#ddd"/>`,
        `<text x="${at}" y="${TOP + PH + 16}" text-anchor="middle">${
          label(x)
        }</text>`,
      );
    }
    out.push(
      `<text x="${x0 + PW / 2}" y="${
        TOP + PH + 36
      }" text-anchor="middle">changes a second</text>`,
    );
    for (const line of panel.lines) {
      const colour = COLOURS[peers.indexOf(line.peer) % COLOURS.length]!;
      const dash = line.percentile === "p50" ? ` stroke-dasharray="5 4"` : "";
      const pts = line.points.filter((p) => p.y > 0 && Number.isFinite(p.y))
        .sort((a, b) => a.x - b.x);
      if (pts.length === 0) continue;
      out.push(
        `<polyline points="${
          pts.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`)
            .join(" ")
        }" fill="none" stroke="${colour}" stroke-width="2"${dash}/>`,
        ...pts.map((p) =>
          `<circle cx="${px(p.x).toFixed(1)}" cy="${
            py(p.y).toFixed(1)
          }" r="3" fill="${colour}"/>`
        ),
      );
    }
  });
  const ly = TOP + PH + BOTTOM + 20;
  peers.forEach((peer, i) => {
    const x = LEFT + i * 190;
    const colour = COLOURS[i % COLOURS.length]!;
    out.push(
      `<line x1="${x}" y1="${ly}" x2="${
        x + 24
      }" y2="${ly}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${x + 30}" y="${ly + 4}">${escape(peer)}</text>`,
    );
  });
  out.push(
    `<line x1="${LEFT}" y1="${ly + 24}" x2="${LEFT + 24}" y2="${
      ly + 24
    }" stroke="#333" stroke-width="2"/>`,
    `<text x="${LEFT + 30}" y="${ly + 28}">p99</text>`,
    `<line x1="${LEFT + 190}" y1="${ly + 24}" x2="${LEFT + 214}" y2="${
      ly + 24
    }" stroke="#333" stroke-width="2" stroke-dasharray="5 4"/>`,
    `<text x="${LEFT + 220}" y="${ly + 28}">p50</text>`,
    "</svg>",
    "",
  );
  return out.join("\n");
}
