"""Your models on the published leaderboard: the official site's six CSVs, fetched at run
time, and each model placed among their rows, overall and per group.

Why fetched, cached and checksummed: the site updates its board without notice, and a
placement is only worth something when one can say which board it was made against. The
files are fetched once into `FCBENCH_HOME/published/` beside a `published.json` holding the
date, the address and each file's sha256 (checked whenever the cache is read); `refresh`
fetches again. An offline copy (a folder of the CSVs, or one `data_overall.csv`) can be
given instead. `FCBENCH_LEADERBOARD_URL` points the fetch at a mirror (tests: loopback).

Why each user value goes through the official row and format (`csv_files.TABLES`): the
published cells are rounded to two decimals, so a placement compares the same rounded
numbers the site ranks.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from fcbench.report.csv_files import TABLES, ModelEntry, Table
from fcbench.report.table import INCOMPLETE_MARK, NOTHING_RUN
from fcbench.score.completeness import completeness, is_partial
from fcbench.score.formulas import format_percent

SITE = "https://gorilla.cs.berkeley.edu"
URL_ENV = "FCBENCH_LEADERBOARD_URL"
FILES = ("data_overall.csv", "data_non_live.csv", "data_live.csv", "data_multi_turn.csv",
         "data_agentic.csv", "data_format_sensitivity.csv")
COMPARABLE_RELEASE = "2026.3.23"
"""The data release whose scores the published board (last updated 2025-12-16) matches."""
GROUPS = (("V4 Overall", "data_overall.csv", "Overall"), ("Non-Live", "data_non_live.csv",
                                                          "Non-Live"),
          ("Live", "data_live.csv", "Live"), ("Multi-Turn", "data_multi_turn.csv", "Multi-Turn"),
          ("Agentic", "data_agentic.csv", "Agentic"))
"""(shown name, file, the summary in `completeness.SUMMARY_PARTS` naming its categories)."""
TIMEOUT = 30.0
"""Seconds for one file's whole download (not only each read: a server dripping a byte at a
time is cut off too)."""
MAX_BYTES = 20_000_000
"""A published CSV is about 100 kB; past this a reply is not the board (never kept)."""
CHUNK = 1 << 16
META = "published.json"


class PublishedError(RuntimeError):
    """The published board cannot be fetched or read (one line)."""


@dataclass(frozen=True)
class PublishedBoard:
    """The published CSVs as rows (column -> cell), and where and when they came from."""

    tables: dict[str, list[dict[str, str]]]
    source: str
    fetched_at: str | None = None
    sha256: dict[str, str] = field(default_factory=dict)

    @property
    def models(self) -> int:
        return len(self.tables.get("data_overall.csv", []))

    def describe(self) -> str:
        when = f", fetched {self.fetched_at}" if self.fetched_at else ""
        return f"{self.models} published models ({self.source}{when})"


# -- Getting the files ------------------------------------------------------------------------


def load_published(
    source: Path | None = None, *, refresh: bool = False, cache_dir: Path | None = None
) -> PublishedBoard:
    """The board from an offline `source` (folder or data_overall.csv), else the cache, else
    the site (or `$FCBENCH_LEADERBOARD_URL`), cached for next time."""
    if source is not None:
        return _offline(Path(source))
    cache = cache_dir or _default_cache()
    if not refresh:
        cached = _read_cache(cache)
        if cached is not None:
            return cached
    base = _checked_base(os.environ.get(URL_ENV, SITE).rstrip("/"))
    texts = {name: _download(f"{base}/{name}") for name in FILES}
    return _write_cache(cache, base, texts)


def _default_cache() -> Path:
    from fcbench.dataset.fetch import fcbench_home

    return fcbench_home() / "published"


def _checked_base(base: str) -> str:
    """The board's address, checked before any connection (`models.urls`): a port past
    65535 would otherwise end in an OverflowError from the socket layer."""
    from fcbench import redact
    from fcbench.models.urls import BadBaseURL, check_base_url

    redact.add_secrets_of_url(base)  # masked wherever a message repeats it
    try:
        return check_base_url(base, URL_ENV)
    except BadBaseURL as exc:
        raise PublishedError(str(exc)) from None


def _download(url: str) -> str:
    if not url.startswith(("https://", "http://")):
        raise PublishedError(f"{URL_ENV} must be an http(s) address, not {url!r}")
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as reply:
            data = _bounded_read(reply, url)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        from fcbench import redact

        reason = getattr(exc, "reason", exc)
        raise PublishedError(redact.text(
            f"cannot fetch the published leaderboard {url}: {reason}; give an offline copy "
            "with --published-from")) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise PublishedError(f"the published leaderboard {url} is not UTF-8 text; give an "
                             "offline copy with --published-from") from None


def _bounded_read(reply: Any, url: str) -> bytes:
    """The body, read a chunk at a time: PublishedError past MAX_BYTES or TIMEOUT in all."""
    import time

    ends = time.monotonic() + TIMEOUT
    pieces: list[bytes] = []
    size = 0
    read = getattr(reply, "read1", reply.read)  # what has come: a drip cannot block it
    while piece := read(CHUNK):
        size += len(piece)
        if size > MAX_BYTES:
            raise PublishedError(f"the published leaderboard {url} is larger than the "
                                 f"{MAX_BYTES:,}-byte cap; not kept (give an offline copy "
                                 "with --published-from)")
        if time.monotonic() > ends:
            raise PublishedError(f"the published leaderboard {url} took longer than "
                                 f"{TIMEOUT:g} s; give an offline copy with --published-from")
        pieces.append(piece)
    return b"".join(pieces)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write_cache(cache: Path, base: str, texts: Mapping[str, str]) -> PublishedBoard:
    cache.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        tmp = cache / f"{name}.tmp"
        tmp.write_bytes(text.encode("utf-8"))
        tmp.replace(cache / name)
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    sums = {n: _sha(t) for n, t in texts.items()}
    meta = {"url": base, "fetched_at": today, "sha256": sums}
    (cache / META).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return _board(texts, base, today, sums)


def _read_cache(cache: Path) -> PublishedBoard | None:
    """The cached board, or None when absent, incomplete or not matching its checksums."""
    try:
        meta = json.loads((cache / META).read_text(encoding="utf-8"))
        texts = {name: (cache / name).read_bytes().decode("utf-8") for name in FILES}
    except (OSError, ValueError):
        return None
    sums = meta.get("sha256", {}) if isinstance(meta, dict) else {}
    if any(sums.get(name) != _sha(text) for name, text in texts.items()):
        return None
    return _board(texts, str(meta.get("url")), str(meta.get("fetched_at")), sums)


def _offline(source: Path) -> PublishedBoard:
    if source.is_dir():
        texts = {n: (source / n).read_text(encoding="utf-8") for n in FILES
                 if (source / n).is_file()}
        if "data_overall.csv" not in texts:
            raise PublishedError(f"{source}: no data_overall.csv in this folder")
    elif source.is_file():
        texts = {"data_overall.csv": source.read_text(encoding="utf-8")}
    else:
        raise PublishedError(f"{source}: no such file or folder")
    return _board(texts, str(source), None, {n: _sha(t) for n, t in texts.items()})


def _board(texts: Mapping[str, str], source: str, fetched_at: str | None,
           sums: Mapping[str, str]) -> PublishedBoard:
    tables = {}
    for name, text in texts.items():
        rows = list(csv.DictReader(io.StringIO(text)))
        if not rows or "Model" not in rows[0]:
            raise PublishedError(f"{source}: {name} is not a leaderboard CSV")
        tables[name] = rows
    return PublishedBoard(tables, source, fetched_at, dict(sums))


# -- Placing models ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """One model's place in one published table."""

    group: str
    value: float | None
    """The model's score in the table's main column, percent rounded as the site shows it
    (None: N/A, or nothing under the group run)."""
    rank: int | None
    """1 + the published rows scoring strictly more; None when the group was not run
    completely (`score.completeness`: a category not run counts 0, so the rank would place
    a score nobody made) or the model has no value."""
    of: int
    """The published rows plus this model."""
    ties: int = 0
    above: str | None = None
    below: str | None = None
    missing: tuple[str, ...] = ()
    """Categories under this group that the model did not run or judged no case of."""
    gap: str | None = None
    """What of the group was not run (`Completeness.describe`); None when complete."""
    nothing_run: bool = False
    reasons: tuple[str, ...] = ()
    """What makes this rank not comparable with the published rows: only what touches the
    group's own categories (skipped exec/REST cases touch no V4 group)."""

    @property
    def comparable(self) -> bool:
        return self.rank is not None and not self.reasons


