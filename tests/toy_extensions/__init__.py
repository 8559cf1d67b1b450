"""Toy extensions, one module each, that tests add to fcbench at run time or install through
a fake distribution's entry points (tests/test_plugins.py)."""

from pathlib import Path


def fake_distribution(folder: Path, name: str, entry_points: str) -> Path:
    """`folder` holding an installed distribution `name` 1.0 whose entry points are
    `entry_points` (an `entry_points.txt` text): put it on `sys.path` and
    `importlib.metadata` finds them, as it finds a pip-installed plugin's."""
    info = folder / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)
    return folder
