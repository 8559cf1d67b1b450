"""Placement on the published leaderboard: the six CSVs served from loopback as the site
serves them, fetched once and cached with date and checksums, read offline from a copy; every
published model's rank reproduced from its own published category scores; a perfect score
folder, a smoke run and the v4 corpus models placed from the command line."""

from __future__ import annotations

import hashlib
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from fcbench.core import categories as reg
from fcbench.report import published as pub
from fcbench.report.csv_files import ModelEntry, unknown_model
from fcbench.score.aggregate import CategoryScore, with_missing
from shared_corpus import SHARED

BOARD = SHARED / "leaderboard"
PUBLISHED_MODELS = 109  # the README: 109 models (the issue says 108)

# Where each category's published accuracy is: (file, column).
COLUMNS = {
    "simple_python": ("data_non_live.csv", "Python Simple AST"),
    "simple_java": ("data_non_live.csv", "Java Simple AST"),
    "simple_javascript": ("data_non_live.csv", "JavaScript Simple AST"),
    "multiple": ("data_non_live.csv", "Multiple AST"),
    "parallel": ("data_non_live.csv", "Parallel AST"),
    "parallel_multiple": ("data_non_live.csv", "Parallel Multiple AST"),
    "irrelevance": ("data_non_live.csv", "Irrelevance Detection"),
    "live_simple": ("data_live.csv", "Python Simple AST"),
    "live_multiple": ("data_live.csv", "Python Multiple AST"),
    "live_parallel": ("data_live.csv", "Python Parallel AST"),
    "live_parallel_multiple": ("data_live.csv", "Python Parallel Multiple AST"),
    "live_irrelevance": ("data_live.csv", "Irrelevance Detection"),
    "live_relevance": ("data_live.csv", "Relevance Detection"),
    "multi_turn_base": ("data_multi_turn.csv", "Base"),
    "multi_turn_miss_func": ("data_multi_turn.csv", "Miss Func"),
    "multi_turn_miss_param": ("data_multi_turn.csv", "Miss Param"),
    "multi_turn_long_context": ("data_multi_turn.csv", "Long Context"),
    "web_search_base": ("data_agentic.csv", "Web Search Base"),
    "web_search_no_snippet": ("data_agentic.csv", "Web Search No Snippet"),
    "memory_kv": ("data_agentic.csv", "Memory KV"),
    "memory_vector": ("data_agentic.csv", "Memory Vector"),
    "memory_rec_sum": ("data_agentic.csv", "Memory Recursive Summarization"),
}


class Site:
    """A loopback web server holding the six files, logging the paths asked for."""

    def __init__(self) -> None:
        asked = self.asked = []

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args: object, **kwargs: object) -> None:
                super().__init__(*args, directory=str(BOARD), **kwargs)  # type: ignore[arg-type]

            def log_message(self, *args: object) -> None:
                asked.append(self.path)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Site]:
    if not BOARD.is_dir():
        pytest.skip(f"needs the published CSVs in {BOARD}")
    served = Site()
    monkeypatch.setenv(pub.URL_ENV, served.url)
    monkeypatch.setenv("FCBENCH_HOME", str(tmp_path / "home"))
    yield served
    served.stop()


