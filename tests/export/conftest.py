"""The exporters' fixtures: a small hand-made scored run (`export_fixtures.scored`) and a
real one with per-case verdicts (`sample_run.sample_run`) and it repeated twice."""

from export_fixtures import scored
from sample_run import repeated_run, sample_run

__all__ = ["repeated_run", "sample_run", "scored"]
