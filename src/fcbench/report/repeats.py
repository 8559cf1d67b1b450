"""The repeats summary of a score folder: `<score_dir>/F.repeats.json` and `F.repeats.csv`
for every run F scored there as repeats (`F.repeat-1`, `F.repeat-2`, ...; `layout`).

Each repeat is an ordinary model folder with the official score files, byte-faithful; what
holds across repeats is written here, in files of its own (schema: docs/results-schema.md,
"Repeats"): per category and per summary the repeat scores, their mean, standard deviation
and 95% t-interval (`score.repeats`); per case its verdict in each repeat and whether it is
consistent-pass, consistent-fail or flaky; pass^k and pass@k. Written after every
evaluation of the score folder (`api.evaluate`), over the repeats there at the time, so
a run that stopped after two repeats has a summary of two.

Read back by the terminal summary (`table_lines`), the HTML report (`html_section`) and
`compare` (`paired_flips`: repeat-by-repeat pairing of two repeated runs).
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fcbench import _atomic
from fcbench import _json as fast_json
from fcbench.core import categories as reg
from fcbench.layout import repeat_of, repeats_path
from fcbench.report.table import INCOMPLETE_MARK, summary_marks
from fcbench.score.aggregate import CategoryScore, with_missing
from fcbench.score.completeness import SHOWN, Completeness
from fcbench.score.formulas import summary_rows
from fcbench.score.intervals import Interval
from fcbench.score.repeats import (
    CategoryRepeats,
    Spread,
    category_repeats,
    mean_pass_at_k,
    mean_pass_hat_k,
    spread,
)
from fcbench.score.runs import DatasetIds, ModelRun, RunError, read_run

__all__ = [
    "ALL_CASES",
    "FORMAT",
    "build",
    "compared",
    "comparison_lines",
    "csv_text",
    "html_section",
    "paired_flips",
    "read_repeats",
    "repeat_groups",
    "repeated_target",
    "table_lines",
    "tables_of",
    "well_formed",
    "with_section",
    "write_repeats",
]

FORMAT = "fcbench-repeats"
SCHEMA_VERSION = 1
ALL_CASES = "All cases"
"""The pooled summary: every judged case of every category, one weight each (the summary
that exists for any dataset, custom ones included)."""
MULTI_STEP_ROW = "Multi-turn and agentic cases"
"""The CSV row of pass^k and pass@k pooled over those categories' cases."""
MULTI_STEP_CHECKERS = frozenset({"multi_turn", "agentic"})
"""Categories whose pass^k is shown (tau-bench's measure of conversations that must go right
every time); it is computed for every category."""

Answered = Callable[[str, str], "set[str] | None"]


def repeat_groups(folders: Iterable[str]) -> dict[str, dict[int, str]]:
    """Run folder -> repeat index -> the repeat's folder, among `folders`."""
    groups: dict[str, dict[int, str]] = {}
    for folder in folders:
        found = repeat_of(folder)
        if found is not None:
            groups.setdefault(found[0], {})[found[1]] = folder
    return {base: dict(sorted(found.items())) for base, found in sorted(groups.items())}


def _interval(found: Interval | None) -> list[float] | None:
    return None if found is None else [found.low, found.high]


def _spread(found: Spread) -> dict[str, Any]:
    return {"values": list(found.values), "mean": found.mean, "std": found.std,
            "ci95": _interval(found.interval)}


def _category(stats: CategoryRepeats) -> dict[str, Any]:
    counts = stats.counts()
    try:
        multi_step = reg.get(stats.category).checker in MULTI_STEP_CHECKERS
    except reg.UnknownCategoryError:
        multi_step = False
    return {
        "accuracy": _spread(stats.accuracy),
        "multi_step": multi_step,
        "cases": len(stats.consistency),
        "consistent_pass": counts["consistent-pass"],
        "consistent_fail": counts["consistent-fail"],
        "flaky": counts["flaky"],
        "flaky_ids": stats.flaky(),
        "unpaired_ids": list(stats.unpaired),
        "pass_hat_k": {str(k): v for k, v in stats.pass_hat.items()},
        "pass_at_k": {str(k): v for k, v in stats.pass_at.items()},
        "verdicts": {case: list(seen) for case, seen in stats.verdicts.items()},
    }


