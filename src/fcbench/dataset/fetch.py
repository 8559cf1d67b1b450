"""Obtain, cache and verify the official BFCL data files.

fcbench ships no benchmark data. `fetch()` takes it from the official `bfcl-eval` wheel
(downloaded with pip, whose own configuration chooses the index, or given as a local wheel or
folder) and installs one release under `<home>/releases/<release>/`:

    data/            an exact copy of the wheel's `bfcl_eval/data/` tree
    constants.json   the literal constants of the official modules (see `literals.py`):
                     {"_format": 1, "_release": ..., "_sources": {module: path in wheel},
                      "_missing": [modules not found or not parseable],
                      "<module>": {NAME: value, ..., "_unparsed": [names not foldable]}}
    manifest.json    {"format": 1, "release", "source", "fetched_at", "constants_sha256",
                      "files": {path relative to data/: sha256}}

A release directory is installed by renaming a fully written staging directory, so readers
never see half a release. Reads go through `read_data_file()`, which checks each file against
the manifest once per process, so a damaged cache is reported instead of silently mis-scoring.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import zipfile


__all__ = [
    "DEFAULT_RELEASE",
    "CorruptDataError",
    "DataError",
    "clear_caches",
    "fcbench_home",
    "fetch",
    "is_fetched",
    "load_constants",
    "read_data_file",
    "release_dir",
    "wheel_release",
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
_WHEEL_DATA = "bfcl_eval/data/"
_FORMAT = 1

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


def _release_path(release: str) -> Path:
    """Where a release lives; the name is checked so it can never escape the cache."""
    if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z.+_-]*", release):
        raise DataError(f"invalid release name {release!r}")
    return fcbench_home() / "releases" / release


def _fetch_command(release: str) -> str:
    return "fcbench data fetch" + ("" if release == DEFAULT_RELEASE else f" --release {release}")


def _missing_message(release: str) -> str:
    cmd = _fetch_command(release)
    return (
        f"the BFCL data (bfcl-eval {release}) is not in {fcbench_home()}: run `{cmd}`, or offline "
        f"`{cmd} --from PATH/TO/bfcl_eval-{release}-py3-none-any.whl`"
    )


# --------------------------------------------------------------------------- fetching


def fetch(
    release: str = DEFAULT_RELEASE, source: Path | str | None = None, *, force: bool = False
) -> Path:
    """Install a release into the cache and return its directory.

    Does nothing when the release is already present and intact, unless `force`. `source` may
    be a wheel file, a folder laid out like the wheel's `bfcl_eval/data/`, or a folder holding
    `bfcl_eval/data/`; without it pip downloads the wheel.
    """
    import tempfile

    target = _release_path(release)
    if not force and _is_intact(target, release):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".tmp-{release}-", dir=target.parent) as tmp:
        staging = Path(tmp) / "release"
        (staging / "data").mkdir(parents=True)
        if source is None:
            wheel = _pip_download(release, Path(tmp) / "download")
            description = f"pip download {PACKAGE}=={release}"
            _extract_wheel(wheel, staging, release)
        else:
            description = str(Path(source).resolve())
            _extract_source(Path(source), staging, release)
        _write_manifest(staging, release, description)
        _install(staging, target, Path(tmp), release)
    _forget(target)
    return target


def is_fetched(release: str = DEFAULT_RELEASE) -> bool:
    """Whether the release is installed and every file still matches its checksum."""
    return _is_intact(_release_path(release), release)


def _is_intact(target: Path, release: str) -> bool:
    """Present, for this release, and every file (constants included) matches the manifest."""
    try:
        manifest = json.loads((target / MANIFEST).read_bytes())
        if manifest.get("release") != release or manifest.get("format") != _FORMAT:
            return False
        if _sha256_file(target / CONSTANTS) != manifest["constants_sha256"]:
            return False
        files: dict[str, str] = manifest["files"]
        return all(_sha256_file(target / "data" / rel) == digest for rel, digest in files.items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def _pip_download(release: str, dest: Path) -> Path:
    """Download the wheel with pip; the index comes from pip's own configuration."""
    import subprocess

    dest.mkdir(parents=True)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--no-input",
        "--disable-pip-version-check",
        "-d",
        str(dest),
        f"{PACKAGE}=={release}",
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
    except OSError as exc:
        raise DataError(_download_failed(release, str(exc))) from None
    if proc.returncode != 0:
        raise DataError(_download_failed(release, _last_error(proc.stderr, proc.stdout)))
    wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        raise DataError(_download_failed(release, "pip produced no wheel"))
    return wheels[0]


