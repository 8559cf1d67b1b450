"""The official executable sanity-check probes as fcbench reads them, and the `rest` cases'
reference requests that come from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fcbench.dataset.exec_probes import executable_probes, rest_probes
from fcbench.dataset.fetch import DataError
from fcbench.dataset.load import load_category
from fcbench.layout import exec_sanity_file


def test_release_probes(home: Path) -> None:
    probes = executable_probes()
    assert len(probes) == 28 and len({p.function for p in probes}) == 19
    assert probes[0].call == "get_weather_data(coordinates=[90.00, 0.00])"
    assert probes[0].expected == -0.4 and probes[0].result_type == "structural_match"
    rest = rest_probes()
    assert [p.rest_id for p in rest] == [f"rest_{i}" for i in range(70)]
    assert all(p.function == "requests.get" for p in rest)


def test_rest_cases_carry_their_reference_request(home: Path) -> None:
    cases = load_category("rest")
    calls = {p.rest_id: p.call for p in rest_probes()}
    assert all(c.extras["reference_call"] == calls[c.id] for c in cases)
    assert "timezone-by-location" in cases[0].extras["reference_call"]
    assert "reference_call" not in load_category("exec_simple")[0].extras


def test_a_folder_without_probes_has_none(tmp_path: Path, empty_home: Path) -> None:
    assert executable_probes(data_root=tmp_path) == [] and rest_probes(data_root=tmp_path) == []


def test_a_broken_probe_is_one_clear_error(tmp_path: Path, empty_home: Path) -> None:
    path = tmp_path / exec_sanity_file("executable")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"idx": 1, "ground_truth": ["f()", "g()"]}) + "\n")
    with pytest.raises(DataError, match=r"line 1: not a one-call sanity-check probe"):
        executable_probes(data_root=tmp_path)
    rest = tmp_path / exec_sanity_file("rest")
    rest.write_text(json.dumps({"idx": 0, "ground_truth": 5}) + "\n")
    with pytest.raises(DataError, match="not a call string"):
        rest_probes(data_root=tmp_path)
