"""Every file and folder name fcbench reads or writes, in one place.

The names are the official tool's (spec §8.1), so that result and score folders can be moved
between fcbench and `bfcl-eval` either way:

    <result_dir>/<model>/<group>/BFCL_v4_<category>_result.json
    <score_dir>/<model>/<group>/BFCL_v4_<category>_score.json
    <result_dir>/<model>/model.json                      how the outputs are encoded (+ run log)

`<model>` is the model's registry name with `/` turned into `_`; `<group>` is the category's
registry group (non_live, live, multi_turn, agentic, format_sensitivity), except that memory
categories sit one level deeper, per backend: `agentic/memory/<kv|vector|rec_sum>/`, where
the memory snapshots of their prerequisite conversations live too. Dataset files are named
relative to the release's `data/` folder.
"""

from __future__ import annotations

import re
from pathlib import Path

from fcbench.core import categories
from fcbench.core.categories import Category

VERSION_PREFIX = "BFCL_v4"
"""The file-name prefix of today's data, result and score files."""

MANIFEST = "model.json"
"""A model folder's manifest: encoding, endpoint, sampling, dataset identity, run history."""

CUSTOM_DATASET_MANIFEST = "fcbench.json"
"""The file that makes a folder a custom dataset (its categories, checkers, files)."""

RESPONSE_CACHE_FILE = "responses.sqlite3"
"""The response cache's SQLite file, inside the cache folder (`--cache-dir`)."""

SCORE_FILE_GLOB = f"{VERSION_PREFIX}_*_score.json"
_CATEGORY_IN_NAME = re.compile(rf"{VERSION_PREFIX}_(\w+?)(?:_score|_result)?\.json$")
FC_SUFFIX = "-FC"
"""The official convention: a model folder whose name contains this holds FC-mode results."""


def _row(category: Category | str) -> Category:
    return category if isinstance(category, Category) else categories.get(category)


def model_dir_name(model: str) -> str:
    """The folder a model's files live in: its name with `/` turned into `_`."""
    return model.replace("/", "_")


def run_folder_name(model: str, mode: str, name: str | None = None) -> str:
    """A generated run's folder: `name` if given, else the model (with `-FC` in FC mode)."""
    folder = name or model
    if not name and mode == "fc" and not folder.endswith(FC_SUFFIX):
        folder += FC_SUFFIX
    return model_dir_name(folder)


SHARD_RECORD = "shard.json"
"""A shard's folder (`--shard K/N`): which shard, the run's categories and selection, the ids
the shard asks (what `fcbench merge` checks the shards against)."""


def shard_folder_name(folder: str, index: int, count: int) -> str:
    """Shard `index` of `count` of a run's folder: `<folder>.shard-<K>-of-<N>`."""
    return f"{folder}.shard-{index}-of-{count}"


def shard_record_path(model_dir: Path) -> Path:
    return model_dir / SHARD_RECORD


def category_dir(category: Category | str) -> Path:
    """Where a category's result and score files go below a model folder."""
    row = _row(category)
    if row.name.removesuffix("_prereq") in categories.MEMORY:
        return Path(row.group, "memory", memory_backend(row))
    return Path(row.group)


def memory_backend(category: Category | str) -> str:
    """`kv`, `vector` or `rec_sum` for a memory category (or its prerequisites)."""
    return _row(category).name.removeprefix("memory_").removesuffix("_prereq")


def result_file_name(category: Category | str) -> str:
    return f"{VERSION_PREFIX}_{_row(category).name}_result.json"


def result_path(model_dir: Path, category: Category | str) -> Path:
    """`<model_dir>/<group>/BFCL_v4_<category>_result.json`."""
    return Path(model_dir) / category_dir(category) / result_file_name(category)


def score_path(score_dir: Path, model: str, category: Category | str) -> Path:
    """`<score_dir>/<model>/<group>/BFCL_v4_<category>_score.json`."""
    row = _row(category)
    return (
        Path(score_dir) / model_dir_name(model) / category_dir(row)
        / f"{VERSION_PREFIX}_{row.name}_score.json"
    )


def category_of_file(path: Path | str) -> str | None:
    """The category name in a `BFCL_v4_<category>[_score|_result].json` file name, if any."""
    match = _CATEGORY_IN_NAME.search(Path(path).name)
    return match.group(1) if match else None


def manifest_path(model_dir: Path) -> Path:
    return Path(model_dir) / MANIFEST


