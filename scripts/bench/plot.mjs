// Line charts as PNG for docs/benchmarks.md: an SVG drawn here, rasterized by sharp (libvips/librsvg).
import sharp from "sharp";

const W = 900;
const H = 520;
const M = { left: 80, right: 230, top: 50, bottom: 60 };
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"];
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

function ticks(min, max, log) {
  if (log) {
    const out = [];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) out.push(10 ** e);
    return out;
  }
  const step = 10 ** Math.floor(Math.log10((max - min) / 5 || 1));
  const out = [];
  for (let v = Math.floor(min / step) * step; v <= max + step / 2; v += step) out.push(v);
  return out;
}

/**
 * `series`: [{ name, points: [[x, y], …], dashed? }]. X is categorical (the x values in order, evenly
 * spaced); Y linear or log10. Writes the PNG to `file`.
 */
export async function lineChart({ file, title, xLabel, yLabel, xs, series, logY = false }) {
  const ys = series.flatMap((s) => s.points.map(([, y]) => y)).filter((y) => y > 0);
  let [lo, hi] = [Math.min(...ys), Math.max(...ys)];
  if (!logY) lo = 0;
  const yt = ticks(lo, hi, logY);
  [lo, hi] = [Math.min(lo, yt[0]), Math.max(hi, yt[yt.length - 1])];
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const X = (x) => M.left + (xs.length === 1 ? pw / 2 : (xs.indexOf(x) / (xs.length - 1)) * pw);
  const Y = (y) =>
    M.top +
    ph -
    (logY ? (Math.log10(y) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (y - lo) / (hi - lo)) * ph;
  const parts = [
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="28" font-family="sans-serif" font-size="18" font-weight="bold">${esc(title)}</text>`,
    `<text x="${M.left + pw / 2}" y="${H - 15}" font-family="sans-serif" font-size="14" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text transform="translate(20 ${M.top + ph / 2}) rotate(-90)" font-family="sans-serif" font-size="14" text-anchor="middle">${esc(yLabel)}</text>`,
  ];
  for (const t of yt) {
    parts.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${Y(t)}" y2="${Y(t)}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${M.left - 8}" y="${Y(t) + 4}" font-family="sans-serif" font-size="12" text-anchor="end">${t >= 1000 ? `${t / 1000}k` : t}</text>`,
    );
  }
  for (const x of xs) {
    parts.push(
      `<text x="${X(x)}" y="${M.top + ph + 20}" font-family="sans-serif" font-size="12" text-anchor="middle">${esc(x)}</text>`,
    );
  }
  parts.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = s.points.filter(([, y]) => y > 0);
    const d = pts.map(([x, y], k) => `${k ? "L" : "M"}${X(x).toFixed(1)} ${Y(y).toFixed(1)}`).join(" ");
    parts.push(
      `<path d="${d}" fill="none" stroke="${color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="7 5"' : ""}/>`,
    );
    for (const [x, y] of pts) parts.push(`<circle cx="${X(x)}" cy="${Y(y)}" r="4" fill="${color}"/>`);
    const ly = M.top + 10 + i * 22;
    parts.push(
      `<line x1="${W - M.right + 15}" x2="${W - M.right + 45}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="7 5"' : ""}/>`,
    );
    parts.push(
      `<text x="${W - M.right + 52}" y="${ly + 4}" font-family="sans-serif" font-size="12">${esc(s.name)}</text>`,
    );
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${parts.join("")}</svg>`;
  await sharp(Buffer.from(svg)).png().toFile(file);
}
