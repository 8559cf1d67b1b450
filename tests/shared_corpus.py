"""Where ../shared/corpus is (recorded model outputs with the official verdicts), and the
one skip every test that reads it uses: the corpus is not part of the project, so on a
fresh clone these tests, and only these, skip."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
V1 = CORPUS / "v1"
V4_RUN = CORPUS / "v4" / "2025-11-12-main"

REASON = (
    f"needs the recorded model outputs and official verdicts of ../shared/corpus ({CORPUS}), "
    "which are not in this checkout"
)
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=REASON)
