"""`write_report`: the HTML report in a real headless Chromium (Debian's `chromium`), offline.

It opens the report of the 14-model 2024 corpus plus the two 2025 models from disk with the
network emulated offline (and the page's own policy forbidding any fetch), finds no console
errors and no network request, checks that every chart drew its marks, filters the case
table, opens a multi-turn case and a failed single-turn case, and saves screenshots
(`FCBENCH_SCREENSHOTS=DIR` keeps them; they go to the test's temporary folder otherwise).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from headless_chromium import Browser

from fcbench.report.html import write_report
from shared_corpus import V1, V4_RUN

RESULTS = [V1, V4_RUN]
LIMIT = 15 * 1024 * 1024


@pytest.fixture(scope="module")
def report(v1_scores: Path, v4_scores: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    write_report([v1_scores, v4_scores], RESULTS, out, markdown=out.with_suffix(".md"))
    return out




def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("FCBENCH_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def rows_shown(browser: Browser) -> list[list[str]]:
    return browser.evaluate(
        "[...document.querySelectorAll('#case-table tbody tr')]"
        ".map(r => [...r.children].map(c => c.textContent))")


def fits_each_width(browser: Browser, folder: Path, name: str, scroll_to: str | None = None
                    ) -> None:
    """At 1,400 and 800 px wide the page is no wider than the window (a screenshot of each,
    scrolled to the element `scroll_to` when given, in `folder`); 1,400 px again after."""
    for width in (1400, 800):
        browser.resize(width, 1800)
        overflow = browser.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, (width, overflow)
        if scroll_to is not None:
            browser.evaluate(f"document.getElementById({scroll_to!r}).scrollIntoView()")
        browser.screenshot(folder / f"{name}-{width}.png")
    browser.resize(1400, 1800)


def test_report_is_small_and_self_contained(report: Path) -> None:
    size = report.stat().st_size
    assert size < LIMIT, f"{size:,} bytes"
    text = report.read_text(encoding="utf-8")
    assert "http://" not in text.split("<script>", 1)[0]  # no external stylesheet or font
    assert "<script src" not in text and "<link" not in text
    summary = report.with_suffix(".md").read_text()
    assert summary.startswith("## fcbench scores") and "claude-3-opus-20240229" in summary


def round_ticks(values: list[float]) -> bool:
    """From 0, equally spaced by 1, 2, 2.5 or 5 times a power of ten."""
    import math

    step = values[1] - values[0] if len(values) > 1 else 0
    if values[0] != 0 or step <= 0:
        return False
    mantissa = step / 10 ** math.floor(math.log10(step))
    return (any(math.isclose(mantissa, m) for m in (1, 2, 2.5, 5))
            and all(math.isclose(v, k * step) for k, v in enumerate(values)))


def cut_labels(browser: Browser) -> list[str]:
    """The chart texts reaching past their chart's edge (an SVG clips them there)."""
    found: list[str] = browser.evaluate(
        "[...document.querySelectorAll('.chart svg.chart-svg')].flatMap(svg => {"
        " const box = svg.getBoundingClientRect();"
        " return [...svg.querySelectorAll('text')].filter(t => { const r ="
        " t.getBoundingClientRect(); return r.left < box.left - 0.5 || r.right > box.right + 0.5"
        " || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5; })"
        ".map(t => svg.parentNode.id + ': ' + t.textContent); })")
    return found


