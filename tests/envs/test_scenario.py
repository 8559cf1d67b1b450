"""The scenario set: environments are created for the case's release.

The test home holds one release only, under another name, whose long-context filler differs
from the default release's: every environment, and generation and checking through them,
must read that release (and never need the default one).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.dataset.fetch import DEFAULT_RELEASE, clear_caches
from fcbench.dataset.load import load_category
from fcbench.envs.scenario import Scenario, takes_release

OTHER = "2026.9.9"
MARKER = " [filler of release 2026.9.9]"


@pytest.fixture
def other_release_only(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A home whose only release is a copy of the default one with another file filler."""
    home = tmp_path / "home"
    target = home / "releases" / OTHER
    shutil.copytree(fetched_home / "releases" / DEFAULT_RELEASE, target,
                    ignore=shutil.ignore_patterns("derived"))
    constants = json.loads((target / "constants.json").read_text(encoding="utf-8"))
    constants["long_context"]["FILE_CONTENT_EXTENSION"] += MARKER
    text = json.dumps(constants, ensure_ascii=False, indent=1) + "\n"
    (target / "constants.json").write_text(text, encoding="utf-8")
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["release"] = OTHER
    manifest["constants_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    (target / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setenv("FCBENCH_HOME", str(home))
    clear_caches()
    _forget_fillers(monkeypatch)
    return home


def _forget_fillers(monkeypatch: pytest.MonkeyPatch) -> None:
    from fcbench.envs.multi_turn import long_context, trading_bot, travel_booking, vehicle_control

    monkeypatch.setattr(long_context, "_CACHE", {})
    for module in (trading_bot, travel_booking, vehicle_control):
        monkeypatch.setattr(module, "_FILLER", {})


def _long_file_system_case() -> object:
    return next(c for c in load_category("multi_turn_long_context", OTHER)
                if "GorillaFileSystem" in c.extras["involved_classes"])


@pytest.mark.usefixtures("other_release_only")
def test_environments_read_their_release() -> None:
    case = _long_file_system_case()
    files = Scenario(case, "m", OTHER).instances["GorillaFileSystem"]
    texts = [f.content for f in _files(files.root)]  # type: ignore[attr-defined]
    assert texts and any(t.endswith(MARKER) for t in texts)


def _files(directory: object) -> list[object]:
    found: list[object] = []
    for entry in directory.contents.values():  # type: ignore[attr-defined]
        found += _files(entry) if hasattr(entry, "contents") else [entry]
    return found


def test_every_long_context_environment_takes_the_release() -> None:
    from fcbench.envs.scenario import environment_class

    for name in ("GorillaFileSystem", "TradingBot", "TravelAPI", "VehicleControlAPI",
                 "MessageAPI", "TwitterAPI", "TicketAPI"):
        assert takes_release(environment_class(name)), name

    class Plain:
        def _load_scenario(self, config: dict[str, object], long_context: bool = False) -> None:
            pass

    assert not takes_release(Plain)


def test_generation_and_checking_with_only_another_release(
    other_release_only: Path, tmp_path: Path
) -> None:
    """`--release` with only that release fetched: every long-context case generates and
    scores (the environments once read the default release and failed every case)."""
    from fcbench.cli import main

    args = ["run", "--model", "ground-truth", "--categories", "multi_turn_long_context",
            "--release", OTHER, "--result-dir", str(tmp_path / "r"),
            "--score-dir", str(tmp_path / "s"), "--quiet"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    path = tmp_path / "s" / "ground-truth-FC" / "multi_turn"
    header = json.loads((path / "BFCL_v4_multi_turn_long_context_score.json").read_text()
                        .splitlines()[0])
    assert (header["correct_count"], header["total_count"]) == (200, 200)
    assert not (other_release_only / "releases" / DEFAULT_RELEASE).exists()
    first = json.loads((tmp_path / "r" / "ground-truth-FC" / "multi_turn" /
                        "BFCL_v4_multi_turn_long_context_result.json").read_text().splitlines()[0])
    logged = json.dumps(first["inference_log"])
    assert MARKER.strip() in logged or "GorillaFileSystem" not in logged
