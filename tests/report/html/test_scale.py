"""Issue 32 in Chromium: a report of 100 models of 2024 categories, read as its users read it.

One folder of 100 models, a few small categories each, some models missing one (so that
their summaries are incomplete), with cases skipped offline (so that there are notes); one
page load serves every check: the page ranks by v1 Overall (the board is 2024 runs only) and
says so, shows no Overall without its ‡ where the run misses groups, keeps the notes in a box
of a set height, fits a 390 px phone with the summary's score on the first screen, and an
opened case's title is not under the sticky nav, on a desktop and on the phone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from headless_chromium import Browser

from fcbench.report.html.collect import collect
from fcbench.report.html.page import render, write_page

MODELS = 100


def _scores(i: int, ids: Any) -> dict[str, tuple[int, list[str], list[str]]]:
    """category -> (cases failed, ids failed, ids skipped) of model i: simple_javascript
    rises with i while exec_simple falls, so that the V4 and v1 Overall orders differ; every
    seventh model has no exec_simple (its v1 Overall is incomplete); rest is skipped but for
    one to twelve cases (the 'rest 0.00†' shape; twelve distinct notes)."""
    js, exe, rest = ids("simple_javascript"), ids("exec_simple"), ids("rest")
    found = {"simple_javascript": js[: 40 - i * 40 // MODELS]}
    categories: dict[str, tuple[int, list[str], list[str]]] = {
        "simple_javascript": (len(found["simple_javascript"]), found["simple_javascript"], [])}
    if i % 7:
        failed = exe[: 10 + i * 80 // MODELS]
        categories["exec_simple"] = (len(failed), failed, exe[-3:])
    categories["rest"] = (1, rest[:1], rest[1 + i % 12:])
    return categories


def write_folder(score_dir: Path) -> list[str]:
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore
    from fcbench.score.runs import dataset_ids

    ids = dataset_ids(DEFAULT_RELEASE)
    names = [f"org-{i % 9}_model-{i:03d}" for i in range(MODELS)]
    for i, name in enumerate(names):
        for category, (wrong, failed, skipped) in _scores(i, ids).items():
            size = len(ids(category))
            total = size - len(skipped)
            extra = {"skipped_count": len(skipped), "skipped": [
                {"id": k, "reason": "the ground truth needs a web service; offline"}
                for k in skipped]} if skipped else None
            write_category_score(
                score_dir, name, CategoryScore(category, total - wrong, total, size),
                [{"id": k, "error_type": "kind_a" if n % 2 else "kind_b"}
                 for n, k in enumerate(failed)], extra)
    return names


@pytest.fixture(scope="module")
def hundred_2024(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory
                 ) -> tuple[dict[str, Any], Path]:
    """The collected document (what the page must show) and the page, written once."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import scoring_sizes
    from fcbench.report.html import _placements
    from fcbench.report.published import load_published
    from fcbench.score.disputed import load_disputed
    from shared_corpus import SHARED

    board = SHARED / "leaderboard"
    if not board.is_dir():
        pytest.skip(f"needs the published CSVs in {board}")
    folder = tmp_path_factory.mktemp("hundred-2024")
    write_folder(folder / "score")
    sizes = scoring_sizes(DEFAULT_RELEASE, None)
    document = collect([folder / "score"], [], DEFAULT_RELEASE, None, sizes, load_disputed())
    document["published"] = _placements([folder / "score"], sizes, DEFAULT_RELEASE,
                                        load_published(board))
    out = write_page(folder / "report.html", render(document, "fcbench report"))
    return document, out




def summary_table(browser: Browser) -> tuple[list[str], list[list[str]]]:
    return browser.evaluate(
        "[[...document.querySelectorAll('#summary-table th')].map(h => h.textContent),"
        " [...document.querySelectorAll('#summary-table tbody tr')]"
        ".map(r => [...r.cells].map(c => c.textContent))]")


def number(text: str) -> float:
    return float(text.split()[0].rstrip("*‡"))


