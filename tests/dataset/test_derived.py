"""The derived-data cache: reused while its sources and fcbench are unchanged, rebuilt
otherwise, never trusted when damaged, optional when unwritable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fcbench.dataset import derived
from fcbench.dataset.fetch import (
    DEFAULT_RELEASE,
    CorruptDataError,
    clear_caches,
    read_data_file,
    release_dir,
)

SOURCES = ["BFCL_v4_simple_java.json", "possible_answer/BFCL_v4_simple_java.json"]
VALUE = {"cases": [("simple_java_0", [1, 2.5, None, True], {"k": "é"})], "n": 10**30}


class Builder:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> Any:
        self.calls += 1
        return VALUE


def cache_file(name: str = "demo") -> Path:
    return release_dir(DEFAULT_RELEASE) / derived.FOLDER / f"{name}.marshal"


def test_built_once_then_read_back_exactly(copied_home: Path) -> None:
    build = Builder()
    first = derived.cached("demo", DEFAULT_RELEASE, SOURCES, build)
    second = derived.cached("demo", DEFAULT_RELEASE, SOURCES, build)
    assert first == second == VALUE and build.calls == 1
    assert type(second["cases"][0]) is tuple  # marshal keeps tuples, unlike JSON


def test_other_sources_or_versions_rebuild(
    copied_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = Builder()
    derived.cached("demo", DEFAULT_RELEASE, SOURCES, build)
    derived.cached("demo", DEFAULT_RELEASE, SOURCES[:1], build)
    assert build.calls == 2
    monkeypatch.setattr(derived, "__version__", "999")
    derived.cached("demo", DEFAULT_RELEASE, SOURCES[:1], build)
    assert build.calls == 3


def test_a_refetched_source_rebuilds(copied_home: Path) -> None:
    build = Builder()
    derived.cached("demo", DEFAULT_RELEASE, SOURCES, build)
    manifest_path = release_dir(DEFAULT_RELEASE) / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["files"][SOURCES[0]] = "0" * 64  # as if the release now had other content
    manifest_path.write_text(json.dumps(manifest))
    clear_caches()
    derived.cached("demo", DEFAULT_RELEASE, SOURCES, build)
    assert build.calls == 2


@pytest.mark.parametrize("damage", ["flip", "truncate", "header", "empty"])
def test_a_damaged_file_is_rebuilt_not_used(copied_home: Path, damage: str) -> None:
    build = Builder()
    derived.cached("demo", DEFAULT_RELEASE, SOURCES, build)
    path = cache_file()
    blob = bytearray(path.read_bytes())
    if damage == "flip":
        blob[-3] ^= 0xFF
    elif damage == "truncate":
        del blob[-10:]
    elif damage == "header":
        blob[:1] = b"["
    else:
        blob = bytearray()
    path.write_bytes(bytes(blob))
    assert derived.cached("demo", DEFAULT_RELEASE, SOURCES, build) == VALUE
    assert build.calls == 2
    assert derived.cached("demo", DEFAULT_RELEASE, SOURCES, build) == VALUE
    assert build.calls == 2  # the rebuilt file was written back


def test_an_unwritable_cache_still_answers(copied_home: Path) -> None:
    folder = release_dir(DEFAULT_RELEASE) / derived.FOLDER
    shutil.rmtree(folder, ignore_errors=True)  # other tests may have filled it
    folder.write_text("a file where the folder goes")
    build = Builder()
    assert derived.cached("demo", DEFAULT_RELEASE, SOURCES, build) == VALUE
    assert derived.cached("demo", DEFAULT_RELEASE, SOURCES, build) == VALUE
    assert build.calls == 2
    leftovers = [p for p in release_dir(DEFAULT_RELEASE).iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_values_marshal_cannot_store_are_returned_uncached(copied_home: Path) -> None:
    odd = {"x": object()}
    assert derived.cached("odd", DEFAULT_RELEASE, SOURCES, lambda: odd) is odd
    assert not cache_file("odd").exists()


def test_an_edited_source_is_read_again_and_fails_its_checksum(copied_home: Path) -> None:
    def build() -> Any:  # as real entries are built: from verified reads of the sources
        return [len(read_data_file(rel)) for rel in SOURCES]

    first = derived.cached("demo", DEFAULT_RELEASE, SOURCES, build)
    data_file = release_dir(DEFAULT_RELEASE) / "data" / SOURCES[0]
    data_file.write_bytes(data_file.read_bytes().replace(b"String", b"Strung", 1))
    with pytest.raises(CorruptDataError, match="does not match its checksum"):
        derived.cached("demo", DEFAULT_RELEASE, SOURCES, build)
    assert first[0] > 0
