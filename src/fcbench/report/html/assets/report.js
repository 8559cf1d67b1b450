// fcbench report: reads the embedded (gzip, base64) document and draws the page.
// Every text that comes from a model or the data set goes in through textContent, never
// as HTML. Charts are SVG drawn by charts.js (same rule); one model selection (the top N
// by V4 Overall, narrowed by a search) drives every chart.
"use strict";

const PAGE = 200;
const TOP_DEFAULT = 10;
let DOC = null;
let shownRows = PAGE;
let RANKED = [];  // model indices, best ranking Overall first (N/A last, ties by name)

// The Overall that ranks and charts the models (score.completeness.ranking_summary): v1
// Overall for a board of 2024 runs only (V4 Overall counts their V4-only groups as 0).
function rankBy() {
  return DOC.ranked_by || "Overall";
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
  }
  return node;
}

function pct(value) {
  return value === null || value === undefined ? "N/A" : (value * 100).toFixed(2);
}

function numCell(text) {
  return el("td", {class: text === "N/A" ? "num na" : "num", text: text});
}

// The case details and function lists (most of the document) are packed apart and unpacked
// after the page is drawn, so that the page is usable before they are read.
let DETAILS = null;

function details() {
  if (DETAILS === null) DETAILS = loadDocument("report-details").then(unwireErrors);
  return DETAILS;
}

// The page's copy of the document is compactly encoded (wire.py): rows as columns, the
// details' error texts as indices into one table. These rebuild the collected form.
function unwireRows(doc) {
  const wire = doc.rows_wire;
  if (!wire) return doc;
  const rows = new Array(wire.valid.length);
  let at = 0, id = -1, failed = 0;
  for (const [model, count] of wire.models) {
    for (let k = 0; k < count; k++, at++) {
      id += wire.steps[at];
      const valid = wire.valid.charCodeAt(at) === 49 ? 1 : 0;
      const kind = wire.kind[at] < 0 ? null : wire.kinds[wire.kind[at]];
      const detail = wire.detail ? wire.detail[at] : valid ? null : failed++;
      rows[at] = [model, wire.ids[id], valid, kind, detail];
    }
  }
  doc.rows = rows;
  delete doc.rows_wire;
  return doc;
}

function unwireErrors(later) {
  const texts = later.error_texts;
  if (texts && later.details) {
    for (const d of later.details) if (d && typeof d.error === "number") d.error = texts[d.error];
  }
  return later;
}

