"""Score folders of the shared corpus, made once per session by fcbench's own evaluate (the
official tool's verdicts agree case by case: tests/conformance)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared_corpus import REASON, V1, V4_RUN

CORPUS_V1 = V1
CORPUS_V4 = V4_RUN


def _score(result_dir: Path, score_dir: Path) -> Path:
    from fcbench import api
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.evaluation import evaluate

    if not result_dir.is_dir():
        pytest.skip(REASON)
    report = evaluate(result_dir, score_dir=score_dir, keep_cases=False)
    api.write_leaderboards(report, score_dir, DEFAULT_RELEASE, None)
    return score_dir


@pytest.fixture(scope="session")
def v1_scores(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 14 models of corpus/v1 scored (exec categories offline: web cases skipped)."""
    return _score(CORPUS_V1, tmp_path_factory.mktemp("v1_scores"))


@pytest.fixture(scope="session")
def v4_scores(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two models of corpus/v4 scored."""
    return _score(CORPUS_V4, tmp_path_factory.mktemp("v4_scores"))
