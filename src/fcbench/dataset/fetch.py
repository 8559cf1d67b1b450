"""Obtain, cache and verify the official BFCL data files.

fcbench ships no benchmark data. `install.fetch()` takes it from the official `bfcl-eval` wheel
(downloaded with pip, whose own configuration chooses the index, or given as a local wheel or
folder) and installs one release under `<home>/releases/<release>/`:

    data/            an exact copy of the wheel's `bfcl_eval/data/` tree
    constants.json   the literal constants of the official modules (see `literals.py`):
                     {"_format": 1, "_release": ..., "_sources": {module: path in wheel},
                      "_missing": [modules not found or not parseable],
                      "<module>": {NAME: value, ..., "_unparsed": [names not foldable]}}
    model_facts.json the official registry's display names, links, organisations, licences
                     and prices (see `model_facts.py`; absent in caches of older fcbench)
    manifest.json    {"format": 1, "release", "source", "fetched_at", "constants_sha256",
                      "model_facts_sha256", "files": {path relative to data/: sha256}}

A release directory is installed by renaming a fully written staging directory, so readers
never see half a release. Reads go through `read_data_file()`, which checks each file against
the manifest once per process, so a damaged cache is reported instead of silently mis-scoring.

Releases sit side by side (`releases/2025.7.17/`, `releases/2026.3.23/`, ...), each as its
wheel shipped it: older ones keep their own file names (`BFCL_v3_simple.json`), which
`naming.py` maps to today's categories when they are read. `dataset_identity()` is what a
result or score file records of the data it was made from.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = [
    "DEFAULT_RELEASE",
    "CorruptDataError",
    "DataError",
    "clear_caches",
    "data_files",
    "dataset_identity",
    "fcbench_home",
    "fetched_releases",
    "is_fetched",
    "load_constants",
    "read_data_file",
    "release_dir",
]

DEFAULT_RELEASE = "2026.3.23"


def __getattr__(name: str) -> Any:
    """`extract_literals` lives in `literals`; it is loaded only when asked for, since
    reading a cached release (every evaluation) needs none of the fetching machinery."""
    if name == "extract_literals":
        from fcbench.dataset.literals import extract_literals

        return extract_literals
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PACKAGE = "bfcl-eval"
MANIFEST = "manifest.json"
CONSTANTS = "constants.json"
FORMAT = 1

# Per-process caches: path -> (size, mtime_ns) of the verified file; manifest path -> parsed.
_VERIFIED: dict[str, tuple[int, int]] = {}
_MANIFESTS: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}


class DataError(Exception):
    """The benchmark data is missing, unreadable or malformed (one-line message: what to do)."""


class CorruptDataError(DataError):
    """A cached data file no longer matches the checksum recorded when it was fetched."""


def fcbench_home() -> Path:
    """`$FCBENCH_HOME`, else `$XDG_CACHE_HOME/fcbench`, else `~/.cache/fcbench`."""
    home = os.environ.get("FCBENCH_HOME")
    if home:
        return Path(home).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME")
    if cache and Path(cache).is_absolute():
        return Path(cache) / "fcbench"
    return Path.home() / ".cache" / "fcbench"


def release_path(release: str) -> Path:
    """Where a release lives; the name is checked so it can never escape the cache."""
    if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z.+_-]*", release):
        raise DataError(f"invalid release name {release!r}")
    return fcbench_home() / "releases" / release


def fetch_command(release: str) -> str:
    return "fcbench data fetch" + ("" if release == DEFAULT_RELEASE else f" --release {release}")


def _missing_message(release: str) -> str:
    cmd = fetch_command(release)
    return (
        f"the BFCL data (bfcl-eval {release}) is not in {fcbench_home()}: run `{cmd}`, or offline "
        f"`{cmd} --from PATH/TO/bfcl_eval-{release}-py3-none-any.whl`"
    )


# --------------------------------------------------------------------------- fetching


def is_fetched(release: str = DEFAULT_RELEASE) -> bool:
    """Whether the release is installed and every file still matches its checksum."""
    return is_intact(release_path(release), release)


def is_intact(target: Path, release: str) -> bool:
    """Present, for this release, and every file (constants included) matches the manifest."""
    try:
        manifest = json.loads((target / MANIFEST).read_bytes())
        if manifest.get("release") != release or manifest.get("format") != FORMAT:
            return False
        if sha256_file(target / CONSTANTS) != manifest["constants_sha256"]:
            return False
        files: dict[str, str] = manifest["files"]
        return all(sha256_file(target / "data" / rel) == digest for rel, digest in files.items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def sha256_file(path: Path) -> str:
    return sha256_hex(path.read_bytes())


def sha256_hex(data: bytes) -> str:
    """The sha256 hex digest of `data`, by the interpreter's own sha256 module if it has one.

    Every evaluation verifies the data files it reads; `import hashlib` would load OpenSSL for
    that, which adds about 4 MB to the process (a sixth of an evaluation's peak memory).
    """
    return str(_sha256()(data).hexdigest())


_SHA256: list[Any] = []


def _sha256() -> Any:
    """The sha256 constructor, found once: a failed import searches the whole path again each
    time (about a millisecond), and the response cache hashes every model request."""
    if not _SHA256:
        for name in ("_sha2", "_sha256"):  # CPython >= 3.12, <= 3.11
            try:
                _SHA256.append(importlib.import_module(name).sha256)
                break
            except ImportError:
                continue
        else:
            import hashlib

            _SHA256.append(hashlib.sha256)
    return _SHA256[0]


# --------------------------------------------------------------------------- reading


def release_dir(release: str = DEFAULT_RELEASE) -> Path:
    """The installed release's directory; DataError (saying how to fetch) when absent."""
    target = release_path(release)
    if not (target / MANIFEST).is_file():
        raise DataError(_missing_message(release))
    return target


def _manifest(root: Path) -> dict[str, Any]:
    """The release's manifest, parsed once per process (re-read if the file changes)."""
    path = root / MANIFEST
    try:
        st = path.stat()
        stamp = (st.st_size, st.st_mtime_ns)
        cached = _MANIFESTS.get(str(path))
        if cached is not None and cached[0] == stamp:
            return cached[1]
        manifest = json.loads(path.read_bytes())
        if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
            raise ValueError("no file list")
    except FileNotFoundError:
        raise DataError(_missing_message(root.name)) from None
    except (OSError, ValueError) as exc:
        raise CorruptDataError(
            f"{path} is unreadable ({exc}): run `{fetch_command(root.name)} --force`"
        ) from None
    _MANIFESTS[str(path)] = (stamp, manifest)
    return manifest


def _read_verified(path: Path, expected: str, label: str, release: str) -> bytes:
    """A file's bytes, hashed against `expected` unless already verified in this process."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            data = fh.read()
    except FileNotFoundError:
        raise CorruptDataError(
            f"{label} is missing from the BFCL data cache {path.parent}: "
            f"run `{fetch_command(release)} --force`"
        ) from None
    stamp = (st.st_size, st.st_mtime_ns)
    if _VERIFIED.get(str(path)) != stamp:
        if sha256_hex(data) != expected:
            raise CorruptDataError(
                f"{label} in the BFCL data cache does not match its checksum (damaged or edited): "
                f"run `{fetch_command(release)} --force`"
            )
        _VERIFIED[str(path)] = stamp
    return data


def read_data_file(relpath: str, release: str = DEFAULT_RELEASE) -> bytes:
    """The bytes of `data/<relpath>` (posix path), checked against the fetch-time checksum."""
    root = release_dir(release)
    rel = PurePosixPath(relpath)
    expected = data_file_checksum(relpath, release)
    return _read_verified(root / "data" / rel, expected, rel.as_posix(), release)


def data_file_checksum(relpath: str, release: str = DEFAULT_RELEASE) -> str:
    """The fetch-time sha256 of `data/<relpath>` (what the file is verified against)."""
    rel = PurePosixPath(relpath)
    if rel.is_absolute() or ".." in rel.parts:
        raise DataError(f"invalid data file path {relpath!r}")
    expected = _manifest(release_dir(release))["files"].get(rel.as_posix())
    if expected is None:
        raise DataError(f"{relpath} is not part of the BFCL data of release {release}")
    return str(expected)


def load_constants(release: str = DEFAULT_RELEASE) -> dict[str, Any]:
    """The parsed constants.json of a release (a fresh copy each call: keep it if reused)."""
    root = release_dir(release)
    expected = _manifest(root).get("constants_sha256", "")
    raw = _read_verified(root / CONSTANTS, str(expected), CONSTANTS, release)
    result: dict[str, Any] = json.loads(raw)
    return result


def clear_caches() -> None:
    """Forget which files were verified (tests, or after files were replaced in place)."""
    _VERIFIED.clear()
    _MANIFESTS.clear()


def forget_verified(root: Path) -> None:
    """Drop cache entries under a directory that was just replaced."""
    prefix = str(root) + os.sep
    for cache in (_VERIFIED, _MANIFESTS):
        for key in [k for k in cache if k.startswith(prefix)]:
            del cache[key]


# --------------------------------------------------------------------------- identity


def fetched_releases() -> list[str]:
    """The releases installed in the cache (oldest first), whether or not still intact."""
    root = fcbench_home() / "releases"
    try:
        names = [p.name for p in root.iterdir() if (p / MANIFEST).is_file()]
    except OSError:
        return []
    return sorted(names, key=release_sort_key)


def release_sort_key(release: str) -> tuple[tuple[int, str], ...]:
    """Orders `2025.6.8` before `2025.10.27` and `2026.1.16` before `2026.1.16.1`."""
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in release.split("."))


def data_files(release: str = DEFAULT_RELEASE) -> dict[str, str]:
    """Every data file of a fetched release (path relative to `data/`) with its sha256."""
    files: dict[str, str] = dict(_manifest(release_dir(release))["files"])
    return files


def dataset_identity(
    release: str | None = None, data_dir: Path | str | None = None
) -> dict[str, Any]:
    """What a result or score file records of its data, so a number can be traced to it.

    `{"release": R, "checksum": "sha256:..."}` for a fetched release; for a user's folder
    `{"release": None, "data_dir": absolute path, "checksum": ...}`. The checksum is the
    sha256 of the sorted `{path: sha256}` map of every data file, so an unpacked copy of a
    release has the release's checksum, and any edited, added or removed file changes it.
    """
    if data_dir is not None:
        root = Path(data_dir)
        if not root.is_dir():
            raise DataError(f"{root} is not a folder")
        files = {
            path.relative_to(root).as_posix(): sha256_file(path)
            for path in sorted(root.rglob("*"))
            if path.is_file() and not any(p.startswith(".") for p in path.relative_to(root).parts)
        }
        return {"release": None, "data_dir": str(root.resolve()), "checksum": _checksum(files)}
    release = release or DEFAULT_RELEASE
    return {"release": release, "checksum": _checksum(data_files(release))}


def _checksum(files: dict[str, str]) -> str:
    return "sha256:" + sha256_hex(json.dumps(files, sort_keys=True).encode())