@dataclass(frozen=True)
class Placement:
    model: str
    places: list[Place]
    flags: list[str]
    """What makes some rank of the model not comparable (the places' reasons, once each)."""

    @property
    def comparable(self) -> bool:
        return not self.flags


Limit = tuple[str, tuple[str, ...] | None]
"""(what limits a comparison, the categories it touches; None: every group)."""


def percent(cell: str | None) -> float | None:
    """A published cell ("77.47%", "N/A") as a number of percent."""
    if cell is None or not cell.strip().endswith("%"):
        return None
    try:
        return float(cell.strip().rstrip("%"))
    except ValueError:
        return None


def rank_among(value: float | None, published: Sequence[float | None]) -> tuple[int | None, int]:
    """(rank, ties): 1 + the values strictly above `value`, and how many equal it."""
    if value is None:
        return None, 0
    known = [v for v in published if v is not None]
    return 1 + sum(v > value for v in known), sum(v == value for v in known)


def _table(file_name: str) -> Table:
    return next(t for t in TABLES if t.file_name == file_name)


def user_value(entry: ModelEntry, file_name: str) -> float | None:
    """The model's cell in a table's main column, formatted as the official CSV and read back."""
    table = _table(file_name)
    cell = [None, *table.row(entry)][table.sort_column]
    return percent(format_percent(cell)) if isinstance(cell, (int, float)) else None


