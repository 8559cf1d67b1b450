"""The browser tests' Chromium is launched with its background networking off (sign-in,
component updates, sync, the optimisation guide: hosts the browser calls on its own)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import headless_chromium
import pytest

REQUIRED = ("--disable-background-networking", "--no-first-run", "--disable-component-update",
            "--disable-sync", "--disable-domain-reliability", "--no-pings")


class Launched(Exception):
    """Stops the launch once its command line is seen."""


def test_the_browser_is_launched_with_background_networking_off(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    def popen(argv: list[str], **kwargs: Any) -> Any:
        seen.append(argv)
        raise Launched

    monkeypatch.setattr(headless_chromium.subprocess, "Popen", popen)
    with pytest.raises(Launched):
        headless_chromium.Browser("chromium", tmp_path / "profile")
    [argv] = seen
    missing = [flag for flag in REQUIRED if flag not in argv]
    assert not missing
    features = next(a for a in argv if a.startswith("--disable-features="))
    assert "OptimizationGuideModelDownloading" in features and "OptimizationHints" in features