async function loadDocument(id = "report-data") {
  const text = document.getElementById(id).textContent.trim();
  const binary = atob(text);  // a plain loop: Uint8Array.from(string, fn) took seconds on MBs
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

// A number in a cell's text ("81.53* †2 skipped" -> 81.53); N/A and text sort last.
function sortValue(text) {
  const found = /^-?\d+(\.\d+)?/.exec(text);
  return found ? Number(found[0]) : null;
}

// A table whose headers sort it (click: descending numbers / ascending text; again: reverse).
function table(headers, rows, numeric) {
  const body = el("tbody");
  const fill = (list) => {
    body.replaceChildren(...list.map((row) => el("tr", {}, ...row.map((cell, i) =>
      numeric(i) ? numCell(cell) : el("td", {text: cell})))));
    filterRows(body);
  };
  let order = {column: -1, down: true};
  const head = el("tr", {}, ...headers.map((h, i) => {
    const th = el("th", {class: (numeric(i) ? "num " : "") + "sortable", text: h, title: "sort"});
    th.addEventListener("click", () => {
      order = {column: i, down: order.column === i ? !order.down : numeric(i)};
      const key = (row) => (numeric(i) ? sortValue(row[i]) : String(row[i]).toLowerCase());
      const sorted = [...rows].sort((a, b) => {
        const ka = key(a), kb = key(b);
        if (ka === null || kb === null) return ka === kb ? 0 : ka === null ? 1 : -1;
        return (ka < kb ? -1 : ka > kb ? 1 : 0) * (order.down ? -1 : 1);
      });
      fill(sorted);
      head.querySelectorAll("th").forEach((x) => x.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", order.down ? "descending" : "ascending");
    });
    return th;
  }));
  fill(rows);
  return el("table", {}, el("thead", {}, head), body);
}

// -- The model filter of the tables --------------------------------------------------

function modelQuery() {
  const input = document.getElementById("model-filter");
  return input ? input.value.trim().toLowerCase() : "";
}

// Rows whose first cell (the model) does not hold the query are hidden; tables with a
// model per column (data-models="columns") hide those columns instead.
function filterRows(body) {
  const table = body.closest("table");
  if (!table || table.dataset.models === undefined) return;
  const query = modelQuery();
  const keep = (text) => query === "" || text.toLowerCase().includes(query);
  if (table.dataset.models === "columns") {
    const heads = [...table.querySelectorAll("thead th")];
    const shown = heads.map((th, i) => i === 0 || keep(th.textContent));
    for (const tr of table.querySelectorAll("tr")) {
      [...tr.children].forEach((cell, i) => cell.classList.toggle("filtered-out", !shown[i]));
    }
    return;
  }
  const column = Number(table.dataset.modelColumn || 0);
  for (const tr of body.children) tr.classList.toggle("filtered-out", !keep(tr.cells[column].textContent.replace(/ !$/, "")));
}

function applyModelFilter() {
  document.querySelectorAll("table[data-models] tbody").forEach(filterRows);
  const query = modelQuery();
  const matching = DOC.models.filter((m) => query === "" || m.name.toLowerCase().includes(query)).length;
  document.getElementById("model-filter-count").textContent =
    query === "" ? "" : matching + " of " + DOC.models.length + " models match";
}

function byModel(tableNode, how = "rows") {
  tableNode.dataset.models = how;
  filterRows(tableNode.querySelector("tbody"));
  return tableNode;
}

// -- Summaries --------------------------------------------------------------------------

function summaryLabels() {
  const labels = [];
  for (const model of DOC.models) {
    for (const [label] of model.summaries) if (!labels.includes(label)) labels.push(label);
  }
  return labels;
}

function summaryOf(model, label) {
  const found = model.summaries.find((s) => s[0] === label);
  if (!found) return {value: null, text: "N/A"};
  const skipped = found[3] || 0;  // cases under this summary not judged: shown, never 0.00
  return {value: found[1], text: found[2] + (skipped ? " †" + skipped + " skipped" : "")};
}

// A summary's name as shown: every Overall says its formula ("V4 Overall").
function summaryName(label) {
  return (DOC.summary_names || {})[label] || label;
}

function summaryValue(model, label) {
  return summaryOf(model, label).value;
}

function rankModels() {
  const name = (i) => DOC.models[i].name.toLowerCase();
  RANKED = DOC.models.map((_, i) => i).sort((a, b) => {
    const va = summaryValue(DOC.models[a], rankBy()), vb = summaryValue(DOC.models[b], rankBy());
    if (va !== vb) return va === null ? 1 : vb === null ? -1 : vb - va;
    return name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0;
  });
}

// The models the charts show: the first N of the ranking among those matching the search.
function selectedModels() {
  const query = document.getElementById("chart-search").value.trim().toLowerCase();
  const top = Math.max(1, Number(document.getElementById("chart-top").value) || TOP_DEFAULT);
  const chosen = RANKED.filter((i) => query === "" || DOC.models[i].name.toLowerCase().includes(query))
    .slice(0, top).map((i) => DOC.models[i]);
  document.getElementById("chart-count").textContent = "charts show " + chosen.length + " of " +
    DOC.models.length + " models (ranked by " + summaryName(rankBy()) + ")";
  return chosen;
}

const HEADLINE = ["Overall", "Non-Live", "Live", "Irrelevance Detection", "Multi-Turn", "Agentic",
  "v1 Overall (2024)", "v1 AST Summary (2024)", "v1 Exec Summary (2024)"];

// Rank first (never under the sticky model column), the model, then the Overall that
// ranks them, then the other summaries.
function drawSummaries() {
  const all = summaryLabels();
  const labels = all.includes(rankBy()) ? [rankBy(), ...all.filter((l) => l !== rankBy())] : all;
  const rows = RANKED.map((i) => DOC.models[i]).map((m, rank) =>
    [String(rank + 1), m.name, ...labels.map((l) => summaryOf(m, l).text)]);
  const ranked = table(["#", "model", ...labels.map(summaryName)], rows, (i) => i !== 1);
  ranked.classList.add("ranked");
  ranked.querySelector("th").title = "rank by " + summaryName(rankBy()) + " (click to sort)";
  ranked.dataset.modelColumn = "1";
  document.getElementById("summary-table").append(el("p", {class: "note", id: "rank-note",
    text: "Ranked by " + summaryName(rankBy()) + (rankBy() === "Overall" ? "." :
      ": every model ran 2024 categories only, which V4 Overall would count as 0 in Live, " +
      "Multi-Turn and Agentic.")}), byModel(ranked));
  // What each summary marked ‡ misses: the terminal's lines, made by the same rule.
  for (const line of DOC.incomplete || []) {
    document.getElementById("summary-table").append(el("p", {class: "note", text: line}));
  }
}

// A summary some charted model has incomplete is labelled ‡ (its bars' tooltips give the
// text with its mark): never a bare Overall for a run that misses groups.
function drawSummaryChart(models) {
  const all = summaryLabels().filter((l) => HEADLINE.includes(l));
  const headline = all.includes(rankBy()) ? [rankBy(), ...all.filter((l) => l !== rankBy())] : all;
  const incomplete = (l) => models.some((m) => /‡/.test(summaryOf(m, l).text));
  barChart(document.getElementById("chart-summaries"), {
    x: headline.map((l) => summaryName(l) + (incomplete(l) ? " ‡" : "")), max: 100,
    unit: "%", series: models.map((m) => ({name: m.name,
      texts: headline.map((l) => summaryOf(m, l).text),
      values: headline.map((l) => {
        const v = summaryValue(m, l); return v === null ? null : v * 100; })}))});
}

// -- Published leaderboard ------------------------------------------------------------

function drawPublished() {
  const pub = DOC.published;
  if (!pub) return;
  document.getElementById("published").hidden = false;
  // Cells and notes as the terminal prints them (report/published.py: place_cell, placement_notes).
  document.getElementById("published-note").textContent = "Placed among " + pub.source + ".";
  const groups = pub.models.length ? pub.models[0].places.map((q) => q.group) : [];
  // Rows in the ranked table's order (models it lacks last), each naming its model; a cell is
  // `published.place_cell`'s text: a group not run completely has no rank ("—, not run").
  const position = new Map(RANKED.map((i, k) => [DOC.models[i].name, k]));
  const at = (m) => (position.has(m.model) ? position.get(m.model) : RANKED.length);
  const ordered = [...pub.models].sort((a, b) => at(a) - at(b));
  const rows = ordered.map((m) => [m.model + (m.flags.length ? " !" : ""),
    ...m.places.map((q) => q.text)]);
  document.getElementById("published-table").append(byModel(table(["model", ...groups], rows, (i) => i > 0)));
  const flags = document.getElementById("published-flags");
  (pub.notes || []).forEach((line) => flags.append(el("p", {class: line.startsWith("! ") ?
    "skipped" : "note", text: line})));
}

// -- Categories -------------------------------------------------------------------------

// A cell most of whose cases were skipped (not judged) is drawn as not judged, with how
// many were: "0.00" in the scale's brightest colour for 0 of 1 judged, 69 skipped, read
// as a score (issue 32). Cells with a few skipped keep their colour and a †.
function heatCell(score) {
  if (!score) return {value: null, text: "N/A", judged: true};
  if (score.accuracy === null) return {value: null, text: "not judged", judged: false};
  if (score.skipped > score.total) {
    return {value: null, text: score.total + "/" + (score.total + score.skipped), judged: false};
  }
  return {value: score.accuracy * 100, text: score.text + (score.skipped ? "†" : ""), judged: true};
}

function drawHeatmap(models) {
  const cells = models.map((m) => DOC.categories.map((c) => heatCell(m.scores[c])));
  heatmap(document.getElementById("chart-heatmap"), {rows: models.map((m) => m.name),
    columns: DOC.categories,
    values: cells.map((row) => row.map((x) => x.value)),
    texts: cells.map((row) => row.map((x) => x.text)),
    tips: models.map((m, i) => DOC.categories.map((c, j) => cells[i][j].judged ?
      (m.scores[c] ? categoryCell(m.scores[c]) : "not run") :
      "not judged: " + categoryCell(m.scores[c]))),
    unjudged: cells.map((row) => row.map((x) => !x.judged))});
}

function drawCategories() {
  document.getElementById("interval-note").textContent =
    "Bars: accuracy over the cases judged; whiskers: " + DOC.meta.interval +
    ". N/A: not run, or every case skipped. * partial (fewer cases than the data set). " +
    "† some cases skipped (not judged, in neither correct nor total; see Notes). " +
    "Hatched heatmap cell: most of the category's cases skipped, not judged (judged/cases).";
  const headers = ["category", ...RANKED.map((i) => DOC.models[i].name)];
  const rows = DOC.categories.map((c) => [c, ...RANKED.map((i) => categoryCell(DOC.models[i].scores[c]))]);
  document.getElementById("category-table").append(byModel(table(headers, rows, (i) => i > 0), "columns"));
}

function drawIntervals(models) {
  const cats = DOC.categories.filter((c) => models.some((m) => m.scores[c] && m.scores[c].accuracy !== null));
  const part = (m, c, f) => (m.scores[c] && m.scores[c].accuracy !== null ? f(m.scores[c]) : null);
  barChart(document.getElementById("chart-categories"), {x: cats, max: 100, unit: "%",
    series: models.map((m) => ({name: m.name,
      values: cats.map((c) => part(m, c, (s) => s.accuracy * 100)),
      low: cats.map((c) => part(m, c, (s) => (s.ci ? s.ci[0] * 100 : null))),
      high: cats.map((c) => part(m, c, (s) => (s.ci ? s.ci[1] * 100 : null)))}))});
}

function categoryCell(score) {
  if (!score) return "N/A";
  if (score.accuracy === null) return "N/A (" + score.skipped + " skipped)";
  let text = score.text + (score.total + score.skipped < score.size ? "*" : "");
  text += " (" + score.correct + "/" + score.total + ")";
  if (score.skipped) text += " †" + score.skipped + " skipped";
  if (score.ci) text += " [" + pct(score.ci[0]) + "–" + pct(score.ci[1]) + "]";
  if (score.undisputed) {
    const [c, t] = score.undisputed;
    text += " · without disputed " + pct(t ? c / t : 0);
  }
  return text;
}

// -- Errors and usage -------------------------------------------------------------------

// Every error type one colour, the same in every model's chart.
function errorKinds() {
  const kinds = new Set();
  for (const m of DOC.models) for (const counts of Object.values(m.errors)) Object.keys(counts).forEach((k) => kinds.add(k));
  return [...kinds].sort();
}

function drawErrors() {
  const select = document.getElementById("error-model");
  RANKED.forEach((i) => select.append(el("option", {value: String(i), text: DOC.models[i].name})));
  const kinds = errorKinds();
  const draw = () => {
    const model = DOC.models[Number(select.value)];
    const cats = DOC.categories.filter((c) => model.errors[c]);
    stackedBars(document.getElementById("chart-errors"), {rows: cats,
      series: kinds.map((kind) => ({name: kind, values: cats.map((c) => model.errors[c][kind] || 0)}))});
  };
  select.addEventListener("change", draw);
  draw();
}

function drawUsage() {
  const rows = RANKED.map((i) => DOC.models[i]).map((m) => {
    const u = m.usage;
    const fmt = (v) => (v === null || v === undefined ? "N/A" : String(v));
    return u ? [m.name, fmt(u.latency_mean), fmt(u.latency_p95), fmt(u.input_tokens),
      fmt(u.output_tokens), fmt(u.cost)] : [m.name, "N/A", "N/A", "N/A", "N/A", "N/A"];
  });
  document.getElementById("usage-table").append(byModel(table(["model", "latency mean (s)",
    "latency p95 (s)", "input tokens", "output tokens", "cost ($, as data_overall.csv)"],
  rows, (i) => i > 0)));
}

function drawUsageChart(models) {
  const known = models.filter((m) => m.usage);
  if (!known.length) return empty(document.getElementById("chart-usage"), "no latency recorded");
  barChart(document.getElementById("chart-usage"), {x: known.map((m) => m.name), unit: " s",
    series: [{name: "latency mean (s)", values: known.map((m) => m.usage.latency_mean)},
      {name: "latency p95 (s)", values: known.map((m) => m.usage.latency_p95)}]});
}

// `grid` false: the grid (below the fold, the costliest to draw) is left for later.
function drawCharts(grid = true) {
  const models = selectedModels();
  drawSummaryChart(models);
  drawHeatmap(models);
  drawIntervals(models);
  drawUsageChart(models);
  if (grid) drawGrid(models);
}

// -- Hardest cases x models -----------------------------------------------------------

// case id -> (model index -> row) for the given models' judged cases.
function verdictsOf(indices) {
  const wanted = new Set(indices);
  const byCase = new Map();
  for (const r of DOC.rows) {
    if (!wanted.has(r[0])) continue;
    let found = byCase.get(r[1]);
    if (!found) byCase.set(r[1], found = new Map());
    found.set(r[0], r);
  }
  return byCase;
}

// The cases failed by the largest share of the models that judged them (then by count, id);
// `split`: only those some model passed (the ones that tell models apart).
function hardestCases(byCase, count, split) {
  const cases = [];
  for (const [id, rows] of byCase) {
    let failed = 0;
    for (const r of rows.values()) if (!r[2]) failed++;
    if (failed && !(split && failed === rows.size)) cases.push({id, rows, failed, judged: rows.size});
  }
  cases.sort((a, b) => b.failed / b.judged - a.failed / a.judged || b.failed - a.failed ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return cases.slice(0, count);
}

function jaccard(a, b) {
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  const either = a.size + b.size - both;
  return {both, either, value: either ? both / either : 0};
}

// Models that fail the same cases side by side: start from the model failing most, then
// each time the remaining model closest (Jaccard over the shown cases) to the last placed.
function failTogetherOrder(indices, cases) {
  const fails = new Map(indices.map((i) => [i, new Set(cases.filter((c) => {
    const r = c.rows.get(i); return r && !r[2]; }).map((c) => c.id))]));
  const left = [...indices];
  left.sort((a, b) => fails.get(b).size - fails.get(a).size);
  const order = left.length ? [left.shift()] : [];
  while (left.length) {
    const last = fails.get(order[order.length - 1]);
    let best = 0;
    left.forEach((m, k) => { if (jaccard(last, fails.get(m)).value > jaccard(last, fails.get(left[best])).value) best = k; });
    order.push(left.splice(best, 1)[0]);
  }
  return order;
}

function drawGrid(models) {
  const indices = models.map((m) => DOC.models.indexOf(m));
  const count = Math.max(1, Number(document.getElementById("grid-cases").value) || 30);
  const byCase = verdictsOf(indices);
  const cases = hardestCases(byCase, count, document.getElementById("grid-split").checked);
  const order = failTogetherOrder(indices, cases);
  const head = el("tr", {}, el("th", {text: "case (failed / judged)"}),
    ...order.map((i) => el("th", {class: "model", text: DOC.models[i].name, title: DOC.models[i].name})));
  const body = el("tbody", {}, ...cases.map((c) => el("tr", {"data-case": c.id},
    el("td", {text: c.id + " (" + c.failed + "/" + c.judged + ")"}),
    ...order.map((i) => {
      const r = c.rows.get(i);
      const cell = el("td", {class: "cell " + (!r ? "n" : r[2] ? "p" : "f"), "data-model": DOC.models[i].name,
        title: DOC.models[i].name + " · " + c.id + " · " + (!r ? "not judged" : r[2] ? "passed" : "failed: " + (r[3] || ""))});
      if (r) cell.addEventListener("click", () => openCase(r));
      return cell;
    }))));
  document.getElementById("grid-table").replaceChildren(el("thead", {}, head), body);
  document.getElementById("grid-count").textContent = cases.length + " cases failed by at least one of " +
    order.length + " charted models";
  drawTogether(indices, byCase);
  document.getElementById("grid").dataset.drawn = "1";  // tests wait on it
}

function drawTogether(indices, byCase) {
  const fails = new Map(indices.map((i) => [i, new Set()]));
  const judged = new Map(indices.map((i) => [i, new Set()]));
  for (const [id, rows] of byCase) {
    for (const [i, r] of rows) { judged.get(i).add(id); if (!r[2]) fails.get(i).add(id); }
  }
  const pairs = [];
  for (let a = 0; a < indices.length; a++) {
    for (let b = a + 1; b < indices.length; b++) {
      const [x, y] = [indices[a], indices[b]];
      const shared = (set, other) => new Set([...set].filter((id) => judged.get(other).has(id)));
      const fx = shared(fails.get(x), y), fy = shared(fails.get(y), x);
      const j = jaccard(fx, fy);
      if (j.either) pairs.push([DOC.models[x].name, DOC.models[y].name, j.value.toFixed(2),
        String(j.both), String(fx.size - j.both), String(fy.size - j.both)]);
    }
  }
  pairs.sort((p, q) => Number(q[2]) - Number(p[2]) || Number(q[3]) - Number(p[3]));
  document.getElementById("together-table").replaceChildren(table(["model", "with model",
    "Jaccard", "both failed", "only the first", "only the second"], pairs.slice(0, 15), (i) => i > 1));
}

// -- Corrections ------------------------------------------------------------------------

function drawCorrections() {
  const corrected = DOC.models.filter((m) => m.corrections);
  if (!corrected.length) return;
  document.getElementById("corrections").hidden = false;
  document.getElementById("corrections-note").textContent = "These runs used a corrections " +
    "profile (pending upstream fixes, see docs/corrections.md). Each corrected category " +
    "and the V4 Overall are shown corrected and as upstream (bfcl-eval 2026.3.23) scores " +
    "them; below, every corrected case with its upstream pull request / issue numbers.";
  const rows = [];
  const cases = [];
  for (const m of corrected) {
    const c = m.corrections;
    const overall = c.upstream_summaries && c.upstream_summaries.overall;
    rows.push([m.name, c.profile, "V4 Overall", pct(summaryValue(m, "Overall")),
      overall ? pct(overall.accuracy) : "N/A"]);  // V4 Overall counts a category not run as 0
    for (const [name, cat] of Object.entries(c.categories || {})) {
      rows.push([m.name, c.profile, name, pct(cat.accuracy), pct(cat.upstream_accuracy)]);
      for (const k of cat.cases || []) {
        cases.push([m.name, k.id, name, k.fix, (k.upstream || []).map((n) => "#" + n).join(", "),
          k.valid ? "pass" : "fail", k.upstream_valid ? "pass" : "fail"]);
      }
    }
  }
  document.getElementById("corrections-table").append(byModel(table(["model", "profile",
    "score", "corrected", "upstream"], rows, (i) => i > 2)));
  document.getElementById("corrections-cases").append(cases.length ? byModel(table(["model",
    "case", "category", "fix", "upstream", "corrected verdict", "upstream verdict"], cases,
  () => false)) : el("p", {class: "note", text: "No judged case was corrected."}));
}

// -- Per-turn accuracy (fcbench metric) ------------------------------------------------------

function drawPerTurn() {
  const measured = DOC.models.filter((m) => m.per_turn);
  if (!measured.length) return;
  document.getElementById("per-turn").hidden = false;
  const rows = [];
  for (const m of measured) {
    const p = m.per_turn;
    for (const [name, cat] of Object.entries(p.categories)) {
      rows.push([m.name, name, pct(cat.accuracy), String(cat.turns_right), String(cat.turns)]);
    }
    rows.push([m.name, "all turns", pct(p.all_turns.accuracy), String(p.all_turns.turns_right),
      String(p.all_turns.turns)]);
  }
  document.getElementById("per-turn-table").append(byModel(table(["model", "category",
    "per-turn accuracy", "turns right", "turns"], rows, (i) => i > 1)));
}

function setUpChartSelection() {
  const top = document.getElementById("chart-top");
  top.value = String(Math.min(TOP_DEFAULT, DOC.models.length));
  top.max = String(DOC.models.length);
  for (const id of ["chart-top", "chart-search"]) {
    document.getElementById(id).addEventListener("input", () => drawCharts());
  }
  let pending = null;  // charts are drawn to the page's width: again when it changes
  window.addEventListener("resize", () => { clearTimeout(pending); pending = setTimeout(() => drawCharts(), 150); });
  drawCharts(false);
}

// -- Cases ------------------------------------------------------------------------------

function fillSelect(id, values, labels) {
  const select = document.getElementById(id);
  select.append(el("option", {value: "", text: "all"}));
  values.forEach((v, i) => select.append(el("option", {value: String(v), text: labels ? labels[i] : String(v)})));
}

function setUpFilters() {
  fillSelect("f-model", RANKED, RANKED.map((i) => DOC.models[i].name));
  fillSelect("f-category", DOC.categories);
  const kinds = [...new Set(DOC.rows.map((r) => r[3]).filter((k) => k))].sort();
  fillSelect("f-error", kinds);
  for (const id of ["f-model", "f-category", "f-verdict", "f-error", "f-id"]) {
    document.getElementById(id).addEventListener("input", () => { shownRows = PAGE; drawCases(); });
  }
  document.getElementById("more").addEventListener("click", () => { shownRows += PAGE; drawCases(); });
}

function matchingRows() {
  const model = document.getElementById("f-model").value;
  const category = document.getElementById("f-category").value;
  const verdict = document.getElementById("f-verdict").value;
  const error = document.getElementById("f-error").value;
  const id = document.getElementById("f-id").value.trim();
  return DOC.rows.filter((r) =>
    (model === "" || r[0] === Number(model)) &&
    (category === "" || DOC.cases[r[1]] && DOC.cases[r[1]][0] === category) &&
    (verdict === "" || r[2] === Number(verdict)) &&
    (error === "" || r[3] === error) &&
    (id === "" || r[1].includes(id)));
}

function drawCases() {
  const rows = matchingRows();
  const body = document.querySelector("#case-table tbody");
  body.replaceChildren(...rows.slice(0, shownRows).map((r) => {
    const tr = el("tr", {"data-row": String(DOC.rows.indexOf(r))},
      el("td", {text: DOC.models[r[0]].name}), el("td", {text: r[1]}),
      el("td", {text: DOC.cases[r[1]] ? DOC.cases[r[1]][0] : ""}),
      el("td", {class: r[2] ? "pass" : "fail", text: r[2] ? "pass" : "fail"}),
      el("td", {text: r[3] || ""}));
    if (DOC.disputed[r[1]]) tr.classList.add("disputed");
    tr.addEventListener("click", () => openCase(r));
    return tr;
  }));
  document.getElementById("case-count").textContent =
    rows.length + " cases" + (rows.length > shownRows ? " (first " + shownRows + " shown)" : "");
  document.getElementById("more").style.display = rows.length > shownRows ? "" : "none";
}

function block(title, text) {
  if (text === null || text === undefined || text === "") return null;
  return el("div", {}, el("strong", {text: title}), el("pre", {text: text}));
}

// Only failed cases have a detail (the model's output, decoded calls, error); a passing
// case shows what is per case: question, functions offered, expected answer.
const PASSING_NOTE = "passed: the report keeps the model's output of failed cases only";

function indented(json) {
  try { return JSON.stringify(JSON.parse(json), null, 1); } catch (e) { return json; }
}

async function openCase(row) {
  const [modelIndex, id, valid, errorType, detailIndex] = row;
  const later = await details();
  const detail = detailIndex === null || detailIndex === undefined ? null : later.details[detailIndex];
  const turns = detail && detail.turns && detail.turns.length ? detail.turns : null;
  const c = DOC.cases[id] || [null, null, null, null];
  const panel = document.getElementById("detail");
  const parts = [
    el("h3", {}, id + " · " + DOC.models[modelIndex].name + " · ",
      el("span", {class: valid ? "pass" : "fail", text: valid ? "passed" : "failed"})),
  ];
  if (DOC.disputed[id]) {
    parts.push(el("p", {class: "disputed", text: "Disputed ground truth: " + DOC.disputed[id][1] +
      " (" + DOC.disputed[id][0] + ")"}));
  }
  if (errorType) parts.push(el("p", {}, el("span", {class: "tag", text: errorType})));
  const failedTurn = detail && Number.isInteger(detail.failed_turn) ? detail.failed_turn : null;
  if (failedTurn !== null) {
    parts.push(el("p", {class: "fail", text: "The checker stopped at turn " + failedTurn +
      (turns ? " (marked below)" : "") + "."}));
  }
  if (turns) parts.push(...turns.map((turn, i) => turnBlock(turn, i, c[3], i === failedTurn)));
  else parts.push(block("question", c[1]));
  if (detail && detail.state_diff && detail.state_diff.length) parts.push(stateDiff(detail.state_diff));
  const functions = c[2] === null ? null : later.functions[c[2]];
  if (functions) {
    parts.push(el("details", {}, el("summary", {text: "functions offered"}), el("pre", {text: indented(functions)})));
  }
  if (detail === null) {
    parts.push(el("p", {class: "note", text: PASSING_NOTE}));
    parts.push(block("expected (possible answers)", c[3]));
  } else if (!turns) {
    parts.push(block("raw model output", detail.raw === null || detail.raw === undefined ?
      "(not available: pass the result folder with --result-dir)" : detail.raw));
    parts.push(block("decoded calls", detail.decoded));
    parts.push(block("expected (possible answers)", c[3]));
    parts.push(callDiff(detail.decoded, c[3]));
  }
  if (detail !== null) parts.push(block("error", detail.error));
  panel.replaceChildren(...parts.filter((p) => p));
  panel.classList.add("open");
  panel.dataset.row = String(DOC.rows.indexOf(row));  // which case it shows (tests wait on it)
  navMargin();
  panel.scrollIntoView({block: "start"});
}

// Decoded calls against the expected ones, argument by argument: a reading aid (the verdict
// is the checker's, which also normalises strings and types); null when either side is
// not a list of {function: {argument: value}} (e.g. cut texts, irrelevance answers).
// FC models get function names with "." replaced by "_" (the official checker matches so).
const sameName = (got, want) => got === want || got === want.replace(/\./g, "_");

function callDiff(decodedText, expectedText) {
  let decoded, expected;
  try { decoded = JSON.parse(decodedText); expected = JSON.parse(expectedText); } catch (e) { return null; }
  const calls = (list) => Array.isArray(list) && list.every((x) => x && typeof x === "object" &&
    !Array.isArray(x) && Object.keys(x).length === 1) ? list.map((x) => Object.entries(x)[0]) : null;
  const got = calls(decoded), want = calls(expected);
  if (!got || !want) return null;
  const rows = [];
  const used = new Set();
  for (const [name, args] of want) {
    const index = got.findIndex(([n], i) => sameName(n, name) && !used.has(i));
    if (index < 0) { rows.push([name, "(call missing)", "", "", "differs"]); continue; }
    used.add(index);
    const have = got[index][1] || {};
    for (const arg of new Set([...Object.keys(args || {}), ...Object.keys(have)])) {
      const allowed = (args || {})[arg];
      const value = have[arg];
      const text = value === undefined ? "(absent)" : JSON.stringify(value);
      const list = Array.isArray(allowed) ? allowed : allowed === undefined ? [] : [allowed];
      const same = value === undefined ? list.includes("") :
        list.some((a) => JSON.stringify(a) === JSON.stringify(value));
      rows.push([name, arg, text, allowed === undefined ? "(not expected)" :
        list.map((a) => (a === "" ? "(may be absent)" : JSON.stringify(a))).join(" | "), same ? "same" : "differs"]);
    }
  }
  got.forEach(([name], i) => { if (!used.has(i)) rows.push([name, "(extra call)", "", "", "differs"]); });
  const shown = table(["function", "argument", "decoded", "expected (any of)", "as written"], rows, () => false);
  shown.classList.add("call-diff");
  shown.querySelectorAll("tbody tr").forEach((tr) => {
    if (tr.lastChild.textContent === "differs") tr.classList.add("differs");
  });
  return el("div", {}, el("strong", {text: "decoded vs expected, argument by argument (a reading aid: " +
    "the checker also normalises strings and types)"}), shown);
}

// The environment the model left against the ground truth's, attribute by attribute, as
// the checker found them different: a unified diff (- ground truth, + model).
function stateDiff(diffs) {
  return el("div", {class: "state-diff"},
    el("strong", {text: "state difference at the failing turn (− ground truth, + model)"}),
    ...diffs.map(([owner, attribute, diff]) => el("div", {},
      el("div", {class: "note", text: (owner ? owner + "." : "") + attribute}),
      el("pre", {class: "diff"}, ...diff.split("\n").map((line) => el("span", {
        class: line.startsWith("+") && !line.startsWith("+++") ? "add" :
          line.startsWith("-") && !line.startsWith("---") ? "del" : line.startsWith("@@") ? "hunk" : "",
        text: line + "\n"}))))));
}

function turnBlock(turn, index, expected, failed) {
  const steps = turn.steps.map((step, i) => el("div", {class: "step"},
    el("div", {class: "note", text: "step " + i}),
    block("model output", step.out), block("decoded", step.decoded),
    ...step.tools.map((t) => block("execution result", t))));
  let expectedTurn = null;
  try { expectedTurn = JSON.parse(expected)[index]; } catch (e) { expectedTurn = null; }
  const changes = turn.changes.length ? table(["environment", "attribute", "before", "after"],
    turn.changes, () => false) : el("p", {class: "note", text: "no state change"});
  return el("div", {class: failed ? "turn failed-turn" : "turn", "data-turn": String(index)},
    el("h4", {text: "turn " + index + (failed ? " · the checker stopped here" : "")}),
    block("user", turn.query), ...steps,
    expectedTurn ? block("expected calls (ground truth)", JSON.stringify(expectedTurn, null, 1)) : null,
    el("strong", {text: "state changes in this turn"}), changes);
}

// -- Notes ------------------------------------------------------------------------------

// One line per distinct note: "<model>: <text>" lines of several models with the same text
// become one line naming how many models and which (at 57 models the notes were one
// paragraph per model and category, three quarters of the page).
function groupedNotes(lines) {
  const names = DOC.models.map((m) => m.name).sort((a, b) => b.length - a.length);
  const groups = new Map();
  for (const line of lines) {
    const model = names.find((n) => line.startsWith(n + ": "));
    const text = model === undefined ? line : line.slice(model.length + 2);
    if (!groups.has(text)) groups.set(text, []);
    if (model !== undefined) groups.get(text).push(model);
  }
  return groups;
}

const NOTE_NAMES = 3;

function noteLine(mark, text, models, cls) {
  if (!models.length) return el("p", {class: cls, text: mark + text});
  const named = models.slice(0, NOTE_NAMES).join(", ");
  const who = models.length === 1 ? models[0] : models.length + " models (" + named +
    (models.length > NOTE_NAMES ? " and " + (models.length - NOTE_NAMES) + " more" : "") + ")";
  const line = el("p", {class: cls + " grouped-note"}, mark + who + ": " + text);
  if (models.length > NOTE_NAMES) {
    line.append(" ", el("details", {class: "note-models"}, el("summary", {text: "all " + models.length + " models"}),
      models.join(", ")));
  }
  return line;
}

// -- Rest -------------------------------------------------------------------------------

function drawDisputed() {
  const rows = Object.entries(DOC.disputed).map(([id, [source, claim]]) => [id, claim, source]);
  document.getElementById("disputed-table").append(table(["case", "claim", "upstream"], rows, () => false));
}

function drawMeta() {
  const m = DOC.meta;
  document.getElementById("meta").textContent = "fcbench " + m.fcbench + " · data " + m.release +
    " · score folders: " + m.score_dirs.join(", ") +
    (m.result_dirs.length ? " · result folders: " + m.result_dirs.join(", ") : "");
  const problems = document.getElementById("problems");
  const skipped = DOC.skipped || [];
  for (const [text, models] of groupedNotes(skipped)) problems.append(noteLine("† ", text, models, "skipped"));
  for (const [text, models] of groupedNotes(DOC.problems)) problems.append(noteLine("", text, models, ""));
  if (!DOC.problems.length && !skipped.length) {
    problems.append(el("p", {class: "note", text: "No problems reading the inputs; no case skipped."}));
  }
}

// Anchored targets (sections, an opened case) stop below the sticky nav, whose height
// depends on how it wraps: --nav-h is the nav's height, kept as the width changes.
function navMargin() {
  const nav = document.querySelector("nav");
  if (nav) document.documentElement.style.setProperty("--nav-h", nav.offsetHeight + 8 + "px");
}

async function main() {
  navMargin();
  window.addEventListener("resize", navMargin);
  DOC = unwireRows(await loadDocument());
  drawMeta();
  rankModels();
  drawSummaries();
  drawPublished();
  drawCategories();
  drawErrors();
  drawUsage();
  drawCorrections();
  drawPerTurn();
  setUpChartSelection();
  document.getElementById("model-filter").addEventListener("input", applyModelFilter);
  for (const id of ["grid-cases", "grid-split"]) {
    document.getElementById(id).addEventListener("input", () => drawGrid(selectedModels()));
  }
  setUpFilters();
  drawCases();
  drawDisputed();
  document.body.setAttribute("data-ready", "1");
  setTimeout(() => drawGrid(selectedModels()), 0);  // after the page is usable
  setTimeout(details, 0);
  openFromAddress();
}

// `report.html#case=<model>/<id>` (both URI-encoded; the compare page links flipped cases
// so) opens that case's drill-down.
function openFromAddress() {
  const found = /^#case=([^/]*)\/(.*)$/.exec(window.location.hash);
  if (!found) return;
  const model = decodeURIComponent(found[1]);
  const id = decodeURIComponent(found[2]);
  const row = DOC.rows.find((r) => DOC.models[r[0]].name === model && r[1] === id);
  if (row) openCase(row).catch((error) => console.error("fcbench report: " + error));
}

main().catch((error) => {
  document.body.setAttribute("data-ready", "error");
  console.error("fcbench report: " + error);
});