def place(
    entries: Sequence[ModelEntry],
    board: PublishedBoard,
    *,
    release: str,
    header_flags: Mapping[str, Sequence[Limit]] | None = None,
) -> list[Placement]:
    """Each entry placed in every table the board holds: ranked only where the group was
    run completely, each rank with what limits its comparison (`header_flags`: per model,
    what its score headers say, `header_flags()`)."""
    placements = []
    for entry in entries:
        limits = _limits(entry, release) + list((header_flags or {}).get(entry.model, []))
        places = [_place(entry, board, limits, *group)
                  for group in GROUPS if group[1] in board.tables]
        flags = list(dict.fromkeys(r for q in places if q.rank is not None for r in q.reasons))
        placements.append(Placement(entry.model, places, flags))
    return placements


def _place(entry: ModelEntry, board: PublishedBoard, limits: Sequence[Limit], group: str,
           file_name: str, summary: str) -> Place:
    table = _table(file_name)
    column = table.columns[table.sort_column]
    rows = board.tables[file_name]
    values = [percent(r.get(column)) for r in rows]
    gap = completeness(entry.scores, summary)
    value = None if gap.nothing_run else user_value(entry, file_name)
    described = None if gap.complete or gap.nothing_run else gap.describe()
    if not gap.complete:
        return Place(group, value, None, len(rows) + 1, missing=gap.missing, gap=described,
                     nothing_run=gap.nothing_run)
    rank, ties = rank_among(value, values)
    ordered = sorted((v, r.get("Model", "")) for v, r in zip(values, rows, strict=True)
                     if v is not None)
    above = next((f"{m} ({v:.2f})" for v, m in ordered if value is not None and v > value), None)
    below = next((f"{m} ({v:.2f})" for v, m in reversed(ordered)
                  if value is not None and v < value), None)
    reasons = _reasons(entry, gap.categories, limits)
    return Place(group, value, rank, len(rows) + 1, ties, above, below, reasons=reasons)