def _download_failed(release: str, reason: str) -> str:
    cmd = _fetch_command(release)
    return (
        f"could not download {PACKAGE}=={release} with pip ({reason}); the BFCL data is missing: "
        f"retry `{cmd}` when online, or `{cmd} --from PATH/TO/bfcl_eval-{release}-py3-none-any.whl`"
    )


def _last_error(*outputs: str) -> str:
    """pip's last `ERROR:` line (or its last line), shortened to fit a one-line message."""
    lines = [line.strip() for out in outputs for line in (out or "").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    last = (errors or lines or ["pip failed without output"])[-1]
    return last if len(last) <= 300 else last[:297] + "..."


def wheel_release(wheel: Path | str) -> str | None:
    """The version a `bfcl_eval` wheel declares (dist-info METADATA, else its file name)."""
    import zipfile

    path = Path(wheel)
    try:
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                if name.endswith(".dist-info/METADATA"):
                    for line in zf.read(name).decode("utf-8", "replace").splitlines():
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
    except (OSError, zipfile.BadZipFile):
        return None
    parts = path.name.split("-")
    return parts[1] if len(parts) >= 3 and path.suffix == ".whl" else None


def _extract_wheel(wheel: Path, staging: Path, release: str) -> None:
    """Copy the wheel's data tree and parse its constant modules, refusing another release."""
    import zipfile

    declared = wheel_release(wheel)
    if declared is not None and declared != release:
        raise DataError(
            f"{wheel.name} is bfcl-eval {declared}, not {release}: pass `--release {declared}`"
        )
    try:
        with zipfile.ZipFile(wheel) as zf:
            count = 0
            for info in zf.infolist():
                rel = _data_member(info.filename)
                if rel is None or info.is_dir():
                    continue
                out = staging / "data" / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(zf.read(info))
                count += 1
            names = set(zf.namelist())
            _write_constants(staging, release, lambda p: _zip_text(zf, names, p))
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"cannot read the wheel {wheel}: {exc}") from None
    if count == 0:
        raise DataError(f"{wheel} holds no {_WHEEL_DATA} folder; is it a bfcl-eval wheel?")


def _data_member(name: str) -> str | None:
    """The path below `bfcl_eval/data/` of a zip member, or None (also for unsafe names)."""
    if not name.startswith(_WHEEL_DATA):
        return None
    rel = PurePosixPath(name[len(_WHEEL_DATA) :])
    if not rel.parts or rel.is_absolute() or ".." in rel.parts:
        return None
    return rel.as_posix()


def _zip_text(zf: zipfile.ZipFile, names: set[str], path: str) -> str | None:
    return zf.read(path).decode("utf-8") if path in names else None


def _extract_source(source: Path, staging: Path, release: str) -> None:
    """Install from a local wheel or data folder."""
    import shutil

    if not source.exists():
        raise DataError(f"{source} does not exist (expected a bfcl-eval wheel or data folder)")
    if source.is_file():
        _extract_wheel(source, staging, release)
        return
    data_dir, package_dir = _locate_folder(source)
    shutil.rmtree(staging / "data")
    shutil.copytree(data_dir, staging / "data")

    def read(path: str) -> str | None:
        if package_dir is None:
            return None
        file = package_dir / PurePosixPath(path).relative_to("bfcl_eval")
        return file.read_text(encoding="utf-8") if file.is_file() else None

    _write_constants(staging, release, read)


