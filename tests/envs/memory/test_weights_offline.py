"""The weights are found where the README's set-up put them, the hub is asked only when a user
says so, and a missing-weights error names the command that fetches them."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from fcbench.envs.memory import weights
from fcbench.envs.memory.weights import (
    HUB_VAR,
    EmbeddingUnavailable,
    cached_model_dir,
    locate_model,
)
from user_weights import point_at_user_weights


def model_folder(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name in weights.REQUIRED_FILES:
        (path / name).write_text(name)
    return path


@pytest.fixture
def nothing_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """No weights anywhere and the hub allowed by Hugging Face's own setting; a stand-in
    `huggingface_hub` records each download asked of it (and serves a folder)."""
    for var in ("FCBENCH_EMBEDDING_MODEL", "HF_HUB_CACHE", "HF_HOME", "HF_HUB_OFFLINE", HUB_VAR):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("FCBENCH_HOME", str(tmp_path / "user-home"))
    monkeypatch.setattr(weights, "_WEIGHTS_MODULE", "fcbench_test_absent_weights_package")
    asked: list[str] = []
    served = tmp_path / "from-hub"

    def snapshot_download(repo_id: str, **kwargs: object) -> str:
        asked.append(repo_id)
        return str(model_folder(served))

    hub = types.ModuleType("huggingface_hub")
    hub.snapshot_download = snapshot_download  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "huggingface_hub", hub)
    return asked


def test_missing_weights_name_the_fetch_command(nothing_here: list[str]) -> None:
    with pytest.raises(EmbeddingUnavailable, match=r"run `fcbench data fetch-embeddings`"):
        locate_model()


def test_the_hub_is_not_asked_unless_a_user_says_so(nothing_here: list[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EmbeddingUnavailable):
        locate_model()
    assert nothing_here == []
    monkeypatch.setenv(HUB_VAR, "1")
    assert locate_model().name == "from-hub"
    assert nothing_here == [weights.MODEL_ID]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EmbeddingUnavailable):
        locate_model(download=True)  # Hugging Face's own offline switch still wins


def test_weights_fetched_into_the_users_home_survive_a_test_home(
        nothing_here: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's order: `fcbench data fetch-embeddings` into the user's home, then the
    tests, whose `fetched_home` fixture points FCBENCH_HOME elsewhere."""
    fetched = model_folder(cached_model_dir())
    assert point_at_user_weights() == str(fetched)
    monkeypatch.setenv("FCBENCH_HOME", str(tmp_path / "a-test-home"))
    assert locate_model() == fetched
    assert nothing_here == []