def _verdicts(runs: Sequence[ModelRun], category: str) -> dict[str, list[bool | None]]:
    """Each case's verdict per repeat (None: that repeat did not judge it)."""
    found: dict[str, list[bool | None]] = {}
    for index, run in enumerate(runs):
        cat = run.categories.get(category)
        for case in cat.ids if cat is not None else ():
            found.setdefault(case, [None] * len(runs))[index] = cat.valid(case) if cat else None
    return found


def _summaries(
    runs: Sequence[ModelRun], sizes: Mapping[str, int]
) -> dict[str, tuple[Spread, bool]]:
    """Each leaderboard summary every repeat shows a number for and ran some category of,
    and the pooled one: its spread, and whether some category under it was not run (the
    summary is incomplete: `score.completeness`, the rule every view follows)."""
    per_repeat: list[dict[str, float | None]] = []
    marks: dict[str, Completeness] = {}
    for run in runs:
        scores: dict[str, CategoryScore] = {n: c.score for n, c in run.categories.items()}
        rows = dict(summary_rows(with_missing(scores, reg.ALL_SCORING, sizes)))
        marks.update(summary_marks(scores, list(rows)))
        correct = sum(c.score.correct for c in run.categories.values())
        total = sum(c.score.total for c in run.categories.values())
        rows[ALL_CASES] = correct / total if total else None
        per_repeat.append(rows)
    labels = [ALL_CASES, *(label for label in per_repeat[0] if label != ALL_CASES)]
    found: dict[str, tuple[Spread, bool]] = {}
    for label in labels:
        values = [rows.get(label) for rows in per_repeat]
        gap = marks.get(label)
        if all(value is not None for value in values) and not (gap and gap.nothing_run):
            found[label] = (spread([float(v) for v in values if v is not None]),
                            gap is not None)
    return found


def build(
    score_dir: Path, base: str, folders: Mapping[int, str], ids_of: DatasetIds,
    sizes: Mapping[str, int], answered: Answered | None = None,
    seeds: Mapping[int, int | None] | None = None, problems: list[str] | None = None,
) -> dict[str, Any]:
    """The repeats document of run `base` from its repeats' score folders (`folders`:
    index -> folder); a repeat that cannot be read is left out and said in `problems`."""
    runs: list[ModelRun] = []
    indices: list[int] = []
    for index, folder in folders.items():
        try:
            runs.append(read_run(score_dir, folder, ids_of, problems, answered))
            indices.append(index)
        except RunError as exc:
            if problems is None:
                raise
            problems.append(f"{folder}: left out of the repeats ({exc})")
    names = [name for name in runs[0].categories if all(name in r.categories for r in runs)] \
        if runs else []
    document: dict[str, Any] = {
        "format": FORMAT, "schema_version": SCHEMA_VERSION, "model": base,
        "repeats": [{"index": i, "folder": folders[i], "seed": (seeds or {}).get(i)}
                    for i in indices],
        "categories": {}, "summaries": {},
    }
    for name in names:
        accuracies = [run.categories[name].score.accuracy for run in runs]
        document["categories"][name] = _category(
            category_repeats(name, accuracies, _verdicts(runs, name)))
    if runs:
        document["summaries"] = {label: {**_spread(found), "incomplete": gap}
                                 for label, (found, gap) in _summaries(runs, sizes).items()}
        document["multi_step"] = _multi_step(document["categories"], len(runs))
    return document


def _multi_step(cats: Mapping[str, Mapping[str, Any]], repeats: int) -> dict[str, Any]:
    """pass^k and pass@k pooled over every case of the multi-turn and agentic categories
    judged in every repeat (each case one weight, as tau-bench pools a domain's tasks)."""
    counts = [(len(seen), sum(seen)) for cat in cats.values() if cat["multi_step"]
              for case, seen in cat["verdicts"].items()
              if case not in cat["unpaired_ids"] and len(seen) == repeats]
    ks = range(1, repeats + 1) if counts else range(0)
    return {"cases": len(counts),
            "pass_hat_k": {str(k): mean_pass_hat_k(counts, k) for k in ks},
            "pass_at_k": {str(k): mean_pass_at_k(counts, k) for k in ks}}