def title_below_nav(browser: Browser) -> float:
    """Opens the third row of the case table (a click as the page gets it) and returns how
    far the opened case's title sits below the sticky nav's bottom edge (px)."""
    row = browser.evaluate("document.querySelector('#case-table tbody tr:nth-child(3)')"
                           ".dataset.row")
    browser.evaluate("document.querySelector('#case-table tbody tr:nth-child(3)').click()")
    browser.wait_for(f"document.getElementById('detail').dataset.row === {json.dumps(row)}")
    browser.wait_for("document.getElementById('detail').getBoundingClientRect().top < 200")
    gap: float = browser.evaluate(
        "document.querySelector('#detail h3').getBoundingClientRect().top -"
        " document.querySelector('nav').getBoundingClientRect().bottom")
    return gap


def test_a_hundred_2024_models_desktop_and_phone(
    hundred_2024: tuple[dict[str, Any], Path], browser: Browser
) -> None:
    document, out = hundred_2024
    browser.resize(1400, 1000)
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    assert browser.evaluate("document.body.dataset.ready") == "1", browser.console_errors()

    # The rows the page rebuilt from their compact encoding are the collected rows.
    assert browser.evaluate("JSON.stringify(DOC.rows)") == json.dumps(
        document["rows"], separators=(",", ":"))

    # Ranked by v1 Overall, said so; V4 Overall would give another order.
    headers, rows = summary_table(browser)
    assert headers[:3] == ["#", "model", "v1 Overall (2024)"], headers
    assert "Ranked by v1 Overall (2024)" in browser.evaluate(
        "document.getElementById('rank-note').textContent")
    assert "ranked by v1 Overall (2024)" in browser.evaluate(
        "document.getElementById('chart-count').textContent")
    v1 = [number(r[2]) for r in rows]
    assert v1 == sorted(v1, reverse=True) and [r[0] for r in rows] == [
        str(k) for k in range(1, MODELS + 1)]
    v4 = [number(r[headers.index("V4 Overall")]) for r in rows]
    assert v4 != sorted(v4, reverse=True)  # the test can tell the two rankings apart

    # No bare Overall where the run misses groups: each cell's ‡ as the one rule says.
    summaries = {m["name"]: {s[0]: s for s in m["summaries"]} for m in document["models"]}
    marked = 0
    for row in rows:
        for label, shown in (("Overall", row[headers.index("V4 Overall")]),
                             ("v1 Overall (2024)", row[2])):
            incomplete = summaries[row[1]][label][4] is not None
            assert ("‡" in shown) == incomplete, (row[1], label, shown)
            marked += incomplete
    assert marked > MODELS  # every V4 Overall, and the v1 Overall of the models missing one
    chart_labels = browser.evaluate(
        "[...document.querySelectorAll('#chart-summaries text.xtick')].map(t => t.textContent)")
    assert "V4 Overall ‡" in chart_labels and "V4 Overall" not in chart_labels

    # The notes: one line per distinct note, the models counted, in a box of a set height
    # whose rest scrolls.
    lines = browser.evaluate("[...document.querySelectorAll('#problems p')].map(p => p.innerText)")
    distinct = {note.split(": ", 1)[1] for note in document["skipped"]}
    assert len(document["skipped"]) > MODELS and len(lines) == len(distinct) > 10, len(lines)
    assert any(line.startswith("† 85 models (") for line in lines), lines  # exec_simple's
    box = browser.evaluate("(() => { const b = document.getElementById('problems');"
                           " return [b.clientHeight, b.scrollHeight,"
                           " getComputedStyle(b).overflowY]; })()")
    assert box[0] <= 400 and box[0] < box[1] and box[2] == "auto", box  # the rest scrolls

    # Sorted by a summary, the model column keeps its width (names on a line or two, not a
    # word a line); scrolled sideways, rank and model stay in view, neither covering the other.
    browser.click(f"#summary-table th:nth-child({headers.index('V4 Overall') + 1})")
    model = browser.evaluate("document.querySelector('#summary-table tbody td:nth-child(2)')"
                             ".getBoundingClientRect().toJSON()")
    assert model["width"] >= 200 and model["height"] <= 50, model
    browser.evaluate("document.getElementById('summary-table').scrollLeft = 2000")
    covered = browser.evaluate(
        "[...document.querySelectorAll('#summary-table tbody tr')].slice(0, 5).map(r => {"
        " const [rank, name] = r.cells; const a = rank.getBoundingClientRect(),"
        " b = name.getBoundingClientRect();"
        " return [document.elementFromPoint(a.left + a.width / 2, a.top + a.height / 2) === rank,"
        " document.elementFromPoint(b.left + 20, b.top + b.height / 2) === name,"
        " a.right <= b.left + 0.5]; })")
    assert covered == [[True, True, True]] * 5, covered

    # Placement: every row names its model, in the ranked table's order; a group given no
    # rank (not run completely: "‡ not ranked", nothing run: "—, not run") never shows a
    # rank among the published rows.
    placed = browser.evaluate("[...document.querySelectorAll('#published-table tbody tr')]"
                              ".map(r => [...r.cells].map(c => c.textContent))")
    assert [p[0].removesuffix(" !") for p in placed] == [r[1] for r in rows]
    by_model = {m["model"]: m["places"] for m in document["published"]["models"]}
    for row in placed:
        for place, cell in zip(by_model[row[0].removesuffix(" !")], row[1:], strict=True):
            assert cell == place["text"], (row[0], place, cell)
            assert ("#" in cell) == (place["rank"] is not None), (row[0], place, cell)
            assert place["rank"] is not None or cell == "—, not run" or cell.endswith(
                "‡ not ranked"), (row[0], place, cell)

    # An opened case's title is not under the sticky nav.
    assert title_below_nav(browser) >= 0

    # A phone: nothing wider than 390 px, the nav wraps, the summary's score on the first
    # screen, charts inside their boxes, an opened case below the nav.
    browser.phone(390, 844)
    browser.evaluate("window.scrollTo(0, 0)")
    browser.wait_for("document.documentElement.clientWidth === 390")
    assert browser.evaluate("document.documentElement.scrollWidth") <= 390
    wider = browser.evaluate(
        "[...document.querySelectorAll('body *')].filter(e => !e.closest('.scroll, .chart'))"
        ".filter(e => e.getBoundingClientRect().right > 390.5).map(e => e.tagName + '#' + e.id)")
    assert wider == []
    nav = browser.evaluate("[...document.querySelectorAll('nav a')].map(a =>"
                           " a.getBoundingClientRect().right)")
    assert max(nav) <= 390
    score = browser.evaluate("document.querySelector('#summary-table tbody tr td:nth-child(3)')"
                             ".getBoundingClientRect().toJSON()")
    assert score["right"] <= 390 and score["bottom"] <= 844, score
    charts = browser.evaluate("[...document.querySelectorAll('.chart')].map(c =>"
                              " c.getBoundingClientRect().right)")
    assert charts and max(charts) <= 390
    assert title_below_nav(browser) >= 0
    assert browser.console_errors() == []


NOT_RUN = ("Live", "Multi-Turn", "Agentic")
"""Placement groups none of whose categories these models ran."""


def test_placement_gives_no_rank_to_groups_not_run(
    hundred_2024: tuple[dict[str, Any], Path], browser: Browser
) -> None:
    _, out = hundred_2024
    browser.resize(1400, 1000)
    browser.open(out.as_uri(), "document.body && document.body.dataset.ready")
    heads = browser.evaluate("[...document.querySelectorAll('#published-table th')]"
                             ".map(h => h.textContent)")
    cells = browser.evaluate("[...document.querySelectorAll('#published-table tbody tr')]"
                             ".map(r => [...r.cells].map(c => c.textContent))")
    ranked = [(row[0], group, row[heads.index(group)]) for row in cells for group in NOT_RUN
              if "#" in row[heads.index(group)]]
    assert ranked == []
