"""Checkers: decoded calls + possible answer -> Verdict."""