def _seeds(result_dirs: Sequence[Path], folders: Mapping[int, str]) -> dict[int, int | None]:
    """The generation seed each repeat's model.json records (None: none found)."""
    from fcbench.results.manifest import read_manifest

    seeds: dict[int, int | None] = {}
    for index, folder in folders.items():
        seeds[index] = None
        for result_dir in result_dirs:
            sampling = read_manifest(Path(result_dir) / folder).get("sampling")
            seed = sampling.get("seed") if isinstance(sampling, dict) else None
            if isinstance(seed, int):
                seeds[index] = seed
                break
    return seeds


def _answered(result_dirs: Sequence[Path]) -> Answered:
    """(model, category) -> the ids of its result file, over `result_dirs` (memoised)."""
    from fcbench.results.read import find_result_files, read_result_file

    memo: dict[str, dict[str, set[str]]] = {}

    def answered(model: str, category: str) -> set[str] | None:
        if model not in memo:
            memo[model] = {}
            for result_dir in result_dirs:
                folder = Path(result_dir) / model
                if folder.is_dir():
                    memo[model] = {f.category: set(read_result_file(f).entries)
                                   for f in find_result_files(folder)}
                    break
        return memo[model].get(category)

    return answered


def write_repeats(
    score_dir: Path, result_dirs: Sequence[Path], ids_of: DatasetIds,
    sizes: Mapping[str, int], problems: list[str] | None = None,
) -> list[Path]:
    """`F.repeats.json` and `.csv` for every run F with repeats scored in `score_dir`;
    the JSON files written."""
    from fcbench.results.score_files import iter_score_files

    models = sorted({model for model, _, _ in iter_score_files(score_dir)})
    written: list[Path] = []
    for base, folders in repeat_groups(models).items():
        document = build(score_dir, base, folders, ids_of, sizes, _answered(result_dirs),
                         _seeds(result_dirs, folders), problems)
        if not document["repeats"]:
            continue
        path = repeats_path(score_dir, base)
        _atomic.replace_text(path, fast_json.dumps(document, indent=1) + "\n")
        _atomic.replace_text(repeats_path(score_dir, base, ".csv"), csv_text(document))
        written.append(path)
    return written


def read_repeats(score_dir: Path) -> dict[str, dict[str, Any]]:
    """Run folder -> its repeats document, for every readable one in `score_dir`."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(Path(score_dir).glob("*.repeats.json")):
        try:
            document = fast_json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        if well_formed(document):
            found[str(document["model"])] = document
    return found


_SPREAD_KEYS = {"values": list, "mean": (int, float), "std": (int, float, type(None)),
                "ci95": (list, type(None))}
_CATEGORY_KEYS = {"accuracy": dict, "multi_step": bool, "cases": int, "consistent_pass": int,
                  "consistent_fail": int, "flaky": int, "flaky_ids": list,
                  "unpaired_ids": list, "pass_hat_k": dict, "pass_at_k": dict,
                  "verdicts": dict}


def _fits(found: Any, keys: Mapping[str, Any]) -> bool:
    return isinstance(found, dict) and all(isinstance(found.get(k), t) for k, t in keys.items())


def _spread_fits(found: Any) -> bool:
    if not _fits(found, _SPREAD_KEYS):
        return False
    ci = found["ci95"]
    numbers = [*found["values"], *(ci or [])]
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers) and (
        ci is None or len(ci) == 2)


def _category_fits(found: Any) -> bool:
    if not _fits(found, _CATEGORY_KEYS) or not _spread_fits(found["accuracy"]):
        return False
    ids = [*found["flaky_ids"], *found["unpaired_ids"]]
    chances = [*found["pass_hat_k"].values(), *found["pass_at_k"].values()]
    verdicts = found["verdicts"].values()
    return (all(isinstance(i, str) for i in ids)
            and all(isinstance(v, (int, float)) for v in chances)
            and all(isinstance(v, list) and all(isinstance(x, bool) for x in v)
                    for v in verdicts))


def well_formed(document: Any) -> bool:
    """Whether a repeats document read from disk has the shape its readers index (a
    hand-edited or damaged file is passed over, never a traceback in a table or a page)."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return False
    summaries, cats = document.get("summaries"), document.get("categories")
    pooled = document.get("multi_step", {"cases": 0, "pass_hat_k": {}, "pass_at_k": {}})
    if not _fits(pooled, {"cases": int, "pass_hat_k": dict, "pass_at_k": dict}) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool)
            for v in [*pooled["pass_hat_k"].values(), *pooled["pass_at_k"].values()]):
        return False
    return (isinstance(document.get("model"), str) and isinstance(document.get("repeats"), list)
            and isinstance(summaries, dict) and isinstance(cats, dict)
            and all(_spread_fits(v) for v in summaries.values())
            and all(_category_fits(v) for v in cats.values()))