def _reasons(entry: ModelEntry, names: Sequence[str], limits: Sequence[Limit]
             ) -> tuple[str, ...]:
    """What limits a rank made of the categories `names`: the `limits` touching them, the
    partial ones among them, the cases skipped in them (never another group's: the 2024
    exec/REST categories' skipped cases are in no V4 group)."""
    reasons = [text for text, touched in limits
               if touched is None or not set(names).isdisjoint(touched)]
    partial = [n for n in names if is_partial(entry.scores.get(n), entry.skipped.get(n, 0))]
    if partial:
        reasons.append(f"partial run: {_names(partial)} judged on fewer cases than the data set")
    skipped = {n: entry.skipped[n] for n in names if entry.skipped.get(n)}
    if skipped:
        reasons.append(f"{sum(skipped.values())} cases skipped (not judged) in "
                       f"{_names(list(skipped))}")
    return tuple(reasons)


def _limits(entry: ModelEntry, release: str) -> list[Limit]:
    """What limits the comparison of every rank of the entry: another release."""
    if release == COMPARABLE_RELEASE:
        return []
    return [(f"scored on release {release}; the published board matches "
             f"{COMPARABLE_RELEASE}", None)]


def _names(names: Sequence[str], shown: int = 4) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def header_flags(score_dirs: Sequence[Path]) -> dict[str, list[Limit]]:
    """Per model, what its score headers say limits the comparison, with the categories it
    touches: searches answered by another provider than SerpAPI."""
    from fcbench.results.score_files import read_score_headers

    found: dict[str, list[Limit]] = {}
    for score_dir in score_dirs:
        for model, headers in read_score_headers(Path(score_dir)).items():
            flags = found.setdefault(model, [])
            other = {name: str(h.get("web_search_provider")) for name, h in headers.items()
                     if h.get("web_search_comparable") is False}
            if other:
                flags.append((f"web search answered by {', '.join(sorted(set(other.values())))}"
                              ", not SerpAPI", tuple(other)))
    return found


def placement_json(placements: Sequence[Placement], board: PublishedBoard) -> dict[str, Any]:
    """For the HTML report and scripts: each place with its cell `text` as the terminal
    shows it, whether it is `comparable`, the `reasons` it is not, and the `gap` of a group
    not run completely (no rank)."""
    return {
        "source": board.describe(), "sha256": board.sha256,
        "models": [{"model": p.model, "flags": p.flags, "places": [
            {"group": q.group, "value": q.value, "rank": q.rank, "of": q.of, "ties": q.ties,
             "above": q.above, "below": q.below, "missing": list(q.missing),
             "text": place_cell(q), "comparable": q.comparable, "reasons": list(q.reasons),
             "gap": q.gap, "nothing_run": q.nothing_run}
            for q in p.places]} for p in placements],
        "notes": placement_notes(placements),
    }


KEY = (f"#rank/rows: among the published rows and this model (ties: =N), only for a group "
       f"every category of which was run; {INCOMPLETE_MARK} not ranked: some category of the "
       f"group not run (it would count 0); {NOTHING_RUN}, not run: none was; !: the rank is "
       "not comparable (why below).")
"""The placements' key, printed under them."""


