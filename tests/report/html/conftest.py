"""The one headless Chromium the page tests of a module share (tests/report/html)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from headless_chromium import Browser, find_chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """A browser per test module; a missing Chromium fails under CI (where .ci/run installs
    it) and skips elsewhere, saying how to install it."""
    executable = find_chromium()
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs Debian's chromium")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    chrome = Browser(executable, tmp_path_factory.mktemp("profile"))
    yield chrome
    chrome.close()