CSV_HEAD = ["row", "kind", "repeats", "mean", "std", "ci95_low", "ci95_high", "cases",
            "consistent_pass", "consistent_fail", "flaky"]


def csv_text(document: Mapping[str, Any]) -> str:
    """One row per summary and per category: the spread across repeats, the consistency
    counts, then pass^k and pass@k for k = 1..repeats (numbers as fractions of 1)."""
    repeats = len(document.get("repeats", []))
    ks = [str(k) for k in range(1, repeats + 1)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CSV_HEAD, *(f"pass^{k}" for k in ks), *(f"pass@{k}" for k in ks)])
    for label, found in document.get("summaries", {}).items():
        writer.writerow([label, "summary", *_spread_cells(found)] + [""] * (4 + 2 * len(ks)))
    pooled = document.get("multi_step")
    if isinstance(pooled, dict) and pooled.get("cases"):
        writer.writerow([MULTI_STEP_ROW, "pooled", str(repeats), "", "", "", "",
                         pooled["cases"], "", "", "",
                         *(_cell(pooled["pass_hat_k"].get(k)) for k in ks),
                         *(_cell(pooled["pass_at_k"].get(k)) for k in ks)])
    for name, cat in document.get("categories", {}).items():
        writer.writerow([name, "category", *_spread_cells(cat["accuracy"]), cat["cases"],
                         cat["consistent_pass"], cat["consistent_fail"], cat["flaky"],
                         *(_cell(cat["pass_hat_k"].get(k)) for k in ks),
                         *(_cell(cat["pass_at_k"].get(k)) for k in ks)])
    return out.getvalue()


def _cell(value: Any) -> str:
    return "" if value is None else f"{float(value):.6f}"


def _spread_cells(found: Mapping[str, Any]) -> list[str]:
    ci = found.get("ci95") or [None, None]
    return [str(len(found.get("values", []))), _cell(found.get("mean")),
            _cell(found.get("std")), _cell(ci[0]), _cell(ci[1])]


def _percent(value: Any) -> str:
    return "—" if value is None else f"{100 * float(value):.1f}"


def _shown(found: Mapping[str, Any]) -> tuple[str, str, str]:
    """(mean, ± std, [low, high]) in percent, as the tables show them."""
    ci = found.get("ci95")
    interval = "—" if not ci else f"[{_percent(ci[0])}, {_percent(ci[1])}]"
    std = found.get("std")
    return _percent(found.get("mean")), "—" if std is None else f"±{100 * std:.1f}", interval


def table_lines(document: Mapping[str, Any]) -> list[str]:
    """The terminal's repeats summary of one run: summaries and categories with mean, std
    and 95% t-interval across repeats; consistency; pass^k / pass@k at the largest k for
    multi-turn and agentic categories; the flaky cases."""
    repeats = len(document.get("repeats", []))
    k = str(repeats)
    lines = [f"{document.get('model')}: {repeats} repeat(s) (mean, run-to-run std, 95% "
             f"t-interval over repeats; per case pass/fail/flaky; {INCOMPLETE_MARK}: some "
             "category under the summary was not run)"]
    for label, found in document.get("summaries", {}).items():
        mean, std, interval = _shown(found)
        mark = INCOMPLETE_MARK if found.get("incomplete") else ""
        lines.append(f"  {SHOWN.get(label, label) + mark:<28} {mean:>6} {std:>7} {interval}")
    for name, cat in document.get("categories", {}).items():
        mean, std, interval = _shown(cat["accuracy"])
        extra = (f"  pass^{k} {_percent(cat['pass_hat_k'].get(k))}  pass@{k} "
                 f"{_percent(cat['pass_at_k'].get(k))}" if cat.get("multi_step") else "")
        lines.append(f"  {name:<28} {mean:>6} {std:>7} {interval}  {cat['consistent_pass']}/"
                     f"{cat['consistent_fail']}/{cat['flaky']}{extra}")
    pooled = document.get("multi_step")
    if isinstance(pooled, dict) and pooled.get("cases"):
        lines.append(f"  multi-turn and agentic cases ({pooled['cases']}): pass^{k} "
                     f"{_percent(pooled['pass_hat_k'].get(k))}  pass@{k} "
                     f"{_percent(pooled['pass_at_k'].get(k))}")
    flaky = [f"{name}: {', '.join(cat['flaky_ids'])}"
             for name, cat in document.get("categories", {}).items() if cat["flaky_ids"]]
    if flaky:
        lines.append("  flaky cases (right in some repeats, wrong in others):")
        lines.extend(f"    {line}" for line in flaky)
    return lines


