"""The oracle helper (tests/official.py): getting the wheel on a fresh clone, and importing it.

Downloads are served by pip from a local folder (`--no-index --find-links`), never the network.
"""

from __future__ import annotations

import os
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

import official


def local_pip(monkeypatch: pytest.MonkeyPatch, folder: Path | None) -> None:
    """pip answers only from `folder` (None: pip has no source at all and fails at once)."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    if folder is None:
        monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    else:
        monkeypatch.setenv("PIP_FIND_LINKS", str(folder))


def fake_wheel(folder: Path) -> Path:
    """A well-formed bfcl-eval 2026.3.23 wheel that is not the published one."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / official.WHEEL_NAME
    info = f"bfcl_eval-{official.VERSION}.dist-info"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("bfcl_eval/__init__.py", "")
        zf.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: bfcl-eval\n"
                                        f"Version: {official.VERSION}\n")
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n"
                                     "Tag: py3-none-any\n")
        zf.writestr(f"{info}/RECORD", "")
    return path


@pytest.fixture
def wheel_index(bfcl_wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pip answers from a local folder holding the published wheel."""
    index = tmp_path / "index"
    index.mkdir()
    shutil.copy(bfcl_wheel, index)
    local_pip(monkeypatch, index)
    return index


def test_the_shared_wheel_is_used_when_present(bfcl_wheel: Path, tmp_path: Path) -> None:
    assert official.obtain_wheel(tmp_path / "cache", shared=bfcl_wheel) == bfcl_wheel
    assert not (tmp_path / "cache").exists()


def test_without_shared_the_wheel_is_downloaded_once_and_verified(
    wheel_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    got = official.obtain_wheel(cache, shared=tmp_path / "absent.whl")
    assert got == cache / official.WHEEL_NAME
    assert official.sha256_file(got) == official.WHEEL_SHA256
    assert sorted(p.name for p in cache.iterdir()) == [official.WHEEL_NAME]  # no leftovers
    local_pip(monkeypatch, None)  # a second session needs no pip at all
    assert official.obtain_wheel(cache, shared=tmp_path / "absent.whl") == got


def test_a_damaged_cached_wheel_is_downloaded_again(wheel_index: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / official.WHEEL_NAME).write_bytes(b"truncated")
    got = official.obtain_wheel(cache, shared=tmp_path / "absent.whl")
    assert official.sha256_file(got) == official.WHEEL_SHA256


def test_a_wheel_with_another_digest_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local_pip(monkeypatch, fake_wheel(tmp_path / "index").parent)
    cache = tmp_path / "cache"
    with pytest.raises(official.WheelUnavailable, match=r"sha256 .* expected 3bb6dfa5"):
        official.obtain_wheel(cache, shared=tmp_path / "absent.whl")
    assert not (cache / official.WHEEL_NAME).exists()


def test_a_failed_download_names_its_cause(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local_pip(monkeypatch, None)
    with pytest.raises(official.WheelUnavailable) as caught:
        official.obtain_wheel(tmp_path / "cache", shared=tmp_path / "absent.whl")
    message = str(caught.value)
    assert "pip download bfcl-eval==2026.3.23` failed" in message
    assert "ERROR" in message and official.WHEEL_NAME in message
    assert "\n" not in message


def test_importable_forgets_everything_afterwards(official_root: Path) -> None:
    before = set(sys.modules)
    with official.importable(official_root):
        from bfcl_eval.model_handler import utils

        assert utils.convert_to_tool
        assert os.environ["BFCL_PROJECT_ROOT"] == str(official_root / "project")
    assert not [name for name in sys.modules if name.startswith("bfcl_eval")]
    assert str(official_root) not in sys.path
    assert not [f for f in sys.meta_path if type(f).__name__ == "_PlaceholderFinder"]
    for name in official.STAND_INS:
        if name not in before:
            assert getattr(sys.modules.get(name), "__doc__", None) != "fcbench tests stand-in"


def test_a_fresh_interpreter_imports_the_official_evaluator(
    official_root: Path, tmp_path: Path
) -> None:
    done = official.run_python(
        official_root,
        "from bfcl_eval.eval_checker import eval_runner; import sys; "
        "print(eval_runner.__file__.startswith(sys.argv[1]))",
        tmp_path,
        str(official_root),
    )
    assert done.stdout.strip().endswith("True")
