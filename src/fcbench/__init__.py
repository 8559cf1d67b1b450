"""fcbench: a faithful, fast, light re-implementation of the BFCL evaluation."""

from __future__ import annotations

__version__ = "0.1.0"
