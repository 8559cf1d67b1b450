// fcbench charts: small SVG charts drawn by the page itself (a few kB instead of a 4.8 MB
// charting bundle). Every text, label and tooltip goes in through textContent, never as
// markup. Colours: Okabe-Ito, then Paul Tol's muted scheme (both colour-blind safe); after
// those, hues spread by the golden angle so that no two series share a colour.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
  "#000000", "#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677",
  "#882255", "#AA4499", "#DDDDDD"];

function colour(index) {
  if (index < PALETTE.length) return PALETTE[index];
  return "hsl(" + Math.round((index * 137.508) % 360) + ", 55%, " + (index % 2 ? 38 : 58) + "%)";
}

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function tip(node, text) {
  node.append(svgEl("title", {}, text));
  return node;
}

function legend(names) {
  const box = document.createElement("div");
  box.className = "legend";
  names.forEach((name, i) => {
    const item = document.createElement("span");
    item.className = "item";
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = colour(i);
    const label = document.createElement("span");
    label.className = "legendtext";
    label.textContent = name;
    item.append(swatch, label);
    box.append(item);
  });
  return box;
}

function empty(container, text) {
  const note = document.createElement("p");
  note.className = "note";
  note.textContent = text;
  container.replaceChildren(note);
}

function width(container) {
  return Math.max(280, container.clientWidth || 900);
}

// Characters of a label drawn in full: fewer on a phone, where a chart is ~360 px wide.
let LABEL_CHARS = 30;

function labelChars(container) {
  LABEL_CHARS = width(container) < 600 ? 16 : 30;
}

// A label as drawn: long names cut with an ellipsis (the whole name is in its tooltip).
function shortLabel(label) {
  const text = String(label);
  return text.length > LABEL_CHARS ? text.slice(0, LABEL_CHARS - 1) + "…" : text;
}

// An SVG text of a label, with the whole label as its tooltip when it was cut.
function labelText(attrs, label) {
  const node = svgEl("text", attrs, shortLabel(label));
  return shortLabel(label) === String(label) ? node : tip(node, label);
}

// The y-axis ticks from 0 to at least `max`, on a round step (1, 2, 2.5 or 5 × 10^k) of at
// most 6 intervals: a maximum of 12.5 reads 0/2.5/5/7.5/10/12.5, not 3/6/9/13 (issue 32).
function niceTicks(max) {
  if (!(max > 0) || !isFinite(max)) return [0, 1];
  const raw = max / 6;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw * (1 - 1e-9));
  const count = Math.ceil(max / step - 1e-9);
  return Array.from({length: count + 1}, (_, i) => Number((i * step).toPrecision(12)));
}

// A tick's label: the round number as written (2.5, 10, 0.25), no spurious decimals.
function tickText(value) {
  return String(Number(value.toPrecision(12)));
}

// Grouped vertical bars: x categories, one series per model; optional [low, high] whiskers.
// spec: {x: [label], series: [{name, values: [number|null], low?: [..], high?: [..]}],
//        max: number, unit: string}
// Labels are rotated 35 degrees: the margins below and left grow with the longest one, so no
// name is cut at the chart's edge; bars are never thinner than MIN_BAR (the chart scrolls
// sideways in its box instead).
const MIN_BAR = 4;

function barChart(container, spec) {
  if (!spec.series.length || !spec.x.length) return empty(container, "nothing to draw");
  labelChars(container);
  const longest = Math.max(...spec.x.map((l) => shortLabel(l).length));
  const reach = longest * 6.2;  // px of a rotated label along its baseline, at 11 px
  const bottom = Math.max(40, Math.ceil(reach * 0.58) + 18);
  const perGroup = spec.series.length * MIN_BAR / 0.8;
  const left = Math.max(48, Math.ceil(reach * 0.82 - Math.max(perGroup, 20) / 2) + 8);
  const w = Math.max(width(container), left + 12 + perGroup * spec.x.length), top = 12;
  const h = 250 + bottom;
  const plotW = w - left - 12, plotH = h - top - bottom;
  const svg = svgEl("svg", {class: "chart-svg", width: w, height: h, viewBox: "0 0 " + w + " " + h,
    role: "img"});
  const ticks = niceTicks(spec.max || Math.max(1, ...spec.series.flatMap((s) =>
    s.values.filter((v) => v !== null && v !== undefined && Number.isFinite(v)))));
  const max = ticks[ticks.length - 1];
  const y = (v) => top + plotH - (Math.min(max, Math.max(0, v)) / max) * plotH;
  for (const value of ticks) {
    svg.append(svgEl("line", {x1: left, x2: w - 12, y1: y(value), y2: y(value), class: "grid"}));
    svg.append(svgEl("text", {x: left - 4, y: y(value) + 4, class: "ytick"}, tickText(value)));
  }
  const group = plotW / spec.x.length;
  const bar = Math.max(1, Math.min(28, (group * 0.8) / spec.series.length));
  spec.x.forEach((label, i) => {
    const cx = left + group * i + group / 2;
    svg.append(labelText({class: "xtick", transform: "translate(" + cx + "," + (top + plotH + 10) +
      ") rotate(-35)"}, label));
    spec.series.forEach((s, j) => {
      const v = s.values[i];
      if (v === null || v === undefined) return;
      const x = cx - (bar * spec.series.length) / 2 + j * bar;
      svg.append(tip(svgEl("rect", {class: "bar", x: x, y: y(v), width: Math.max(1, bar - 1),
        height: Math.max(0, top + plotH - y(v)), fill: colour(j)}),
      s.name + " · " + label + ": " + (s.texts ? s.texts[i] : v.toFixed(2)) + (spec.unit || "")));
      if (s.low && s.high && s.low[i] !== null && s.high[i] !== null) {
        const mid = x + bar / 2;
        svg.append(svgEl("line", {class: "whisker", x1: mid, x2: mid, y1: y(s.high[i]), y2: y(s.low[i])}));
      }
    });
  });
  svg.append(svgEl("line", {x1: left, x2: w - 12, y1: top + plotH, y2: top + plotH, class: "axis"}));
  container.replaceChildren(svg, legend(spec.series.map((s) => s.name)));
}

