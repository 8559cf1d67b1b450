"""Getting a release's files out of the official `bfcl-eval` wheel (or an unpacked copy).

`install.fetch()` stages a release with these: pip downloads the wheel (pip's own configuration
chooses the index), its `bfcl_eval/data/` tree is copied as is, and the literal constants of
the official modules are parsed (never imported) into `constants.json`. Kept apart from
`fetch` because reading a cached release, which every evaluation does, needs none of it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from fcbench.dataset.fetch import (
    CONSTANTS,
    FORMAT,
    PACKAGE,
    DataError,
    fetch_command,
)

if TYPE_CHECKING:
    import zipfile

__all__ = ["extract_source", "extract_wheel", "index_releases", "pip_download", "wheel_release"]

_WHEEL_DATA = "bfcl_eval/data/"


def pip_download(release: str, dest: Path) -> Path:
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
    cmd = fetch_command(release)
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

    from fcbench.dataset.intake import read_member

    path = Path(wheel)
    try:
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                if name.endswith(".dist-info/METADATA"):
                    text = (read_member(zf, name) or b"").decode("utf-8", "replace")
                    for line in text.splitlines():
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
    except _zip_errors():
        return None
    parts = path.name.split("-")
    return parts[1] if len(parts) >= 3 and path.suffix == ".whl" else None


def _zip_errors() -> tuple[type[Exception], ...]:
    """What reading a damaged or odd archive raises: OSError, BadZipFile (a bad CRC or
    header), zlib.error, RuntimeError for an encrypted member, NotImplementedError for an
    unknown compression, EOFError for a cut one, ValueError for a bad LZMA stream."""
    import zipfile
    import zlib

    return (OSError, zipfile.BadZipFile, zlib.error, ValueError, EOFError, RuntimeError,
            NotImplementedError)


def extract_wheel(wheel: Path, staging: Path, release: str) -> None:
    """Copy the wheel's data tree and parse its constant modules, refusing another release.
    Members are streamed under the caps of `dataset.intake` (a member that inflates to
    gigabytes is refused, never held in memory)."""
    import zipfile

    from fcbench.dataset.intake import Budget, copy_member

    declared = wheel_release(wheel)
    if declared is not None and declared != release:
        raise DataError(
            f"{wheel.name} is bfcl-eval {declared}, not {release}: pass `--release {declared}`"
        )
    budget = Budget(str(wheel))
    try:
        with zipfile.ZipFile(wheel) as zf:
            count = 0
            for info in zf.infolist():
                rel = _data_member(info.filename)
                if rel is None or info.is_dir():
                    continue
                out = staging / "data" / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                copy_member(zf, info, out, budget)
                count += 1
            _write_constants(staging, release, lambda p: _zip_text(zf, p))
            _write_facts(staging, release, lambda p: _zip_text(zf, p))
    except DataError:
        raise
    except _zip_errors() as exc:
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


def _zip_text(zf: zipfile.ZipFile, path: str) -> str | None:
    """A constants module's text (None when absent, a symlink, or too large to be one)."""
    from fcbench.dataset.intake import read_member

    data = read_member(zf, path)
    return data.decode("utf-8") if data is not None else None


def extract_source(source: Path, staging: Path, release: str) -> None:
    """Install from a local wheel or data folder: a folder's regular files inside it, under
    the caps, a symlink leaving it or a loop refused (`dataset.intake`)."""
    import shutil

    from fcbench.dataset.intake import Budget, copy_folder, inside, read_text_inside

    if not source.exists():
        raise DataError(f"{source} does not exist (expected a bfcl-eval wheel or data folder)")
    if source.is_file():
        extract_wheel(source, staging, release)
        return
    data_dir, package_dir = _locate_folder(source)
    if not inside(os.path.realpath(data_dir), os.path.realpath(source)):
        raise DataError(f"--from {source}: {data_dir} is a symlink leaving the source; only "
                        "files inside it are copied")
    shutil.rmtree(staging / "data")
    copy_folder(data_dir, staging / "data", Budget(str(source)))

    def read(path: str) -> str | None:
        if package_dir is None:
            return None
        file = package_dir / PurePosixPath(path).relative_to("bfcl_eval")
        return read_text_inside(file, package_dir)

    _write_constants(staging, release, read)
    _write_facts(staging, release, read)


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
        "_format": FORMAT,
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


def _write_facts(staging: Path, release: str, read: Callable[[str], str | None]) -> None:
    """The registry's model facts (`dataset.model_facts`), parsed from its source text."""
    from fcbench.dataset.model_facts import MODEL_CONFIG, write_model_facts

    try:
        text = read(MODEL_CONFIG)
    except (UnicodeDecodeError, OSError):
        text = None
    write_model_facts(staging, release, text)


def index_releases() -> list[str]:
    """The releases pip can fetch, newest first (`pip index versions bfcl-eval`)."""
    import subprocess

    cmd = [sys.executable, "-m", "pip", "index", "versions", PACKAGE,
           "--no-input", "--disable-pip-version-check"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
    except OSError as exc:
        raise DataError(f"could not ask pip for the {PACKAGE} releases ({exc})") from None
    for line in proc.stdout.splitlines():
        if line.startswith("Available versions:"):
            found = [v.strip() for v in line.split(":", 1)[1].split(",")]
            return [v for v in found if v]
    reason = _last_error(proc.stderr, proc.stdout)
    raise DataError(f"could not ask pip for the {PACKAGE} releases ({reason})")

