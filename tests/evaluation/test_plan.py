"""Judging a folder under another corrections profile than the one it was generated with is
said in one problem line (its answers carry one profile's fixes, the verdicts another's)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from fcbench import corrections
from fcbench.decode.encoding import Encoding
from fcbench.evaluation.plan import plan_model
from fcbench.evaluation.types import ModelEvaluation


@pytest.fixture(autouse=True)
def default_profile() -> Iterator[None]:
    yield
    corrections.use_profile(None)


def problems(folder: Path) -> list[str]:
    model = ModelEvaluation("m", Encoding("fc", "underscore", "json_string"))
    plan_model(model, folder, frozenset())
    return model.problems


@pytest.mark.parametrize("recorded", [None, "none", "community-2026"])
def test_a_profile_mismatch_is_a_problem_line(tmp_path: Path, recorded: str | None) -> None:
    manifest = {"model": "m"} if recorded is None else {"model": "m", "corrections": recorded}
    (tmp_path / "model.json").write_text(json.dumps(manifest))
    on_default = problems(tmp_path)
    corrections.use_profile("community-2026")
    on_profile = problems(tmp_path)
    if recorded == "community-2026":
        assert on_profile == [] and len(on_default) == 1
        assert "generated with --corrections community-2026, judged with --corrections none" in (
            on_default[0])
    else:  # no record: an older fcbench, or the default
        assert on_default == [] and len(on_profile) == 1
        assert "pass --corrections none to match" in on_profile[0]