// Horizontal stacked bars: one row per label, one stacked series per kind.
// spec: {rows: [label], series: [{name, values: [number]}], unit}
function stackedBars(container, spec) {
  if (!spec.rows.length || !spec.series.length) return empty(container, "no failed case");
  const w = width(container), left = 190, row = 22, top = 8;
  const h = top + row * spec.rows.length + 24;
  const totals = spec.rows.map((_, i) => spec.series.reduce((a, s) => a + (s.values[i] || 0), 0));
  const max = Math.max(1, ...totals);
  const scale = (w - left - 60) / max;
  const svg = svgEl("svg", {class: "chart-svg", width: w, height: h, viewBox: "0 0 " + w + " " + h});
  spec.rows.forEach((label, i) => {
    const y = top + i * row;
    svg.append(svgEl("text", {class: "ytick", x: left - 6, y: y + row / 2 + 4}, label));
    let x = left;
    spec.series.forEach((s, j) => {
      const v = s.values[i] || 0;
      if (!v) return;
      svg.append(tip(svgEl("rect", {class: "bar", x: x, y: y + 2, width: v * scale, height: row - 4,
        fill: colour(j)}), label + ": " + v + " × " + s.name));
      x += v * scale;
    });
    svg.append(svgEl("text", {class: "note", x: x + 4, y: y + row / 2 + 4}, String(totals[i])));
  });
  container.replaceChildren(svg, legend(spec.series.map((s) => s.name)));
}

// A sequential, colour-blind-safe scale (light yellow to dark blue, after cividis).
function heatColour(value) {
  const stops = [[255, 234, 70], [125, 124, 120], [0, 34, 78]];
  const t = Math.max(0, Math.min(1, value / 100)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(t)), f = t - i;
  const c = stops[i].map((a, k) => Math.round(a + (stops[i + 1][k] - a) * f));
  return "rgb(" + c.join(",") + ")";
}

// Heatmap: rows × columns of values in [0, 100] (null: not run) with a text per cell.
function heatmap(container, spec) {
  if (!spec.rows.length || !spec.columns.length) return empty(container, "nothing to draw");
  labelChars(container);
  const left = 8 + 6.2 * Math.max(...spec.rows.map((r) => shortLabel(r).length)), top = 120, cell = 30, cw = Math.max(44, Math.min(64, (width(container) - left - 10) /
    spec.columns.length));
  const w = left + cw * spec.columns.length + 120, h = top + cell * spec.rows.length + 10;
  const svg = svgEl("svg", {class: "chart-svg", width: w, height: h, viewBox: "0 0 " + w + " " + h});
  // Not judged (most cases skipped): hatched grey, never a colour of the scale.
  const hatch = svgEl("pattern", {id: "not-judged", width: 6, height: 6, patternUnits: "userSpaceOnUse",
    patternTransform: "rotate(45)"});
  hatch.append(svgEl("rect", {width: 6, height: 6, fill: "#ffffff"}), svgEl("line", {x1: 0, y1: 0, x2: 0, y2: 6,
    stroke: "#bbbbbb", "stroke-width": 3}));
  const defs = svgEl("defs");
  defs.append(hatch);
  svg.append(defs);
  spec.columns.forEach((label, j) => {
    svg.append(svgEl("text", {class: "xtick coltick", transform: "translate(" + (left + cw * j + cw / 2) +
      "," + (top - 6) + ") rotate(-45)"}, label));
  });
  spec.rows.forEach((label, i) => {
    svg.append(labelText({class: "ytick", x: left - 6, y: top + cell * i + cell / 2 + 4}, label));
    spec.columns.forEach((column, j) => {
      const v = spec.values[i][j];
      const x = left + cw * j, y = top + cell * i;
      const unjudged = spec.unjudged && spec.unjudged[i][j];
      svg.append(tip(svgEl("rect", {class: unjudged ? "cell unjudged" : "cell", x: x, y: y, width: cw - 1,
        height: cell - 1, fill: v === null ? (unjudged ? "url(#not-judged)" : "#eeeeee") : heatColour(v)}),
      label + " · " + column + ": " + (spec.tips ? spec.tips[i][j] : spec.texts[i][j])));
      svg.append(svgEl("text", {class: "celltext", x: x + cw / 2, y: y + cell / 2 + 4,
        fill: v !== null && v > 55 ? "#ffffff" : "#1d2330"}, spec.texts[i][j]));
    });
  });
  container.replaceChildren(svg);
}