def print_placements(console: Any, placements: Sequence[Placement], board: PublishedBoard,
                     order: Sequence[str] = ()) -> None:
    """The terminal form: one row per model naming it, `#rank/of` per group, then what
    limits each rank. Rows follow `order` (the ranked table's, so both tables read alike;
    models not in it last). A cell is never cut (no_wrap): piped, or where the table would
    not fit the width, each model becomes one line naming it, wrapped between cells."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table as RichTable

    position = {model: i for i, model in enumerate(order)}
    placements = sorted(placements, key=lambda p: position.get(p.model, len(position)))
    title = f"on the published leaderboard: {escape(board.describe())}"
    table = RichTable(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("model", overflow="fold", min_width=12)
    groups = [g for g, file_name, _ in GROUPS if file_name in board.tables]
    for group in groups:
        table.add_column(group, justify="right", no_wrap=True)
    rows = []
    for p in placements:
        cells = {q.group: place_cell(q) for q in p.places}
        rows.append((p.model + ("" if p.comparable else " !"),
                     [cells.get(g, "N/A") for g in groups]))
        table.add_row(escape(rows[-1][0]), *rows[-1][1])
    if console.is_terminal and not _too_wide(console, table):
        console.print(table)
    else:
        console.print(title, highlight=False)
        for name, shown in rows:
            pairs = [f"{g} {cell}" for g, cell in zip(groups, shown, strict=True)]
            # Piped: one line per model (never wrapped); a narrow terminal: one short line
            # per group, each naming the model, so no cell is ever broken.
            for line in pairs if console.is_terminal else ["; ".join(pairs)]:
                console.print(f"  {name}: {line}", highlight=False, markup=False)
    _print_placement_notes(console, placements)


def _print_placement_notes(console: Any, placements: Sequence[Placement]) -> None:
    for line in placement_notes(placements):
        console.print(line, highlight=False, markup=False,
                      style="yellow" if line.startswith("! ") else None)


def placement_notes(placements: Sequence[Placement]) -> list[str]:
    """Under the placements (terminal and report alike): the key; per model its comparable
    ranks, its V4 Overall neighbours, each group not ranked and why, each rank's reasons."""
    lines = [KEY]
    for p in placements:
        comparable = [f"{q.group} #{q.rank}/{q.of}" for q in p.places if q.comparable]
        lines.append(f"{p.model}: comparable: {', '.join(comparable)}" if comparable
                     else f"{p.model}: no rank comparable with the published rows")
        overall = next((q for q in p.places if q.group == "V4 Overall"), None)
        if overall is not None and overall.rank is not None and overall.value is not None:
            near = "; ".join(x for x in (f"above: {overall.above}" if overall.above else "",
                                         f"below: {overall.below}" if overall.below else "")
                             if x)
            lines.append(f"{p.model}: V4 Overall {overall.value:.2f}, #{overall.rank} of "
                         f"{overall.of} ({near})")
        lines.extend(f"{INCOMPLETE_MARK} {p.model}: {q.group} not ranked: {q.gap}"
                     for q in p.places if q.gap is not None)
        by_reasons: dict[tuple[str, ...], list[str]] = {}
        for q in p.places:
            if q.rank is not None and q.reasons:
                by_reasons.setdefault(q.reasons, []).append(q.group)
        lines.extend(f"! {p.model}: {', '.join(named)} not comparable: {'; '.join(reasons)}"
                     for reasons, named in by_reasons.items())
    return lines


def _too_wide(console: Any, table: Any) -> bool:
    """The table, laid out without the width's cap, is wider than the console."""
    from rich.measure import Measurement

    unbounded = console.options.update(width=10_000)
    return bool(Measurement.get(console, unbounded, table).maximum > console.width)


def place_cell(q: Place) -> str:
    """`88.08 #21/110` (`=N` ties, ` !` not comparable), `12.87‡ not ranked` for a group not
    run completely, `—, not run` for one with nothing run."""
    if q.nothing_run:
        return f"{NOTHING_RUN}, not run"
    if q.gap is not None or q.missing:
        shown = "N/A" if q.value is None else f"{q.value:.2f}"
        return f"{shown}{INCOMPLETE_MARK} not ranked"
    if q.rank is None or q.value is None:
        return "N/A"
    tie = f" ={q.ties}" if q.ties else ""
    return f"{q.value:.2f} #{q.rank}/{q.of}{tie}" + ("" if q.comparable else " !")
