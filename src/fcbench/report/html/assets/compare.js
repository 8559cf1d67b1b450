// fcbench compare page: the comparison document; its chart is SVG drawn by charts.js.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value; else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  children.filter((c) => c !== null && c !== undefined).forEach((c) =>
    node.append(typeof c === "string" ? document.createTextNode(c) : c));
  return node;
}

const pct = (v) => (v === null || v === undefined ? "N/A" : (v * 100).toFixed(2));
const prob = (p) => (p === null || p === undefined ? "N/A" : p.toPrecision(3));  // N/A: no shared case
const signed = (v) => (v === null || v === undefined ? "N/A" : (v >= 0 ? "+" : "") + (v * 100).toFixed(2));

function table(headers, rows) {
  return el("table", {}, el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {text: h})))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c) => el("td", {text: String(c)}))))));
}

// A flipped case's id links to its drill-down in the failing side's report (the report
// opens `#case=<model>/<id>`); the id stays text, the link is built from encoded parts.
function linkCases(shown, report) {
  for (const cell of shown.querySelectorAll("tbody tr td:first-child")) {
    const id = cell.textContent;
    const href = report.uri + "#case=" + encodeURIComponent(report.model) + "/" + encodeURIComponent(id);
    cell.replaceChildren(el("a", {href: href, text: id}));
  }
}

async function main() {
  const text = document.getElementById("report-data").textContent.trim();
  const binary = atob(text);  // a plain loop: Uint8Array.from(string, fn) took seconds on MBs
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const doc = JSON.parse(await new Response(stream).text());
  const [nameA, nameB] = doc.names || ["A", "B"];  // the columns are headed by the runs' names
  document.getElementById("meta").textContent = "A: " + nameA + " = " + doc.a + " · B: " + nameB + " = " + doc.b;
  document.getElementById("test-note").textContent = nameA + ", " + nameB + " and Δ = " + nameB + " − " + nameA + " (accuracy points) over " +
    "the cases both runs judged (shared cases; skipped cases are in neither). p: " + doc.test +
    ". All paired cases: +" + doc.pooled.gained + " −" + doc.pooled.lost + ", p = " +
    doc.pooled.p_value.toPrecision(3) + ". gained (+): cases " + nameB + " passed and " + nameA + " failed; lost (−): " +
    "the reverse. p (Holm): adjusted for testing every category at once.";
  const cats = doc.categories;
  const deltas = cats.map((c) => (c.delta === null ? null : c.delta * 100));
  barChart(document.getElementById("chart-deltas"), {x: cats.map((c) => c.category), unit: " points",
    max: Math.max(1, ...deltas.filter((d) => d !== null).map(Math.abs)),
    series: [{name: nameB + " ahead by (points, Δ > 0)", values: deltas.map((d) => (d === null || d <= 0 ? null : d))},
      {name: nameA + " ahead by (points, Δ < 0)", values: deltas.map((d) => (d === null || d >= 0 ? null : -d))}]});
  document.getElementById("category-table").append(table(
    ["category", nameA, nameB, "Δ", "Δ without disputed", "gained (+)", "lost (−)", "p", "p (Holm)",
      "shared cases"],
    cats.map((c) => [c.category, pct(c.a.shared_accuracy), pct(c.b.shared_accuracy), signed(c.delta),
      signed(c.delta_without_disputed), c.gained.length, c.lost.length, prob(c.p_value),
      prob(c.p_holm),
      c.paired_cases + (c.paired_cases !== c.a.total || c.paired_cases !== c.b.total ?
        " (" + nameA + " judged " + c.a.total + (c.a.skipped ? ", " + c.a.skipped + " skipped" : "") +
        "; " + nameB + " judged " + c.b.total + (c.b.skipped ? ", " + c.b.skipped + " skipped" : "") + ")" : "")])));
  const interval = (i) => (i ? "[" + signed(i[0]) + ", " + signed(i[1]) + "]" : "N/A");
  // Each side's text is compare's terminal cell: ‡ incomplete, — nothing run (one rule).
  document.getElementById("summary-table").append(table(["summary", nameA, nameB, "Δ", "Δ ≈95% interval"],
    doc.summaries.map((s) => [s.label || s.summary, ...(s.text || [pct(s.a), pct(s.b)]),
      signed(s.delta), interval(s.interval)])));
  for (const line of doc.incomplete_notes || []) {
    document.getElementById("summary-table").append(el("p", {class: "note", text: line}));
  }
  const flips = document.getElementById("flips");
  const [reportA, reportB] = doc.reports || [null, null];
  for (const c of cats) {
    for (const [sign, list, report] of [["gained (" + nameA + " failed, " + nameB + " passed)", c.gained, reportA],
      ["lost (" + nameA + " passed, " + nameB + " failed)", c.lost, reportB]]) {
      if (!list.length) continue;
      const rows = list.map((f) => [f.id, f.error_type || "", f.disputed ? "yes" : ""]);
      const shown = table(["case", "error type (failing side)", "disputed"], rows);
      if (report) linkCases(shown, report);
      flips.append(el("details", {}, el("summary", {text: c.category + ": " + list.length + " " + sign}), shown));
    }
  }
  document.body.setAttribute("data-ready", "1");
}

main().catch((error) => { document.body.setAttribute("data-ready", "error"); console.error(String(error)); });