def test_report_in_chromium(report: Path, browser: Browser, tmp_path: Path) -> None:
    folder = shots(tmp_path)
    browser.open(report.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.body.dataset.ready") == "1", browser.console_errors()
    browser.screenshot(folder / "report-top.png")

    # Every chart drew its marks (bars or heatmap cells), none is empty.
    charts = browser.evaluate(
        "[...document.querySelectorAll('.chart')].map(d => [d.id,"
        " d.querySelectorAll('svg.chart-svg').length,"
        " d.querySelectorAll('rect.bar, rect.cell').length])")
    assert len(charts) == 5, charts
    for chart_id, svgs, marks in charts:
        assert svgs > 0 and marks > 0, (chart_id, svgs, marks)
    # Bar charts' axes are on round numbers (a latency maximum of 4.82 read 1.2/2.4/3.6/4.8).
    for chart in ("chart-summaries", "chart-categories", "chart-usage"):
        ticks = browser.evaluate(f"[...document.querySelectorAll('#{chart} text.ytick')]"
                                 ".map(t => t.textContent)")
        assert round_ticks([float(t) for t in ticks]), (chart, ticks)
    # No label is cut at a chart's edge (the latency chart's model names were, left and
    # below), at 1,400 px and at 800 (the charts are drawn again to the new width).
    assert cut_labels(browser) == []
    browser.resize(800, 1800)
    browser.wait_for("document.querySelector('#chart-usage svg').getAttribute('width') < 800")
    assert cut_labels(browser) == []
    browser.resize(1400, 1800)
    browser.wait_for("document.querySelector('#chart-usage svg').getAttribute('width') > 800")

    # Filter: failed multi-turn cases of one model, then open the first.
    browser.choose("#f-model", "14")  # openai_gpt-oss-120b (the models sort by folder)
    browser.choose("#f-category", "multi_turn_base")
    browser.choose("#f-verdict", "0")
    shown = rows_shown(browser)
    assert shown and all(r[0] == "openai_gpt-oss-120b" and r[2] == "multi_turn_base"
                         and r[3] == "fail" for r in shown)
    count = browser.evaluate("document.getElementById('case-count').textContent")
    assert count.startswith(f"{len(shown)} cases"), count
    browser.open_case("#case-table tbody tr")
    turns = browser.evaluate("document.querySelectorAll('#detail .turn').length")
    assert turns >= 2
    detail = browser.evaluate("document.getElementById('detail').innerText")
    assert "turn 0" in detail and "state changes in this turn" in detail
    assert "multi_turn:" in detail  # the error type
    browser.screenshot(folder / "report-multi-turn.png")

    # Type into the id filter (real key input), then a failed single-turn case.
    browser.choose("#f-model", "")
    browser.choose("#f-category", "simple_python")
    browser.type_text("#f-id", "simple_python_1")
    shown = rows_shown(browser)
    assert shown and all("simple_python_1" in r[1] for r in shown)
    first_failed = next(i for i, r in enumerate(shown) if r[3] == "fail")
    browser.open_case(f"#case-table tbody tr:nth-child({first_failed + 1})")
    detail = browser.evaluate("document.getElementById('detail').innerText")
    for part in ("failed", "question", "raw model output", "expected (possible answers)",
                 "error"):
        assert part in detail, part
    browser.screenshot(folder / "report-single-turn.png")
    # A wrong value: the decoded and expected calls side by side, the differing argument marked.
    kinds = browser.evaluate("[...document.querySelectorAll('#f-error option')].map(o => o.value)")
    browser.evaluate("(() => { const f = document.getElementById('f-id'); f.value = '';"
                     " f.dispatchEvent(new Event('input')); })()")
    browser.choose("#f-error", next(k for k in kinds if k.startswith("value_error")))
    browser.open_case("#case-table tbody tr")
    marked = browser.evaluate("[...document.querySelectorAll('#detail .call-diff tr.differs')]"
                              ".map(r => [...r.children].map(c => c.textContent))")
    assert any(row[1] not in ("(call missing)", "(extra call)") and row[2] != row[3]
               for row in marked), marked
    browser.screenshot(folder / "report-call-diff.png")
    browser.choose("#f-error", "")
    # A passing case: no model output kept, its question, functions and expected answer shown.
    browser.choose("#f-verdict", "1")
    assert rows_shown(browser)[0][3] == "pass"
    browser.open_case("#case-table tbody tr")
    detail = browser.evaluate("document.getElementById('detail').innerText")
    for part in ("passed", "question", "functions offered", "expected (possible answers)",
                 "output of failed cases only"):
        assert part in detail, part
    assert "raw model output" not in detail

    assert browser.console_errors() == []
    requested = [u for u in browser.requested_urls() if not u.startswith(("file:", "data:",
                                                                           "blob:", "about:"))]
    assert requested == []


def test_compare_page_in_chromium(v1_scores: Path, browser: Browser, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from fcbench.cli import main

    out = tmp_path / "compare.html"
    a, b = "gpt-4o-2024-08-06-FC", "claude-3-opus-20240229"
    result = CliRunner().invoke(main, ["compare", f"{v1_scores}:{a}", f"{v1_scores}:{b}",
                                       "--html", str(out)])
    assert result.exit_code == 0, result.output
    before = len(browser.console_errors())
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.body.dataset.ready") == "1"
    assert browser.evaluate("document.querySelectorAll('#chart-deltas rect.bar').length") > 0
    text = browser.evaluate("document.body.innerText")
    assert "McNemar exact" in text and "simple_python" in text
    headers = browser.evaluate(
        "[...document.querySelectorAll('#category-table th')].map(h => h.textContent)")
    assert headers[1:3] == [a, b]  # the models' names, not A and B
    intervals = browser.evaluate(
        "[...document.querySelectorAll('#summary-table tbody tr')]"
        ".map(r => r.lastChild.textContent)")
    assert intervals and all(re.fullmatch(r"\[[-+]\d+\.\d\d, [-+]\d+\.\d\d\]|N/A", i)
                             for i in intervals) and any(i != "N/A" for i in intervals)
    browser.screenshot(shots(tmp_path) / "compare.png")
    assert browser.console_errors()[before:] == []


def test_report_after_run_never_stops_the_run(
    v4_scores: Path, tmp_path: Path
) -> None:
    import shutil

    from fcbench.report.html import report_after_run

    score_dir = tmp_path / "score"
    shutil.copytree(v4_scores / "openai_gpt-oss-20b", score_dir / "openai_gpt-oss-20b")
    notes: list[str] = []
    out = report_after_run(score_dir, RESULTS[1], note=notes.append)
    assert out == score_dir / "report.html" and out.stat().st_size > 0
    assert notes == [f"report: {out}"]
    notes.clear()
    assert report_after_run(tmp_path / "missing", None, note=notes.append) is None
    assert len(notes) == 1 and "no such score folder" in notes[0]


def test_skipped_cases_are_never_a_score(
    fetched_home: Path, browser: Browser, tmp_path: Path
) -> None:
    """Offline exec run: every `rest` case skipped, two `exec_simple` cases skipped. No 0.00
    for rest anywhere, the skipped counts beside the scores and the summaries over them, the
    reasons in the notes; the Markdown summary likewise."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore
    from fcbench.score.runs import dataset_ids

    ids = dataset_ids(DEFAULT_RELEASE)
    score_dir = tmp_path / "score"

    def skipped(names: list[str]) -> dict[str, object]:
        return {"skipped_count": len(names),
                "skipped": [{"id": i, "reason": "needs the network"} for i in names]}

    rest, simple = ids("rest"), ids("exec_simple")
    write_category_score(score_dir, "m", CategoryScore("rest", 0, 0, len(rest)), [],
                         skipped(rest))
    write_category_score(score_dir, "m", CategoryScore("exec_simple", len(simple) - 3,
                                                       len(simple) - 2, len(simple)),
                         [{"id": simple[0], "error_type": "executable_checker:wrong"}],
                         skipped(simple[-2:]))
    # Issue 32: 0 of 1 judged, the rest skipped, was "0.00†" in the scale's brightest colour.
    write_category_score(score_dir, "m2", CategoryScore("rest", 0, 1, len(rest)),
                         [{"id": rest[0], "error_type": "executable_checker:wrong"}],
                         skipped(rest[1:]))
    out = tmp_path / "report.html"
    write_report([score_dir], [], out, markdown=tmp_path / "report.md")
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.body.dataset.ready") == "1", browser.console_errors()
    cells = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('#category-table tbody tr')]"
        ".map(r => [r.cells[0].textContent, r.cells[1].textContent]))")
    assert cells["rest"] == f"N/A ({len(rest)} skipped)"
    assert cells["exec_simple"].startswith(f"{100 * (len(simple) - 3) / (len(simple) - 2):.2f} "
                                           f"({len(simple) - 3}/{len(simple) - 2}) †2 skipped")
    summary = browser.evaluate(
        "[...document.querySelectorAll('#summary-table th')].map(h => h.textContent)")
    row = browser.evaluate(
        "[...document.querySelectorAll('#summary-table tbody td')].map(c => c.textContent)")
    exec_summary = row[summary.index("v1 Exec Summary (2024)")]
    assert exec_summary.endswith(f"†{len(rest) + 2} skipped"), exec_summary
    heatmap = browser.evaluate("[...document.querySelectorAll('#chart-heatmap .hm text,"
                               " #chart-heatmap text')].map(t => t.textContent)")
    assert "0.00" not in heatmap and "not judged" in heatmap
    cell = browser.evaluate("[...document.querySelectorAll('#chart-heatmap rect.cell')]"
                            ".map(c => [c.getAttribute('fill'), c.textContent])")
    [(fill, tip)] = [c for c in cell if c[1].startswith("m2 · rest")]
    assert fill == "url(#not-judged)" and f"0/1) †{len(rest) - 1} skipped" in tip, (fill, tip)
    notes = browser.evaluate("document.getElementById('problems').innerText")
    assert f"m: rest: {len(rest)} of {len(rest)} cases skipped, not judged " \
           f"({len(rest)} needs the network)" in notes
    assert "No problems" not in notes
    markdown = (tmp_path / "report.md").read_text()
    assert f"| rest | N/A ({len(rest)} skipped) |" in markdown
    assert "0.00" not in markdown.split("| rest |")[1].split("|")[0]  # m's column
    browser.screenshot(shots(tmp_path) / "report-skipped.png", full_page=True)


def test_placement_on_the_published_board_in_the_report(
    fetched_home: Path, browser: Browser, tmp_path: Path
) -> None:
    """A perfect score folder and a partial one (simple_python only) placed among the 109
    published rows of an offline copy; the partial one is flagged."""
    from fcbench.api import dataset_sizes
    from fcbench.core import categories as reg
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.report.published import load_published
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore
    from shared_corpus import SHARED

    board_dir = SHARED / "leaderboard"
    if not board_dir.is_dir():
        pytest.skip(f"needs the published CSVs in {board_dir}")
    sizes = dataset_sizes(DEFAULT_RELEASE, None)
    score_dir = tmp_path / "score"
    for name in reg.ALL_SCORING:
        size = sizes[name]
        write_category_score(score_dir, "perfect", CategoryScore(name, size, size, size), [])
    write_category_score(score_dir, "half", CategoryScore("simple_python", 200, 400, 400),
                         [{"id": f"simple_python_{i}"} for i in range(200)])
    out = tmp_path / "report.html"
    write_report([score_dir], [], out, published=load_published(board_dir))
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.body.dataset.ready") == "1", browser.console_errors()
    rows = browser.evaluate("[...document.querySelectorAll('#published-table tbody tr')]"
                            ".map(r => [...r.cells].map(c => c.textContent))")
    by_model = {row[0]: row[1:] for row in rows}
    assert by_model["perfect"][0] == "100.00 #1/110"
    # V4 Overall and Non-Live: categories not run, no rank; the rest: nothing run
    assert by_model["half"][2:] == ["—, not run"] * 3
    assert all(re.fullmatch(r"\d+\.\d\d‡ not ranked", cell) for cell in by_model["half"][:2])
    text = browser.evaluate("document.getElementById('published').innerText")
    assert "109 published models" in text
    assert "‡ half: Non-Live not ranked: missing 5 of 6 categories" in text
    assert "half: no rank comparable with the published rows" in text
    assert "perfect: comparable: V4 Overall #1/110, Non-Live #1/110" in text
    assert "! perfect" not in text
    browser.screenshot(shots(tmp_path) / "report-published.png", full_page=True)


def hundred_models(score_dir: Path) -> list[str]:
    """100 models on three categories, accuracies spread so that the ranking is known."""
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore

    names = [f"model-{i:03d}" for i in range(100)]
    for i, name in enumerate(names):
        for category, size in (("simple_python", 400), ("multiple", 200), ("irrelevance", 240)):
            wrong = (i * 7 + len(category)) % size
            failures = [{"id": f"{category}_{k}", "error_type": f"kind_{k % 12}"}
                        for k in range(wrong)]
            write_category_score(score_dir, name, CategoryScore(category, size - wrong, size,
                                                                size), failures)
    return names


@pytest.fixture(scope="module")
def hundred(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[list[str], Path, Path]:
    """The 100 models' names, score folder and report, written once for the two tests that
    open it (each opens the page afresh)."""
    folder = tmp_path_factory.mktemp("hundred")
    names = hundred_models(folder / "score")
    out = folder / "report.html"
    write_report([folder / "score"], [], out)
    return names, folder / "score", out


def test_a_hundred_models(hundred: tuple[list[str], Path, Path], browser: Browser,
                          tmp_path: Path) -> None:
    """The selection (top 10 by V4 Overall by default, then a search) drives every chart;
    the summary is in rank order and sorts by a header; nothing overflows the page at 1,400
    and 800 px (wide tables scroll inside their box)."""
    names, _, out = hundred
    assert out.stat().st_size < 4 * 1024 * 1024
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.body.dataset.ready") == "1", browser.console_errors()

    def column(index: int) -> list[str]:
        return browser.evaluate("[...document.querySelectorAll('#summary-table tbody tr')]"
                                f".map(r => r.cells[{index}].textContent)")

    headers = browser.evaluate(
        "[...document.querySelectorAll('#summary-table th')].map(h => h.textContent)")
    # Three 2024 categories each: ranked by v1 Overall (V4 Overall would count Live,
    # Multi-Turn and Agentic as 0), its column right after the model's.
    assert headers[:3] == ["#", "model", "v1 Overall (2024)"], headers
    overall = [float(v.rstrip("*‡")) for v in column(2)]
    assert len(overall) == 100 and overall == sorted(overall, reverse=True)
    assert column(0) == [str(i) for i in range(1, 101)]  # the rank first, then the model
    top = column(1)[:10]

    def charted() -> dict[str, list[str]]:
        return browser.evaluate(
            "({summaries: [...document.querySelectorAll('#chart-summaries .legendtext')]"
            ".map(e => e.textContent), heatmap: [...document.querySelectorAll("
            "'#chart-heatmap text.ytick')].map(e => e.textContent), intervals: [...document"
            ".querySelectorAll('#chart-categories .legendtext')].map(e => e.textContent)})")

    shown = charted()
    assert shown == {"summaries": top, "heatmap": top, "intervals": top}
    browser.evaluate("(() => { const t = document.getElementById('chart-top'); t.value = '3';"
                     " t.dispatchEvent(new Event('input', {bubbles: true})); })()")
    assert charted()["heatmap"] == top[:3] and charted()["summaries"] == top[:3]
    browser.type_text("#chart-search", "model-05")
    found = sorted(n for n in names if "model-05" in n)
    assert sorted(charted()["heatmap"]) == found[:3] or len(charted()["heatmap"]) == 3
    assert all("model-05" in n for n in charted()["summaries"])

    browser.click("#summary-table th:nth-child(2)")  # model: A to Z
    assert column(1) == sorted(names)
    browser.click("#summary-table th:nth-child(2)")  # again: Z to A
    assert column(1) == sorted(names, reverse=True)
    fits_each_width(browser, shots(tmp_path), "report-100-models")
    assert browser.console_errors() == []


def round_steps(ticks: list[float]) -> bool:
    """Ticks from 0 on one step of 1, 2, 2.5 or 5 × 10^k, at most 7 of them."""
    import math

    if len(ticks) < 2 or len(ticks) > 8 or ticks[0] != 0:
        return False
    step = ticks[1]
    mantissa = step / 10 ** math.floor(math.log10(step))
    return (any(math.isclose(mantissa, m) for m in (1, 2, 2.5, 5))
            and all(math.isclose(t, i * step) for i, t in enumerate(ticks)))


def test_a_flipped_case_links_to_its_drill_down(
    v1_scores: Path, browser: Browser, tmp_path: Path
) -> None:
    """Two models with their report in their score folder: the compare page links each
    flipped case to the failing side's report, which opens that case."""
    import shutil

    from click.testing import CliRunner

    from fcbench.cli import main

    a, b = "gpt-4o-2024-08-06-FC", "claude-3-opus-20240229"
    scores = tmp_path / "scores"
    for model in (a, b):
        shutil.copytree(v1_scores / model, scores / model)
    write_report([scores], [V1], scores / "report.html")
    out = tmp_path / "compare.html"
    result = CliRunner().invoke(main, ["compare", f"{scores}:{a}", f"{scores}:{b}",
                                       "--html", str(out)])
    assert result.exit_code == 0, result.output
    # The links are relative to the page (absolute file:// ones broke once shared): the
    # page and the score folder moved together still open the case.
    moved = tmp_path / "shared"
    shutil.copytree(scores, moved / "scores")
    shutil.copy(out, moved / "compare.html")
    shutil.rmtree(scores)
    out = moved / "compare.html"
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    link = browser.evaluate(
        "(() => { const d = document.querySelector('#flips details:last-of-type');"
        " const a = d.querySelector('a');"
        " return [d.querySelector('summary').textContent, a.textContent, a.getAttribute('href'),"
        " a.href]; })()")
    kind, case_id, written, href = link
    failing = a if "gained" in kind else b
    assert written.startswith("scores/report.html#case="), written
    # The deltas chart's y-axis on round steps (1, 2, 2.5, 5 × 10^k): it read 3/6/9/13.
    ticks = browser.evaluate("[...document.querySelectorAll('#chart-deltas .ytick')]"
                             ".map(t => t.textContent)")
    assert round_steps([float(t) for t in ticks]), ticks
    for top in (12.5, 100, 3, 0.07, 47.3):
        found = browser.evaluate(f"niceTicks({top}).map(tickText)")
        assert round_steps([float(t) for t in found]) and float(found[-1]) >= top, (top, found)
    assert browser.evaluate("niceTicks(12.5).map(tickText)") == [
        "0", "2.5", "5", "7.5", "10", "12.5"]
    assert href.startswith((moved / "scores" / "report.html").resolve().as_uri() + "#case=")
    opened = "(document.getElementById('detail') || {dataset: {}}).dataset.row !== undefined"
    browser.open(href, opened)
    detail = browser.evaluate("document.getElementById('detail').innerText")
    assert detail.startswith(f"{case_id} · {failing} · failed"), detail[:200]


def test_a_multi_turn_failure_marks_its_turn_and_diffs_the_state(
    report: Path, browser: Browser, tmp_path: Path
) -> None:
    """A state mismatch of a 2025 model: the turn the checker stopped at is marked (the one
    turn so marked, the one the note names) and the environments are shown as a diff."""
    browser.open(report.as_uri(), "document.body && document.body.dataset.ready")
    browser.choose("#f-model", "14")  # openai_gpt-oss-120b
    browser.choose("#f-error", "multi_turn:instance_state_mismatch")
    assert rows_shown(browser)
    browser.open_case("#case-table tbody tr")
    marked = browser.evaluate("[...document.querySelectorAll('#detail .turn.failed-turn')]"
                              ".map(t => t.dataset.turn)")
    note = browser.evaluate("[...document.querySelectorAll('#detail p.fail')]"
                            ".map(p => p.textContent).join(' ')")
    assert len(marked) == 1 and f"stopped at turn {marked[0]}" in note, (marked, note)
    lines = browser.evaluate("[...document.querySelectorAll('#detail pre.diff span')]"
                             ".map(s => [s.className, s.textContent])")
    assert lines[0][1].startswith("--- ground truth") and lines[1][1].startswith("+++ model")
    assert any(kind == "del" for kind, _ in lines) or any(kind == "add" for kind, _ in lines)
    browser.evaluate("document.querySelector('#detail .failed-turn').scrollIntoView()")
    browser.screenshot(shots(tmp_path) / "report-multi-turn-failed-turn.png")
    assert browser.console_errors() == []


def failed_sets(score_dir: Path) -> dict[str, set[str]]:
    """model -> ids of its failed cases, read from its score files."""
    from fcbench.results.score_files import iter_score_files, read_score_file

    failed: dict[str, set[str]] = {}
    for model, _, path in iter_score_files(score_dir):
        failed.setdefault(model, set()).update(str(r["id"]) for r in read_score_file(path)[1])
    return failed


def test_the_case_grid_and_the_model_filter(
    hundred: tuple[list[str], Path, Path], browser: Browser, tmp_path: Path
) -> None:
    """100 models: the grid holds the charted models only, the hardest cases first (in the
    order computed here from the score files), the models that fail together ranked by
    Jaccard; the model filter narrows every table (rows, and the category table's
    columns); nothing overflows at 1,400 and 800 px."""
    _, score_dir, out = hundred
    failed = failed_sets(score_dir)
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    browser.wait_for("document.getElementById('grid').dataset.drawn")  # drawn after ready
    top = browser.evaluate("[...document.querySelectorAll('#summary-table tbody tr')]"
                           ".slice(0, 10).map(r => r.cells[1].textContent)")
    grid_models = browser.evaluate(
        "[...document.querySelectorAll('#grid-table th.model')].map(h => h.textContent)")
    assert sorted(grid_models) == sorted(top)
    counts = {case: sum(case in failed[m] for m in top) for m in top for case in failed[m]}
    expected = sorted(counts, key=lambda c: (-counts[c], c))[:30]
    split = [c for c in sorted(counts, key=lambda c: (-counts[c], c)) if counts[c] < 10][:30]
    # It opens on the cases that tell the charted models apart (not a block every model failed).
    assert browser.evaluate("[...document.querySelectorAll('#grid-table tbody tr')]"
                            ".map(r => r.dataset.case)") == split
    browser.click("#grid-split")  # every case, the hardest first
    rows = browser.evaluate("[...document.querySelectorAll('#grid-table tbody tr')]"
                            ".map(r => [r.dataset.case, r.querySelectorAll('td.f').length])")
    assert [case for case, _ in rows] == expected
    assert [n for _, n in rows] == [counts[c] for c in expected]
    pairs = [(a, b) for i, a in enumerate(top) for b in top[i + 1:]]
    best = max(len(failed[a] & failed[b]) / len(failed[a] | failed[b]) for a, b in pairs
               if failed[a] | failed[b])
    first = browser.evaluate("[...document.querySelector('#together-table tbody tr').cells]"
                             ".map(c => c.textContent)")
    assert first[2] == f"{best:.2f}", first

    browser.evaluate("(() => { const t = document.getElementById('chart-top'); t.value = '3';"
                     " t.dispatchEvent(new Event('input', {bubbles: true})); })()")
    assert browser.evaluate("document.querySelectorAll('#grid-table th.model').length") == 3
    browser.click("#grid-table tbody tr td.cell.f")
    browser.wait_for("document.getElementById('detail').classList.contains('open')")

    browser.type_text("#model-filter", "model-05")
    visible = browser.evaluate(
        "[...document.querySelectorAll('#summary-table tbody tr:not(.filtered-out)')]"
        ".map(r => r.cells[1].textContent)")
    assert sorted(visible) == [f"model-05{i}" for i in range(10)]
    columns = browser.evaluate(
        "[...document.querySelectorAll('#category-table thead th:not(.filtered-out)')]"
        ".map(h => h.textContent)")
    assert columns[0] == "category" and sorted(columns[1:]) == sorted(visible)
    browser.click("#summary-table th:nth-child(1)")  # a sort keeps the filter
    assert browser.evaluate("document.querySelectorAll("
                            "'#summary-table tbody tr:not(.filtered-out)').length") == 10
    fits_each_width(browser, shots(tmp_path), "report-100-models-grid", scroll_to="grid")
    assert browser.console_errors() == []


def test_corrections_show_both_ways(fetched_home: Path, browser: Browser, tmp_path: Path) -> None:
    """A run under a corrections profile: a section lists each corrected category with its
    score corrected and as upstream, the V4 Overall both ways, and every corrected case with
    its upstream numbers and both verdicts; a default run has no such section."""
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore

    case = {"id": "simple_python_3", "fix": "ground-truth-enum-units", "upstream": [1329, 1314],
            "valid": True, "upstream_valid": False}
    header = {"corrections": "community-2026", "corrections_upstream": {
        "correct_count": 389, "total_count": 400, "accuracy": 389 / 400, "cases": [case]}}
    failures = [{"id": f"simple_python_{k}", "error_type": "value_error:others"}
                for k in (10, 11, 12, 13, 14, 15, 16, 17, 18, 19)]
    write_category_score(tmp_path / "fixed", "org/fixed-model",
                         CategoryScore("simple_python", 390, 400, 400), failures, header)
    write_category_score(tmp_path / "plain", "plain-model",
                         CategoryScore("simple_python", 390, 400, 400), failures)
    out = tmp_path / "report.html"
    write_report([tmp_path / "fixed", tmp_path / "plain"], [], out)
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.getElementById('corrections').hidden") is False

    def cells(selector: str) -> list[list[str]]:
        return browser.evaluate(f"[...document.querySelectorAll('{selector} tbody tr')]"
                                ".map(r => [...r.cells].map(c => c.textContent))")

    scores = cells("#corrections-table")
    assert ["org_fixed-model", "community-2026", "simple_python", "97.50", "97.25"] in scores
    overall = next(r for r in scores if r[2] == "V4 Overall")
    assert float(overall[3]) >= float(overall[4]) > 0  # the fix gained a case (of ~4,800)
    assert cells("#corrections-cases") == [["org_fixed-model", "simple_python_3",
                                             "simple_python", "ground-truth-enum-units",
                                             "#1329, #1314", "pass", "fail"]]
    assert all(r[0] != "plain-model" for r in scores)
    browser.evaluate("document.getElementById('corrections').scrollIntoView()")
    browser.screenshot(shots(tmp_path) / "report-corrections.png")
    write_report([tmp_path / "plain"], [], out)
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.getElementById('corrections').hidden") is True
    assert browser.console_errors() == []


def test_per_turn_accuracy_is_shown_as_fcbench_metric(
        fetched_home: Path, browser: Browser, tmp_path: Path) -> None:
    """The per-turn files beside a multi-turn score file feed the report's data (`per_turn`,
    with each case's turns) and a section of their own, named as fcbench's metric; a run
    without them has no such section. Hand count: base 2 of 2 and 1 of 3 turns (3 of 5),
    miss_param 1 of 2 (its first turn expects nothing), all 4 of 7."""
    from fcbench.results.per_turn import write_per_turn
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore
    from fcbench.score.per_turn import summarise

    failures = [{"id": "multi_turn_base_1", "error_type": "multi_turn:instance_state_mismatch"}]
    write_category_score(tmp_path / "score", "org/turns-model",
                         CategoryScore("multi_turn_base", 199, 200, 200), failures)
    base = summarise("multi_turn_base", [("multi_turn_base_0", [True, True, None]),
                                         ("multi_turn_base_1", [True, False, False])])
    assert base is not None
    write_per_turn(tmp_path / "score", "org/turns-model", base.as_json())
    write_category_score(tmp_path / "score", "org/turns-model",
                         CategoryScore("multi_turn_miss_param", 199, 200, 200),
                         [{"id": "multi_turn_miss_param_0",
                           "error_type": "multi_turn:empty_turn_model_response"}])
    miss = summarise("multi_turn_miss_param", [("multi_turn_miss_param_0", [None, True, False])])
    assert miss is not None
    write_per_turn(tmp_path / "score", "org/turns-model", miss.as_json())
    out = tmp_path / "report.html"
    write_report([tmp_path / "score"], [], out)
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.getElementById('per-turn').hidden") is False
    heading = browser.evaluate("document.querySelector('#per-turn h2').textContent")
    assert heading == "Per-turn accuracy (fcbench metric)"
    rows = browser.evaluate("[...document.querySelectorAll('#per-turn-table tbody tr')]"
                            ".map(r => [...r.cells].map(c => c.textContent))")
    assert rows == [["org_turns-model", "multi_turn_base", "60.00", "3", "5"],
                    ["org_turns-model", "multi_turn_miss_param", "50.00", "1", "2"],
                    ["org_turns-model", "all turns", "57.14", "4", "7"]]
    assert browser.console_errors() == []
    plain = tmp_path / "plain"
    write_category_score(plain, "plain-model", CategoryScore("multi_turn_base", 199, 200, 200),
                         failures)
    write_report([plain], [], out)
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.getElementById('per-turn').hidden") is True
