"""`fcbench merge` never loses or duplicates a written result, whatever the shards hold.

Hypothesis writes shard folders by hand (model.json, shard.json, result files) with every
mess a cluster can leave: cases missing, errors, finished and errored copies of one case in
several shards (a re-run with other settings, a copied folder), repeated and torn lines,
odd result text, and a target folder already holding entries. The merged file must hold
every id found anywhere exactly once, in the official order; a finished entry wherever one
exists; the owning shard's entry when it is finished; and the lists must name exactly the
duplicated and the missing ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench.core.model import id_order
from fcbench.dataset.shards import shard_of
from fcbench.layout import result_path
from fcbench.results.merge import merge
from fcbench.results.store import is_error, write_entries

CATEGORY = "simple_python"
IDS = [f"{CATEGORY}_{i}" for i in range(14)]
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8) | (
    st.integers(-(10**30), 10**30).map(str))
ENTRY = st.tuples(st.booleans(), TEXT)  # (errored?, result text)


def line(test_id: str, errored: bool, text: str) -> dict[str, Any]:
    if errored:
        return {"id": test_id, "result": f"Error during inference: {text}", "attempts": 1,
                "error": text or "x"}
    return {"id": test_id, "result": text, "attempts": 1}


def write_shard(root: Path, index: int, count: int, entries: dict[str, list[dict[str, Any]]],
                torn: bool) -> Path:
    folder = root / f"m.shard-{index}-of-{count}"
    folder.mkdir(parents=True)
    owned = sorted((i for i in IDS if shard_of(i, count) == index), key=id_order)
    manifest = {"model": "m", "mode": "fc", "dataset": {"release": "r"},
                "categories": [CATEGORY], "shard": {"index": index, "count": count},
                "runs": [], "started_at": "a", "finished_at": "b"}
    (folder / "model.json").write_text(json.dumps(manifest))
    (folder / "shard.json").write_text(json.dumps({
        "index": index, "count": count, "selection": "every case", "categories": [CATEGORY],
        "totals": {CATEGORY: len(IDS)}, "ids": {CATEGORY: owned}}))
    path = result_path(folder, CATEGORY)
    path.parent.mkdir(parents=True)
    lines = [json.dumps(e) + "\n" for entries_of in entries.values() for e in entries_of]
    path.write_text("".join(lines) + ('{"id": "simple_python_1", "res' if torn else ""))
    return folder


@st.composite
def layouts(draw: st.DrawFn) -> tuple[int, dict[int, dict[str, list[tuple[bool, str]]]],
                                      dict[str, tuple[bool, str]], set[int]]:
    count = draw(st.integers(1, 4))
    shards: dict[int, dict[str, list[tuple[bool, str]]]] = {}
    for index in range(count):
        held: dict[str, list[tuple[bool, str]]] = {}
        for test_id in IDS:
            mine = shard_of(test_id, count) == index
            if draw(st.integers(0, 9)) < (8 if mine else 1):  # owners hold most, others few
                held[test_id] = draw(st.lists(ENTRY, min_size=1, max_size=2))
        shards[index] = held
    existing = draw(st.dictionaries(st.sampled_from(IDS), ENTRY, max_size=4))
    torn = draw(st.sets(st.integers(0, count - 1), max_size=1))
    return count, shards, existing, torn


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(layout=layouts())
def test_merge_never_loses_or_doubles(tmp_path_factory: Any, layout: Any) -> None:
    count, shards, existing, torn = layout
    root = tmp_path_factory.mktemp("merge")
    folders = []
    for index, held in shards.items():
        entries = {i: [line(i, *e) for e in held_entries] for i, held_entries in held.items()}
        folders.append(write_shard(root, index, count, entries, index in torn))
    into = root / "into"
    if existing:
        (into / "model.json").parent.mkdir(parents=True)
        (into / "model.json").write_text(json.dumps({"model": "m", "mode": "fc"}))
        target = result_path(into, CATEGORY)
        target.parent.mkdir(parents=True)
        write_entries(target, [line(i, *e) for i, e in existing.items()])

    report = merge(folders, into)

    text = result_path(into, CATEGORY).read_text(encoding="utf-8")
    written = [json.loads(x) for x in text.split("\n") if x]  # not splitlines: U+0085 is text
    ids = [e["id"] for e in written]
    assert ids == sorted(set(ids), key=id_order)  # once each, in the official order
    # what each shard's file reads as (a resume's reading: a finished line beats an error)
    read: dict[int, dict[str, tuple[bool, str]]] = {}
    for index, held in shards.items():
        read[index] = {}
        for test_id, entries in held.items():
            finished = [e for e in entries if not e[0]]
            read[index][test_id] = finished[-1] if finished else entries[-1]
    everywhere = set(existing) | {i for held in read.values() for i in held}
    assert set(ids) == everywhere  # nothing lost, nothing invented
    by_id = {e["id"]: e for e in written}
    for test_id in everywhere:
        sources = [held[test_id] for held in read.values() if test_id in held]
        if test_id in existing:
            sources.append(existing[test_id])
        if any(not errored for errored, _ in sources):
            assert not is_error(by_id[test_id]), test_id  # a finished answer is never lost
        owner = shard_of(test_id, count)
        if test_id in read[owner] and not read[owner][test_id][0]:
            assert by_id[test_id]["result"] == read[owner][test_id][1]
    twice = {i for i in everywhere if sum(i in held for held in read.values()) > 1}
    assert set(report.duplicated) == twice and len(report.duplicated) == len(twice)
    owned_missing = {i for i in IDS if not any(i in held for held in read.values())
                     and i not in existing}
    assert set(report.missing) == owned_missing
