"""Fetching, caching and verifying the official data."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from fcbench.dataset import fetch as fetch_module
from fcbench.dataset.fetch import (
    DEFAULT_RELEASE,
    CorruptDataError,
    DataError,
    clear_caches,
    fcbench_home,
    is_fetched,
    load_constants,
    read_data_file,
    release_dir,
)
from fcbench.dataset.install import fetch
from fcbench.dataset.literals import CONSTANT_MODULES
from fcbench.dataset.wheel import wheel_release


def _release(home: Path) -> Path:
    return home / "releases" / DEFAULT_RELEASE


def _manifest(home: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((_release(home) / "manifest.json").read_text())
    return result


def _wheel_data(wheel: Path) -> dict[str, bytes]:
    prefix = "bfcl_eval/data/"
    with zipfile.ZipFile(wheel) as zf:
        return {
            n[len(prefix):]: zf.read(n)
            for n in zf.namelist()
            if n.startswith(prefix) and not n.endswith("/")
        }


def _flip_byte(path: Path, offset: int = 10) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


# --------------------------------------------------------------------------- home


def test_home_prefers_fcbench_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FCBENCH_HOME", str(tmp_path / "h"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert fcbench_home() == tmp_path / "h"


def test_home_falls_back_to_xdg_then_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("FCBENCH_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert fcbench_home() == tmp_path / "xdg" / "fcbench"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert fcbench_home() == tmp_path / "user" / ".cache" / "fcbench"


# --------------------------------------------------------------------------- layout


def test_fetch_copies_the_whole_data_tree(home: Path, bfcl_wheel: Path) -> None:
    expected = _wheel_data(bfcl_wheel)
    data = _release(home) / "data"
    got = {p.relative_to(data).as_posix() for p in data.rglob("*") if p.is_file()}
    assert got == set(expected)
    assert len(got) == 71
    for rel in ("BFCL_v4_simple_python.json", "unused_datasets/question/BFCL_v4_sql.json"):
        assert (data / rel).read_bytes() == expected[rel]


def test_manifest_records_every_file(home: Path, bfcl_wheel: Path) -> None:
    manifest = _manifest(home)
    assert manifest["release"] == DEFAULT_RELEASE
    assert manifest["source"] == str(bfcl_wheel.resolve())
    assert manifest["fetched_at"]
    expected = {rel: hashlib.sha256(b).hexdigest() for rel, b in _wheel_data(bfcl_wheel).items()}
    assert manifest["files"] == expected
    constants = (_release(home) / "constants.json").read_bytes()
    assert manifest["constants_sha256"] == hashlib.sha256(constants).hexdigest()


def test_release_dir_and_is_fetched(home: Path) -> None:
    assert release_dir() == _release(home)
    assert is_fetched()
    assert not is_fetched("2000.1.1")


def test_no_staging_leftovers(home: Path) -> None:
    assert [p.name for p in (home / "releases").iterdir()] == [DEFAULT_RELEASE]


# --------------------------------------------------------------------------- idempotence


def test_fetch_again_does_nothing(copied_home: Path, bfcl_wheel: Path) -> None:
    manifest = _release(copied_home) / "manifest.json"
    before = (manifest.stat().st_ino, manifest.read_text())
    assert fetch(source=bfcl_wheel) == _release(copied_home)
    assert fetch() == _release(copied_home)  # present: pip is never consulted
    assert (manifest.stat().st_ino, manifest.read_text()) == before


def test_force_fetches_again(copied_home: Path, bfcl_wheel: Path) -> None:
    manifest = _release(copied_home) / "manifest.json"
    inode = manifest.stat().st_ino
    fetch(source=bfcl_wheel, force=True)
    assert manifest.stat().st_ino != inode
    assert [p.name for p in (copied_home / "releases").iterdir()] == [DEFAULT_RELEASE]
    assert read_data_file("BFCL_v4_simple_python.json")


def test_damaged_release_is_fetched_again(copied_home: Path, bfcl_wheel: Path) -> None:
    target = _release(copied_home) / "data" / "BFCL_v4_multiple.json"
    _flip_byte(target)
    assert not is_fetched()
    fetch(source=bfcl_wheel)
    assert is_fetched()
    assert target.read_bytes() == _wheel_data(bfcl_wheel)["BFCL_v4_multiple.json"]


# --------------------------------------------------------------------------- verification


def test_corrupt_file_is_reported(copied_home: Path) -> None:
    _flip_byte(_release(copied_home) / "data" / "BFCL_v4_simple_python.json")
    with pytest.raises(CorruptDataError) as info:
        read_data_file("BFCL_v4_simple_python.json")
    message = str(info.value)
    assert "BFCL_v4_simple_python.json" in message
    assert "fcbench data fetch --force" in message
    assert "\n" not in message
    assert read_data_file("BFCL_v4_multiple.json")  # the others are still fine


def test_file_changed_after_verification_is_reported(copied_home: Path) -> None:
    rel = "possible_answer/BFCL_v4_parallel.json"
    assert read_data_file(rel)
    path = _release(copied_home) / "data" / rel
    path.write_bytes(path.read_bytes() + b"\n")
    with pytest.raises(CorruptDataError, match=r"BFCL_v4_parallel\.json"):
        read_data_file(rel)


def test_missing_file_is_reported(copied_home: Path) -> None:
    (_release(copied_home) / "data" / "BFCL_v4_live_simple.json").unlink()
    with pytest.raises(CorruptDataError, match="--force"):
        read_data_file("BFCL_v4_live_simple.json")


def test_corrupt_constants_are_reported(copied_home: Path) -> None:
    _flip_byte(_release(copied_home) / "constants.json", offset=40)
    with pytest.raises(CorruptDataError, match=r"constants\.json"):
        load_constants()


def test_each_file_is_hashed_once(copied_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = fetch_module.sha256_hex

    def counting(data: bytes) -> str:
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(fetch_module, "sha256_hex", counting)
    for _ in range(3):
        read_data_file("BFCL_v4_simple_java.json")
    assert len(calls) == 1


def test_sha256_without_hashlib_matches_hashlib() -> None:
    for data in (b"", b"abc", bytes(range(256)) * 999):
        assert fetch_module.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_unknown_or_unsafe_paths_are_refused(home: Path) -> None:
    with pytest.raises(DataError, match="not part of"):
        read_data_file("BFCL_v4_nothing.json")
    with pytest.raises(DataError, match="invalid"):
        read_data_file("../manifest.json")


# --------------------------------------------------------------------------- missing data


def test_missing_release_says_what_to_do(empty_home: Path) -> None:
    for call in (release_dir, load_constants, lambda: read_data_file("BFCL_v4_multiple.json")):
        with pytest.raises(DataError) as info:
            call()
        message = str(info.value)
        assert "`fcbench data fetch`" in message
        wheel = f"bfcl_eval-{DEFAULT_RELEASE}-py3-none-any.whl"
        assert f"fcbench data fetch --from PATH/TO/{wheel}" in message
        assert "\n" not in message


def test_pip_failure_is_one_clear_line(empty_home: Path, offline_pip: None) -> None:
    with pytest.raises(DataError) as info:
        fetch()
    message = str(info.value)
    assert f"could not download bfcl-eval=={DEFAULT_RELEASE} with pip (ERROR:" in message
    assert f"--from PATH/TO/bfcl_eval-{DEFAULT_RELEASE}-py3-none-any.whl" in message
    assert "\n" not in message
    assert list((empty_home / "releases").iterdir()) == []  # the staging dir is gone


def test_missing_source(empty_home: Path, tmp_path: Path) -> None:
    with pytest.raises(DataError, match="does not exist"):
        fetch(source=tmp_path / "nothing.whl")


def test_folder_that_is_not_data(empty_home: Path, tmp_path: Path) -> None:
    (tmp_path / "stuff").mkdir()
    with pytest.raises(DataError, match="neither"):
        fetch(source=tmp_path / "stuff")


def test_not_a_wheel(empty_home: Path, tmp_path: Path) -> None:
    fake = tmp_path / "bfcl_eval-2026.3.23-py3-none-any.whl"
    fake.write_text("not a zip")
    with pytest.raises(DataError, match="cannot read the wheel"):
        fetch(source=fake)


def test_wheel_of_another_release_is_refused(empty_home: Path, bfcl_wheel: Path) -> None:
    assert wheel_release(bfcl_wheel) == DEFAULT_RELEASE
    with pytest.raises(DataError, match=f"--release {DEFAULT_RELEASE}"):
        fetch("2025.1.1", source=bfcl_wheel)


def test_invalid_release_name(empty_home: Path) -> None:
    with pytest.raises(DataError, match="invalid release"):
        fetch("../../etc")


# --------------------------------------------------------------------------- folder sources


@pytest.fixture(scope="module")
def unpacked_wheel(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(bfcl_wheel) as zf:
        zf.extractall(root)
    return root


def test_fetch_from_a_package_folder(
    empty_home: Path, unpacked_wheel: Path, bfcl_wheel: Path
) -> None:
    fetch(source=unpacked_wheel)
    expected = {rel: hashlib.sha256(b).hexdigest() for rel, b in _wheel_data(bfcl_wheel).items()}
    assert _manifest(empty_home)["files"] == expected
    constants = load_constants()
    assert constants["_missing"] == []
    assert set(CONSTANT_MODULES) <= set(constants)


def test_fetch_from_a_data_folder(empty_home: Path, unpacked_wheel: Path, tmp_path: Path) -> None:
    import shutil

    data = tmp_path / "mydata"
    shutil.copytree(unpacked_wheel / "bfcl_eval" / "data", data)
    fetch(source=data)
    clear_caches()
    assert read_data_file("BFCL_v4_irrelevance.json")
    assert load_constants()["_missing"] == list(CONSTANT_MODULES)  # no modules beside it


def test_fetch_from_the_data_folder_inside_a_package(
    empty_home: Path, unpacked_wheel: Path
) -> None:
    fetch(source=unpacked_wheel / "bfcl_eval" / "data")
    assert load_constants()["_missing"] == []