def html_section(documents: Mapping[str, Mapping[str, Any]]) -> str:
    """A self-contained HTML section for the report: per repeated run, a table of its
    summaries and categories across repeats, and its flaky cases listed apart. Empty
    without repeats."""
    if not documents:
        return ""
    parts = ['<section id="repeats"><h2>Repeats</h2><p>Scores across repeats of one run: '
             "mean, run-to-run standard deviation and 95% t-interval over the repeat scores; "
             "cases right in every repeat / wrong in every repeat / flaky; pass^k (all k "
             "repeats right) and pass@k (one of k) for multi-turn and agentic "
             "categories. fcbench's own statistics, beside the official scores.</p>"]
    for model, document in documents.items():
        k = str(len(document.get("repeats", [])))
        parts.append(f"<h3>{html.escape(model)} ({k} repeats)</h3><table class='repeats'>"
                     f"<tr><th></th><th>mean</th><th>std</th><th>95% CI</th>"
                     f"<th>pass / fail / flaky</th><th>pass^{k}</th><th>pass@{k}</th></tr>")
        rows = [(label, found, None) for label, found in document.get("summaries", {}).items()]
        rows += [(name, cat["accuracy"], cat)
                 for name, cat in document.get("categories", {}).items()]
        for label, found, cat in rows:
            mean, std, interval = _shown(found)
            label = SHOWN.get(label, label) + (INCOMPLETE_MARK if found.get("incomplete") else "")
            counts = "" if cat is None else (
                f"{cat['consistent_pass']} / {cat['consistent_fail']} / {cat['flaky']}")
            multi = cat is not None and cat.get("multi_step")
            hat = _percent(cat["pass_hat_k"].get(k)) if multi and cat else ""
            at = _percent(cat["pass_at_k"].get(k)) if multi and cat else ""
            parts.append(f"<tr><td>{html.escape(label)}</td><td>{mean}</td><td>{std}</td>"
                         f"<td>{interval}</td><td>{counts}</td><td>{hat}</td><td>{at}</td></tr>")
        parts.append("</table>")
        flaky = [(n, c["flaky_ids"]) for n, c in document.get("categories", {}).items()
                 if c["flaky_ids"]]
        if flaky:
            parts.append("<p>Flaky cases:</p><ul class='flaky'>" + "".join(
                f"<li>{html.escape(n)}: {html.escape(', '.join(ids))}</li>" for n, ids in flaky)
                + "</ul>")
    parts.append("</section>")
    return "".join(parts)