def _locate_folder(source: Path) -> tuple[Path, Path | None]:
    """(data folder, `bfcl_eval` package folder if its modules are beside the data)."""
    if (source / "bfcl_eval" / "data").is_dir():
        return source / "bfcl_eval" / "data", source / "bfcl_eval"
    if any(source.glob("BFCL_v*_*.json")) or (source / "possible_answer").is_dir():
        package = source.parent if (source.parent / "constants").is_dir() else None
        return source, package
    raise DataError(
        f"{source} is neither a bfcl-eval data folder (BFCL_v4_*.json files) "
        "nor a folder holding bfcl_eval/data"
    )


def _write_constants(staging: Path, release: str, read: Callable[[str], str | None]) -> None:
    """Parse each constant module's source (never importing it) into constants.json."""
    from fcbench.dataset.literals import CONSTANT_MODULES, extract_literals

    constants: dict[str, Any] = {
        "_format": _FORMAT,
        "_release": release,
        "_sources": dict(CONSTANT_MODULES),
        "_missing": [],
    }
    for short, path in CONSTANT_MODULES.items():
        try:
            text = read(path)
            constants[short] = extract_literals(text) if text is not None else None
        except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
            constants[short] = None
        if constants[short] is None:
            del constants[short]
            constants["_missing"].append(short)
    payload = json.dumps(constants, ensure_ascii=False, indent=1, sort_keys=False)
    (staging / CONSTANTS).write_text(payload + "\n", encoding="utf-8")


def _write_manifest(staging: Path, release: str, source: str) -> None:
    from datetime import datetime, timezone

    data = staging / "data"
    files = {
        path.relative_to(data).as_posix(): _sha256_file(path)
        for path in sorted(data.rglob("*"))
        if path.is_file()
    }
    if not files:
        raise DataError(f"no data files found in {source}")
    manifest = {
        "format": _FORMAT,
        "release": release,
        "source": source,
        "fetched_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "constants_sha256": _sha256_file(staging / CONSTANTS),
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
        if not _is_intact(target, release):
            raise DataError(f"could not install the data into {target}") from None


def _sha256_file(path: Path) -> str:
    return sha256_hex(path.read_bytes())


def sha256_hex(data: bytes) -> str:
    """The sha256 hex digest of `data`, by the interpreter's own sha256 module if it has one.

    Every evaluation verifies the data files it reads; `import hashlib` would load OpenSSL for
    that, which adds about 4 MB to the process (a sixth of an evaluation's peak memory).
    """
    for name in ("_sha2", "_sha256"):  # CPython >= 3.12, <= 3.11
        try:
            module: Any = importlib.import_module(name)
        except ImportError:
            continue
        return str(module.sha256(data).hexdigest())
    import hashlib

    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- reading


def release_dir(release: str = DEFAULT_RELEASE) -> Path:
    """The installed release's directory; DataError (saying how to fetch) when absent."""
    target = _release_path(release)
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
            f"{path} is unreadable ({exc}): run `{_fetch_command(root.name)} --force`"
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
            f"run `{_fetch_command(release)} --force`"
        ) from None
    stamp = (st.st_size, st.st_mtime_ns)
    if _VERIFIED.get(str(path)) != stamp:
        if sha256_hex(data) != expected:
            raise CorruptDataError(
                f"{label} in the BFCL data cache does not match its checksum (damaged or edited): "
                f"run `{_fetch_command(release)} --force`"
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


def _forget(root: Path) -> None:
    """Drop cache entries under a directory that was just replaced."""
    prefix = str(root) + os.sep
    for cache in (_VERIFIED, _MANIFESTS):
        for key in [k for k in cache if k.startswith(prefix)]:
            del cache[key]


def dataset_identity(release: str, data_dir: Path | None = None) -> dict[str, Any]:
    """What a result or score file records about its data: the release and a checksum of
    every data file (from the fetch manifest), or the user's data folder."""
    if data_dir is not None:
        return {"release": None, "data_dir": str(Path(data_dir).resolve()), "checksum": None}
    files = json.dumps(_manifest(release_dir(release)).get("files", {}), sort_keys=True)
    return {"release": release, "checksum": "sha256:" + sha256_hex(files.encode())}