USAGE_FILE = "fcbench_usage.json"
"""Beside a model's score files: the tokens and latencies of its last evaluation."""


def usage_path(score_dir: Path, model: str) -> Path:
    """`<score_dir>/<model>/fcbench_usage.json` (the official tool ignores it)."""
    return Path(score_dir) / model_dir_name(model) / USAGE_FILE


REPORT_NAME = "report.html"
"""The HTML report `evaluate` leaves in a score folder (the compare page links to it)."""
REPORT_LOG = "report_error.log"
"""Beside it, when it could not be made: the traceback its one-line error names."""


SERVE_LOG = "serve.log"
"""The output of a server fcbench started for a run (`--serve`, `--serve-cmd`)."""


def serve_log_path(model_dir: Path) -> Path:
    """`<model_dir>/serve.log`, next to the results the server produced."""
    return Path(model_dir) / SERVE_LOG


BATCH_STATE = "fcbench_batches.json"
"""The provider batches a `--batch` run submitted (ids and request names), so a resumed run
picks them up instead of submitting again (`runner.batch`)."""


def batch_state_path(model_dir: Path) -> Path:
    return Path(model_dir) / BATCH_STATE


def memory_snapshot_dir(model_dir: Path, category: Category | str) -> Path:
    """`<model_dir>/agentic/memory/<backend>/memory_snapshot/`: the prerequisite
    conversations' memory, which the category's questions load."""
    return Path(model_dir) / category_dir(category) / "memory_snapshot"


def web_record_dir(model_dir: Path) -> Path:
    """`<model_dir>/agentic/web_record/`: every search answer and fetched page of the model's
    web-search runs (content-addressed), so they can be replayed offline."""
    return Path(model_dir) / "agentic" / "web_record"


# --------------------------------------------------------------------------- dataset files


def question_file(category: Category | str) -> str:
    """A category's question file, relative to the release's `data/`."""
    row = _row(category)
    folder = "unused_datasets/question/" if row.retired else ""
    return f"{folder}{VERSION_PREFIX}_{row.stem}.json"


def answer_file(category: Category | str) -> str:
    """A category's possible-answer file, relative to the release's `data/`."""
    row = _row(category)
    folder = "unused_datasets/possible_answer/" if row.retired else "possible_answer/"
    return f"{folder}{VERSION_PREFIX}_{row.stem}.json"


def exec_sanity_file(kind: str) -> str:
    """The official executable sanity-check probes, relative to `data/`: `executable` (one
    known-good call per web-service function) or `rest` (line n: a working request for
    `rest_n`)."""
    return f"unused_datasets/executable_eval_sanity_check/api_status_check_ground_truth_{kind}.json"


def format_sensitivity_file() -> str:
    """The selection of format-sensitivity items, relative to `data/`."""
    return f"{VERSION_PREFIX}_format_sensitivity.json"


def func_doc_file(file_name: str) -> str:
    """A multi-turn class's function docs, relative to `data/`."""
    return f"multi_turn_func_doc/{file_name}"


# --------------------------------------------------------------------------- repeats

REPEAT_MARK = ".repeat-"
"""`--repeats N`: repeat i of a run in folder F is the ordinary model folder
`F.repeat-<i>` beside where F would be, in the result and in the score folder. Siblings, not
children of F: result and score files are found at any depth below a model folder, so
repeats inside F would be read as one model's files; side by side, each repeat is a model
that evaluate, report and compare read on its own (docs/results-schema.md, "Repeats")."""
REPEATS_SUFFIX = ".repeats"
"""`<score_dir>/F.repeats.json` and `.csv`: the statistics across F's repeats (files of
their own, never inside the official score files)."""


def repeat_folder_name(folder: str, index: int) -> str:
    """The folder of repeat `index` (from 1) of the run in `folder`."""
    return f"{folder}{REPEAT_MARK}{index}"


def repeat_of(folder: str) -> tuple[str, int] | None:
    """(the run's folder, repeat index) of a repeat's folder name; None for any other."""
    base, mark, index = folder.rpartition(REPEAT_MARK)
    if not mark or not base or not (index.isascii() and index.isdigit()) or index.startswith("0"):
        return None  # `isdigit` alone admits `²`, which int() refuses
    return base, int(index)


def repeats_path(score_dir: Path, folder: str, suffix: str = ".json") -> Path:
    """`<score_dir>/<folder>.repeats.json` (or `.csv`)."""
    return Path(score_dir) / f"{model_dir_name(folder)}{REPEATS_SUFFIX}{suffix}"
