"""The exporters' fixtures: a small hand-made scored run (`export_fixtures.scored`) and a
real one with per-case verdicts (`sample_run.sample_run`)."""

from export_fixtures import scored
from sample_run import sample_run

__all__ = ["sample_run", "scored"]
