"""Markup and script from the inputs stay text: the report page, the compare page, their
chart labels and the Markdown summary, each opened in a real headless Chromium.

Every text field a score or result folder can fill (model names, case ids, categories, error
types and texts, raw and decoded outputs, questions, functions, expected answers, multi-turn
queries and state changes, problems) holds a payload that would leave a mark if the browser
read it as HTML: an element with class `pwn` (in the SVG charts too) and an image whose
error handler records the field in `window.__pwned` (the page's policy allows inline
handlers, so an injected one would run). The payload's own text must be on the page instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from headless_chromium import Browser

from fcbench.report.compare import CategoryDelta, Comparison, Flip, as_json
from fcbench.report.html.page import render, write_page
from fcbench.report.markdown import summary_markdown
from fcbench.score.aggregate import CategoryScore

READY = "document.body && document.body.dataset.ready"


def payload(where: str) -> str:
    return (f'<i class="pwn">{where}</i><img src=x onerror="window.__pwned='
            f"(window.__pwned||[]).concat('{where}')\"><script>window.__pwned=['{where}']"
            "</script>")


def hostile_document() -> dict[str, Any]:
    """The report document (`collect`'s shape) with a payload in every text from inputs."""
    case, category, kind, other = (payload(w) for w in ("case", "category", "kind", "kind2"))
    score = {"correct": 1, "total": 2, "size": 2, "accuracy": 0.5, "text": "50.00",
             "ci": [0.1, 0.9], "skipped": 0, "undisputed": None}
    single = {"raw": payload("raw"), "decoded": payload("decoded"), "error": payload("error")}
    turn = {"query": payload("query"), "changes": [[payload("env"), payload("path"),
                                                      payload("before"), payload("after")]],
            "steps": [{"out": payload("out"), "decoded": payload("step"),
                       "tools": [payload("tool")], "notes": []}]}
    return {
        "meta": {"fcbench": "0", "release": "r", "interval": "Wilson", "disputed_release": "r",
                 "score_dirs": [payload("score_dir")], "result_dirs": []},
        "categories": ["simple_python", category],
        "groups": {},
        "models": [{  # two of everything: every chart has several series
            "name": payload(name), "score_dir": "s", "has_results": True,
            "scores": {"simple_python": score, category: score},
            "errors": {"simple_python": {kind: 1, other: 1}, category: {kind: 1}},
            "summaries": [["Overall", 0.5, "50.00"], ["Non-Live", 0.5, "50.00"]],
            "usage": {"latency_mean": 1.0, "latency_p95": 2.0, "cost": None,
                      "input_tokens": 1, "output_tokens": 1, "calls": 1},
        } for name in ("model", "model2")],
        "cases": {case: ["simple_python", payload("question"), 0, payload("expected")],
                  "multi_0": [category, payload("mq"), 0, None]},
        "functions": [payload("functions")],
        "rows": [[0, case, 0, kind, 0], [0, "multi_0", 0, kind, 1]],
        "details": [single, {"turns": [turn], "error": payload("turn_error")}],
        "disputed": {case: [payload("source"), payload("claim")]},
        "problems": [payload("problem")],
    }




def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("FCBENCH_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def assert_inert(browser: Browser) -> None:
    """Nothing ran, nothing became an element, in the page or in its SVG charts."""
    assert browser.evaluate("window.__pwned || null") is None
    assert browser.evaluate("document.querySelectorAll('.pwn, img, body script[src]').length") == 0
    assert browser.evaluate("document.querySelectorAll('svg i, svg tspan').length") == 0


def chart_texts(browser: Browser, selector: str) -> str:
    return browser.evaluate(f"[...document.querySelectorAll({selector!r})]"
                            ".map(e => e.textContent).join('\\n')")


def test_report_page_keeps_every_input_text_as_text(browser: Browser, tmp_path: Path) -> None:
    page = write_page(tmp_path / "report.html", render(hostile_document(), payload("title")))
    browser.open(page.as_uri(), READY)
    assert browser.evaluate("document.body.dataset.ready") == "1", browser.console_errors()
    text = browser.evaluate("document.body.innerText")
    for where in ("title", "model", "category", "problem", "score_dir", "kind", "case"):
        assert payload(where).split("<img")[0] in text, where
    # Chart labels: the legend, the heatmap's model axis, the error chart's legend.
    legends = chart_texts(browser, ".legendtext")
    axes = chart_texts(browser, ".ytick, .xtick")
    assert '<i class="pwn">model</i>' in legends and '<i class="pwn">kind</i>' in legends
    assert '<i class="pwn">model</i>' in axes and '<i class="pwn">category</i>' in axes
    assert_inert(browser)

    browser.open_case("#case-table tbody tr:nth-child(1)")  # the single-turn case
    detail = browser.evaluate("document.getElementById('detail').innerText")
    for where in ("case", "question", "raw", "decoded", "error", "expected", "claim", "kind"):
        assert f'<i class="pwn">{where}</i>' in detail, where
    browser.click("#detail details summary")
    assert '<i class="pwn">functions</i>' in browser.evaluate(
        "document.querySelector('#detail details').innerText")
    browser.open_case("#case-table tbody tr:nth-child(2)")  # the multi-turn case
    detail = browser.evaluate("document.getElementById('detail').innerText")
    for where in ("query", "out", "step", "tool", "env", "path", "before", "after",
                  "turn_error"):
        assert f'<i class="pwn">{where}</i>' in detail, where
    browser.screenshot(shots(tmp_path) / "safety-report.png", full_page=True)
    assert_inert(browser)


def hostile_comparison() -> Comparison:
    a = CategoryScore("simple_python", 1, 2, 2)
    b = CategoryScore("simple_python", 2, 2, 2)
    delta = CategoryDelta(payload("cmp_category"), a, b, 2,
                          gained=[Flip(payload("flip"), payload("flip_error"))])
    return Comparison(payload("name_a"), payload("name_b"), [delta],
                      [("Overall", 0.5, 1.0)], [], [])


def test_compare_page_keeps_names_and_flips_as_text(browser: Browser, tmp_path: Path) -> None:
    document = as_json(hostile_comparison())
    page = write_page(tmp_path / "compare.html", render(document, "compare", kind="compare"))
    browser.open(page.as_uri(), READY)
    assert browser.evaluate("document.body.dataset.ready") == "1", browser.console_errors()
    browser.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    text = browser.evaluate("document.body.innerText")
    for where in ("name_a", "name_b", "cmp_category", "flip", "flip_error"):
        assert f'<i class="pwn">{where}</i>' in text, where
    assert '<i class="pwn">cmp_category</i>' in chart_texts(browser, ".xtick")
    browser.screenshot(shots(tmp_path) / "safety-compare.png", full_page=True)
    assert_inert(browser)


def test_markdown_summary_keeps_names_as_text(browser: Browser, tmp_path: Path) -> None:
    """Rendered as a pull-request comment would be (CommonMark with tables, raw HTML on)."""
    from markdown_it import MarkdownIt

    document = hostile_document()
    document["models"][0]["name"] += " | a|b `tick` *star* [link](javascript:x)\nnext"
    markdown = summary_markdown(document)
    body = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    page = tmp_path / "summary.html"
    page.write_text(f"<!DOCTYPE html><html><body>{body}</body></html>", encoding="utf-8")
    browser.open(page.as_uri(), "document.readyState === 'complete'")
    tables = browser.evaluate(
        "[...document.querySelectorAll('table')].map(t => [...t.rows].map(r => r.cells.length))")
    assert tables and all(len(set(widths)) == 1 for widths in tables), tables  # no extra cell
    text = browser.evaluate("document.body.innerText")
    name = document["models"][0]["name"].replace("\n", " ")
    assert name in text  # every character shown as written, on one line
    for where in ("category", "kind"):
        assert f'<i class="pwn">{where}</i>' in text, where
    assert browser.evaluate("document.querySelectorAll('a, em').length") == 0
    assert browser.evaluate("[...document.querySelectorAll('strong')].map(e => e.textContent)"
                            ) == ["Top error types"]  # the summary's own
    assert_inert(browser)