def paired_flips(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Two repeated runs compared case by case, repeat i of A with repeat i of B over the
    repeats both have: per category the paired cases' accuracy in each (mean over repeats
    and cases), the cases consistently gained (wrong in every A repeat, right in every B
    repeat) and lost, and the cases flaky in either, listed apart."""
    found: dict[str, dict[str, Any]] = {}
    for name, cat_a in a.get("categories", {}).items():
        cat_b = b.get("categories", {}).get(name)
        if cat_b is None:
            continue
        shared = sorted(set(cat_a["verdicts"]) & set(cat_b["verdicts"]))
        pairs = {case: (cat_a["verdicts"][case], cat_b["verdicts"][case]) for case in shared}
        n = min((min(len(x), len(y)) for x, y in pairs.values()), default=0)
        pairs = {case: (x[:n], y[:n]) for case, (x, y) in pairs.items()}
        right_a = sum(sum(x) for x, _ in pairs.values())
        right_b = sum(sum(y) for _, y in pairs.values())
        cells = n * len(pairs)
        found[name] = {
            "paired_cases": len(pairs), "paired_repeats": n,
            "a_accuracy": right_a / cells if cells else None,
            "b_accuracy": right_b / cells if cells else None,
            "gained": [c for c, (x, y) in pairs.items() if not any(x) and all(y)],
            "lost": [c for c, (x, y) in pairs.items() if all(x) and not any(y)],
            "flaky": [c for c, (x, y) in pairs.items()
                      if 0 < sum(x) < len(x) or 0 < sum(y) < len(y)],
        }
    return found


def with_section(page: str, score_dirs: Sequence[Path]) -> str:
    """The report page with the repeats section of `score_dirs` before its end (the page
    unchanged when no run there has repeats): a static block, apart from the page's
    script-built views."""
    documents: dict[str, dict[str, Any]] = {}
    for score_dir in score_dirs:
        documents.update(read_repeats(Path(score_dir)))
    section = html_section(documents)
    head, mark, tail = page.rpartition("</body>")
    return f"{head}{section}{mark}{tail}" if section and mark else page


def compared(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """Two repeated runs side by side: each summary's mean and interval across repeats on
    both sides, and per category the case-by-case pairing across repeats (`paired_flips`).
    No p-value: a case's repeats are not independent draws, so the flip tests of a single
    comparison do not apply; the intervals and the consistent flips are what to read."""
    summaries = {}
    for label, found_a in a.get("summaries", {}).items():
        found_b = b.get("summaries", {}).get(label)
        if found_b is not None:
            summaries[label] = {"a": found_a, "b": found_b,
                                "delta": found_b["mean"] - found_a["mean"]}
    return {"format": "fcbench-repeats-comparison", "a": a.get("model"), "b": b.get("model"),
            "repeats": [len(a.get("repeats", [])), len(b.get("repeats", []))],
            "summaries": summaries, "categories": paired_flips(a, b)}


def comparison_lines(comparison: Mapping[str, Any]) -> list[str]:
    """The terminal form of `compared`: summaries, then categories with the consistent
    gains and losses, then the flaky cases apart."""
    n_a, n_b = comparison["repeats"]
    lines = [f"A = {comparison['a']} ({n_a} repeats), B = {comparison['b']} ({n_b} repeats); "
             "mean and 95% t-interval across repeats, in percent"]
    for label, found in comparison["summaries"].items():
        mean_a, _, ci_a = _shown(found["a"])
        mean_b, _, ci_b = _shown(found["b"])
        lines.append(f"  {SHOWN.get(label, label):<28} A {mean_a:>6} {ci_a:<15} "
                     f"B {mean_b:>6} {ci_b:<15} "
                     f"delta {100 * found['delta']:+.1f}")
    flaky: list[str] = []
    for name, cat in comparison["categories"].items():
        lines.append(f"  {name:<28} A {_percent(cat['a_accuracy']):>6}  B "
                     f"{_percent(cat['b_accuracy']):>6}  over {cat['paired_cases']} case(s) x "
                     f"{cat['paired_repeats']} repeat(s); always gained {len(cat['gained'])}, "
                     f"always lost {len(cat['lost'])}")
        for kind in ("gained", "lost"):
            if cat[kind]:
                lines.append(f"    {kind}: {', '.join(cat[kind])}")
        if cat["flaky"]:
            flaky.append(f"    {name}: {', '.join(cat['flaky'])}")
    if flaky:
        lines.append("  flaky in A or B (not counted as gained or lost):")
        lines.extend(flaky)
    return lines


def repeated_target(score_dir: Path, model: str | None) -> dict[str, Any] | None:
    """The repeats document a `SCORE_DIR:F` target names when F is a repeated run (its
    repeats are the folder's models, F itself has no score files); None otherwise."""
    if model is None:
        return None
    return read_repeats(Path(score_dir)).get(model)


def tables_of(score_dir: Path, models: Iterable[str]) -> list[str]:
    """The repeats tables of the runs whose repeats are among `models` (those an
    evaluation just scored), from their summaries in `score_dir`."""
    documents = read_repeats(score_dir)
    lines: list[str] = []
    for base in repeat_groups(models):
        if base in documents:
            lines.extend(table_lines(documents[base]))
    return lines
