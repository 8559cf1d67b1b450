"""The HTML report (`fcbench report`) and the comparison page (`fcbench compare --html`).

`write_report(score_dirs, result_dirs, out)` is what `run` and `evaluate` call to leave a
report next to the score files. The charts need no library: the page draws them as SVG.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench import redact
from fcbench._atomic import replace_text
from fcbench.layout import REPORT_NAME
from fcbench.report.compare import Comparison, as_json
from fcbench.report.html.page import render, write_page

if TYPE_CHECKING:
    from fcbench.evaluation import Evaluation
    from fcbench.report.published import PublishedBoard

__all__ = ["report_after_run", "write_compare_page", "write_report"]


def write_report(
    score_dirs: Sequence[Path],
    result_dirs: Sequence[Path] | None,
    out: Path,
    *,
    release: str | None = None,
    data_dir: Path | None = None,
    markdown: Path | None = None,
    title: str = "fcbench report",
    published: PublishedBoard | None = None,
    evaluation: Evaluation | None = None,
) -> list[Path]:
    """Write the HTML report of `score_dirs` to `out` (and a Markdown summary if asked).

    `result_dirs` None means: each score folder's sibling `result`, when it exists (the
    layout `run` and `evaluate` make). `published`: the published leaderboard to place the
    models on (`report.published.load_published`). `evaluation`: what `evaluate` just wrote
    into `score_dirs`, judged with `report_cases` (its models are not read back from the
    files). Returns the files written.
    """
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import scoring_sizes as dataset_sizes
    from fcbench.report.html.collect import collect
    from fcbench.results.read import sibling_result_dirs
    from fcbench.score.disputed import load_disputed
    from fcbench.score.runs import RunError, model_dirs

    if not any(model_dirs(Path(p)) for p in score_dirs):  # model_dirs: no folder -> RunError
        raise RunError(f"no score files in {', '.join(map(str, score_dirs))}")
    release = release or DEFAULT_RELEASE
    if result_dirs is None:
        result_dirs = sibling_result_dirs(map(Path, score_dirs))
    sizes = dataset_sizes(release, data_dir)
    document = collect([Path(p) for p in score_dirs], [Path(p) for p in result_dirs], release,
                       data_dir, sizes, load_disputed(), evaluation)
    if published is not None:
        document["published"] = _placements(score_dirs, sizes, release, published)
    written = [write_page(out, render(document, title))]
    if markdown is not None:
        written.append(write_markdown(Path(markdown), document))
    return written


def write_markdown(path: Path, document: Any) -> Path:
    """The report's Markdown summary (`--markdown`), with no known secret in it."""
    from fcbench.report.markdown import summary_markdown

    replace_text(path, redact.values(summary_markdown(document)))
    return path


def _placements(score_dirs: Sequence[Path], sizes: Mapping[str, int], release: str,
                board: PublishedBoard) -> dict[str, Any]:
    from fcbench.report import published as pub
    from fcbench.report.leaderboard import merge_entries

    entries = merge_entries([Path(p) for p in score_dirs], sizes)
    placements = pub.place(entries, board, release=release,
                           header_flags=pub.header_flags([Path(p) for p in score_dirs]))
    return pub.placement_json(placements, board)


def report_after_run(
    score_dir: Path,
    result_dir: Path | None,
    *,
    release: str | None = None,
    data_dir: Path | None = None,
    note: Callable[[str], None] = print,
    evaluation: Evaluation | None = None,
) -> Path | None:
    """What `run` and `evaluate` call unless `--no-report`: `score_dir/report.html`.

    Never stops the run: the report is an output of its own, and the score files, CSVs and
    table stand without it (issue 30). An unreadable input becomes one line given to `note`
    (the CLI passes its stderr console's print); any other failure too, naming a log file
    beside the report that holds the traceback (`layout.REPORT_LOG`); None is returned.
    `evaluation`: the evaluation that just wrote `score_dir`, judged with
    `report_cases=True` (see `write_report`).
    """
    from fcbench.dataset.fetch import DataError
    from fcbench.score.runs import RunError

    out = Path(score_dir) / REPORT_NAME
    try:
        write_report([Path(score_dir)], [Path(result_dir)] if result_dir else None, out,
                     release=release, data_dir=data_dir, evaluation=evaluation)
    except (DataError, RunError, OSError, ValueError) as exc:
        note(f"no HTML report: {exc}")
        return None
    except Exception as exc:  # a fault of fcbench's: one line, the traceback in a file
        note(f"no HTML report: {_report_fault(Path(score_dir), exc)}")
        return None
    note(f"report: {out}")
    return out


def _report_fault(score_dir: Path, exc: Exception) -> str:
    """Why the report failed, in one line naming the log that keeps the traceback (in the
    score folder, or the temporary folder when that cannot be written)."""
    import traceback

    from fcbench._atomic import new_log
    from fcbench.layout import REPORT_LOG

    text = redact.values("".join(traceback.format_exception(exc)))
    try:
        log = replace_text(score_dir / REPORT_LOG, text, errors="backslashreplace")
    except OSError:
        log = new_log("fcbench-report-", text)
    message = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {message} (traceback in {log})"


def write_compare_page(comparison: Comparison, out: Path) -> Path:
    """`fcbench compare --html`: the comparison in the report's style. Its links to the
    reports' drill-downs are relative to the page (`file:///...` ones broke once the folder
    was shared or moved)."""
    document = as_json(comparison)
    document["reports"] = [_relative_link(report, Path(out))
                           for report in document.get("reports") or []]
    return write_page(out, render(document, "fcbench compare", kind="compare"))


def _relative_link(report: Any, out: Path) -> Any:
    """A report link (`{"uri", "model"}`) with a `file:` URI made relative to the page's
    folder; anything else as it is (another drive, another scheme: no relative form)."""
    import os
    from urllib.parse import quote, urlsplit
    from urllib.request import url2pathname

    uri = report.get("uri") if isinstance(report, dict) else None
    if not isinstance(uri, str) or urlsplit(uri).scheme != "file":
        return report
    try:
        relative = os.path.relpath(url2pathname(urlsplit(uri).path), out.resolve().parent)
    except ValueError:  # another drive (Windows)
        return report
    return {**report, "uri": quote(Path(relative).as_posix())}
