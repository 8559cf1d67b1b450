"""The exporters' fixture: a small hand-made scored run (`export_fixtures.scored`)."""

from export_fixtures import scored

__all__ = ["scored"]