def test_fetched_once_cached_with_date_and_checksums(site: Site, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    board = pub.load_published(cache_dir=cache)
    assert board.models == PUBLISHED_MODELS and board.fetched_at and board.source == site.url
    assert sorted(site.asked) == sorted(f"/{name}" for name in pub.FILES)
    for name in pub.FILES:
        assert board.sha256[name] == hashlib.sha256((BOARD / name).read_bytes()).hexdigest()
    site.stop()  # offline from now on: the cache answers
    again = pub.load_published(cache_dir=cache)
    assert again.tables == board.tables and again.fetched_at == board.fetched_at
    (cache / "data_live.csv").write_text("Rank,Model\n1,tampered\n")
    with pytest.raises(pub.PublishedError, match="cannot fetch the published leaderboard"):
        pub.load_published(cache_dir=cache)  # checksum differs: asked again, and no site


def test_an_offline_copy_a_folder_or_one_file(tmp_path: Path) -> None:
    if not BOARD.is_dir():
        pytest.skip(f"needs the published CSVs in {BOARD}")
    assert pub.load_published(BOARD).models == PUBLISHED_MODELS
    only = pub.load_published(BOARD / "data_overall.csv")
    assert list(only.tables) == ["data_overall.csv"]
    with pytest.raises(pub.PublishedError, match="no such file or folder"):
        pub.load_published(tmp_path / "nowhere")
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    with pytest.raises(pub.PublishedError, match="not a leaderboard CSV"):
        pub.load_published(tmp_path / "x.csv")


def entry_from_published(board: pub.PublishedBoard, model: str,
                         sizes: dict[str, int]) -> ModelEntry:
    """A model's scores rebuilt from its published per-category accuracies."""
    scores = {}
    for category, (file_name, column) in COLUMNS.items():
        row = next(r for r in board.tables[file_name] if r["Model"] == model)
        accuracy = pub.percent(row[column])
        assert accuracy is not None, (model, column)
        size = sizes[category]
        scores[category] = CategoryScore(category, round(accuracy * size / 100), size, size)
    return ModelEntry(model, unknown_model(model), with_missing(scores, reg.ALL_SCORING, sizes))


def test_every_published_rank_is_reproduced_from_its_published_scores(
    fetched_home: Path,
) -> None:
    """Each model, its Overall recomputed by fcbench's formulas from its published category
    cells, placed among the 108 other rows, lands on its published rank (models whose
    published Overall ties another's can take either place and are counted apart)."""
    if not BOARD.is_dir():
        pytest.skip(f"needs the published CSVs in {BOARD}")
    from fcbench.api import dataset_sizes
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    sizes = dataset_sizes(DEFAULT_RELEASE, None)
    board = pub.load_published(BOARD)
    rows = board.tables["data_overall.csv"]
    overall = [pub.percent(r["Overall Acc"]) for r in rows]
    reproduced = tied = 0
    for index, row in enumerate(rows):
        entry = entry_from_published(board, row["Model"], sizes)
        value = pub.user_value(entry, "data_overall.csv")
        assert value == pytest.approx(overall[index], abs=0.011), row["Model"]
        others = overall[:index] + overall[index + 1:]
        rank, ties = pub.rank_among(value, others)
        if ties or overall.count(overall[index]) > 1:
            tied += 1
            continue
        assert rank == int(row["Rank"]), (row["Model"], value, rank)
        reproduced += 1
    assert reproduced + tied == PUBLISHED_MODELS and reproduced >= 100, (reproduced, tied)


def write_perfect_folder(score_dir: Path, sizes: dict[str, int]) -> None:
    """What a ground-truth run of every V4 category scores: every case right."""
    from fcbench.results.score_files import write_category_score

    for name in reg.ALL_SCORING:
        write_category_score(score_dir, "ground-truth", CategoryScore(name, sizes[name],
                                                                      sizes[name], sizes[name]),
                             [])


def test_placed_from_the_command_line(
    site: Site, fetched_home: Path, v4_scores: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fcbench.api import dataset_sizes
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.pipeline import run

    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))  # the data set is there
    monkeypatch.setattr(pub, "_default_cache", lambda: tmp_path / "published-cache")
    perfect = tmp_path / "perfect"
    write_perfect_folder(perfect, dataset_sizes(DEFAULT_RELEASE, None))
    runner = CliRunner()
    result = runner.invoke(main, ["leaderboard", str(perfect), "--published"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"{PUBLISHED_MODELS} published models ({site.url}, fetched " in out
    assert "100.00 #1/110" in out and "! ground-truth" not in out
    assert "ground-truth: comparable: V4 Overall #1/110, Non-Live #1/110," in out
    assert "ground-truth: V4 Overall 100.00, #1 of 110 (below: Claude-Opus-4-5-20251101 (FC)" \
           " (77.47))" in out

    # A smoke run: partial, most categories not run: no group is ranked, each says why.
    run("ground-truth", categories=["simple_python"], limit=3,
        result_dir=tmp_path / "result", score_dir=tmp_path / "smoke")
    result = runner.invoke(main, ["leaderboard", str(tmp_path / "smoke"), "--published"])
    assert result.exit_code == 0, result.output
    assert re.search(r"^  ground-truth-FC: V4 Overall \d+\.\d\d‡ not ranked; Non-Live "
                     r"\d+\.\d\d‡ not ranked; Live —, not run; Multi-Turn —, not run; "
                     r"Agentic —, not run$", result.stdout, re.MULTILINE), result.stdout
    assert "ground-truth-FC: no rank comparable with the published rows" in result.stdout
    assert "‡ ground-truth-FC: Non-Live not ranked: missing 5 of 6 categories" in result.stdout

    # The two v4 corpus models, from the cache (the site is gone).
    site.stop()
    result = runner.invoke(main, ["leaderboard", str(v4_scores), "--published"])
    assert result.exit_code == 0, result.output
    board = pub.load_published(BOARD)
    published = [pub.percent(r["Non-Live Overall Acc"])
                 for r in board.tables["data_non_live.csv"]]
    for line in result.stdout.splitlines():
        if line.startswith("  openai_gpt-oss"):  # V4 Overall: multi_turn_long_context not run
            assert "V4 Overall " in line and "‡ not ranked; Non-Live " in line, line
            value = float(line.split("Non-Live ")[1].split(" ")[0])
            rank = int(line.split("Non-Live ")[1].split("#")[1].split("/")[0])
            assert rank == 1 + sum(v is not None and v > value for v in published), line
            break
    else:
        raise AssertionError(result.stdout)
    bad = runner.invoke(main, ["leaderboard", str(v4_scores), "--published-from",
                               str(tmp_path / "nowhere")])
    assert bad.exit_code == 2 and bad.stderr.strip().count("\n") == 0
    assert "no such file or folder" in bad.stderr


def test_rank_counts_only_rows_strictly_above_and_reports_ties() -> None:
    assert pub.rank_among(50.0, [60.0, 50.0, None, 40.0]) == (2, 1)
    assert pub.rank_among(70.0, [60.0, 50.0]) == (1, 0)
    assert pub.rank_among(None, [60.0]) == (None, 0)
    assert pub.percent("77.47%") == 77.47 and pub.percent("N/A") is None


@pytest.mark.parametrize(("kind", "words"), [("endless", "larger than the 1,000,000-byte cap"),
                                             ("drip", "took longer than 1.5 s")])
def test_an_endless_or_dripping_board_is_cut_off(
    kind: str, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every read is capped (issue 30): the download stops past the size cap or the whole
    deadline, in one line; nothing is cached."""
    import time

    from hostile.endpoints import HostileEndpoint

    monkeypatch.setattr(pub, "MAX_BYTES", 1_000_000, raising=False)
    monkeypatch.setattr(pub, "TIMEOUT", 1.5)
    with HostileEndpoint(drip_every=0.2, drip_for=20.0) as server:
        monkeypatch.setenv(pub.URL_ENV, server.url(f"models-{kind}"))
        started = time.monotonic()
        with pytest.raises(pub.PublishedError) as caught:
            pub.load_published(cache_dir=tmp_path / "cache")
    assert words in str(caught.value) and "\n" not in str(caught.value)
    assert time.monotonic() - started < 10
    assert not (tmp_path / "cache").exists()


def test_a_bad_board_address_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    """Once an OverflowError traceback from the socket layer (port 99999)."""
    monkeypatch.setenv(pub.URL_ENV, "http://user:secret-password@127.0.0.1:99999/board")
    with pytest.raises(pub.PublishedError) as caught:
        pub.load_published(cache_dir=tmp_path / "cache")
    message = str(caught.value)
    assert message.startswith(f"{pub.URL_ENV} http://***@127.0.0.1:99999/board: the port")
    assert "secret-password" not in message


def _ranked_and_placed(output: str) -> tuple[list[str], list[str]]:
    """The model names of the ranked table's rows and of the placement lines, in order."""
    ranked_part, _, placed_part = output.partition("on the published leaderboard:")
    ranked = [line.split()[1] for line in ranked_part.splitlines()
              if line.strip()[:1].isdigit() and len(line.split()) > 1]
    placed = [line.strip().split(":")[0].removesuffix(" !") for line in placed_part.splitlines()
              if line.startswith("  ") and ": V4 Overall " in line]
    return ranked, placed


def test_piped_placements_name_each_model_in_the_ranked_order(
    fetched_home: Path, v4_scores: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Piped, the placement table folded names into pieces (`openai_gpt-o` / `ss-120b !`)
    and listed models in its own order: each model is now one line naming it whole, in the
    ranked table's order whatever `--sort` says."""
    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    orders = []
    for sort in ("v4-overall", "non-live"):
        result = CliRunner().invoke(main, ["leaderboard", str(v4_scores), "--sort", sort,
                                           "--published-from", str(BOARD)])
        assert result.exit_code == 0, result.output
        ranked, placed = _ranked_and_placed(result.stdout)
        assert len(ranked) == 2 and placed == ranked, result.stdout
        orders.append(ranked)
    assert orders[0] == orders[1][::-1]  # the two sorts disagree: the order is followed


def test_at_a_terminal_the_placements_table_fits_or_becomes_lines(
    fetched_home: Path, v4_scores: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rich.console import Console

    from fcbench.api import dataset_sizes
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.report import leaderboard as board

    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    board_ = pub.load_published(BOARD)
    entries = board.merge_entries([v4_scores], dataset_sizes(DEFAULT_RELEASE, None))
    order = board.board_order(entries, sort="Non-Live")
    assert len(order) == 2
    placements = pub.place(entries, board_, release=DEFAULT_RELEASE)
    for width, as_table in ((250, True), (80, False)):
        console = Console(force_terminal=True, width=width, record=True, color_system=None)
        pub.print_placements(console, placements, board_, order)
        shown = console.export_text()
        rows = [name for line in shown.splitlines() for name in order if f" {name} " in line
                and "V4 Overall" not in line]
        lines = [name for line in shown.splitlines() for name in order
                 if line.startswith(f"  {name}: V4 Overall ")]
        assert (rows if as_table else lines) == order, shown
        assert (lines if as_table else rows) == [], shown


def test_a_2024_run_ranks_only_the_groups_it_ran(
    fetched_home: Path, v1_scores: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 32's gpt-4-0613 example, on the corpus' 14 models of 2024 (its 7 categories
    and the exec/REST ones, web cases skipped offline): Live, Multi-Turn and Agentic read
    `—, not run` (they were `0.00 #108/110`), V4 Overall is not ranked, Non-Live is ranked
    (as the site would rank its score) and said comparable, and the skipped exec/REST cases
    (in no V4 group) are no reason; piped, each model's line names it, in the ranked order."""
    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    monkeypatch.setenv("COLUMNS", "200")  # piped: respected (names whole in the table too)
    result = CliRunner().invoke(main, ["leaderboard", str(v1_scores), "--published-from",
                                       str(BOARD)])
    assert result.exit_code == 0, result.output
    ranked, placed = _ranked_and_placed(result.stdout)
    assert len(ranked) == 14 and placed == ranked, result.stdout
    notes = result.stdout.partition("on the published leaderboard:")[2]
    board = pub.load_published(BOARD)
    published = [pub.percent(r["Non-Live Overall Acc"])
                 for r in board.tables["data_non_live.csv"]]
    for model in ranked:
        (line,) = [x for x in notes.splitlines() if x.startswith(f"  {model}: ")]
        assert line.endswith("; Live —, not run; Multi-Turn —, not run; Agentic —, not run")
        assert re.match(rf"  {re.escape(model)}: V4 Overall \d+\.\d\d‡ not ranked; ", line)
        found = re.search(r"Non-Live (\d+\.\d\d) #(\d+)/110(?: =\d+)?;", line)
        assert found is not None, line
        value, rank = float(found.group(1)), int(found.group(2))
        assert rank == 1 + sum(v is not None and v > value for v in published)
        assert f"{model}: comparable: Non-Live #{rank}/110\n" in notes
        assert f"‡ {model}: V4 Overall not ranked: 2 of 5 groups run" in notes
    assert "skipped" not in notes and "! " not in notes, notes


def _complete_entry(model: str, skipped: dict[str, int]) -> ModelEntry:
    """Every V4 category run whole, `skipped` cases of some left unjudged."""
    from fcbench.api import dataset_sizes
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    sizes = dataset_sizes(DEFAULT_RELEASE, None)
    scores = {n: CategoryScore(n, 0, sizes[n] - skipped.get(n, 0), sizes[n])
              for n in (*reg.ALL_SCORING, "exec_simple")}
    return ModelEntry(model, unknown_model(model), with_missing(scores, reg.ALL_SCORING, sizes),
                      skipped=skipped)


def test_the_reasons_list_only_what_touches_each_group(fetched_home: Path) -> None:
    """Skipped live_simple cases make Live and V4 Overall not comparable, nothing else;
    skipped exec cases (in no V4 group) make nothing so; another release touches all."""
    board = pub.load_published(BOARD)
    entry = _complete_entry("m", {"live_simple": 3, "exec_simple": 40})
    (placed,) = pub.place([entry], board, release="2026.3.23")
    reasons = {q.group: q.reasons for q in placed.places}
    assert reasons == {"V4 Overall": ("3 cases skipped (not judged) in live_simple",),
                       "Non-Live": (), "Live": ("3 cases skipped (not judged) in live_simple",),
                       "Multi-Turn": (), "Agentic": ()}
    assert all(q.rank is not None for q in placed.places)  # skipped is not partial
    assert [q.group for q in placed.places if q.comparable] == ["Non-Live", "Multi-Turn",
                                                                "Agentic"]
    (other,) = pub.place([entry], board, release="2025.1.1")
    assert all(q.reasons[0].startswith("scored on release 2025.1.1") for q in other.places)
    (web,) = pub.place([_complete_entry("m", {})], board, release="2026.3.23",
                       header_flags={"m": [("web search answered by ddg, not SerpAPI",
                                            ("web_search_base",))]})
    assert [q.group for q in web.places if q.reasons] == ["V4 Overall", "Agentic"]


@pytest.mark.parametrize("width", [60, 90, 250])
def test_no_placement_cell_is_ever_cut(fetched_home: Path, v4_scores: Path, width: int) -> None:
    """At any terminal width every cell reaches the screen whole (`12.87 #105/110…` lost
    its mark): the table where it fits, else one line per model and group naming it."""
    from rich.console import Console

    from fcbench.api import dataset_sizes
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.report import leaderboard as board

    board_ = pub.load_published(BOARD)
    entries = board.merge_entries([v4_scores], dataset_sizes(DEFAULT_RELEASE, None))
    placements = pub.place(entries, board_, release=DEFAULT_RELEASE)
    console = Console(force_terminal=True, width=width, record=True, color_system=None)
    pub.print_placements(console, placements, board_, board.board_order(entries))
    shown = console.export_text()
    for p in placements:
        for q in p.places:
            assert pub.place_cell(q) in shown, (q, shown)
            assert any(f"{p.model}" in line and pub.place_cell(q) in line
                       for line in shown.splitlines()) or width >= 90, (q, shown)
    assert "…" not in shown
