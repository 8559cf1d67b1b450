"""A plugin module that fails while it is imported (its distribution is broken)."""

raise RuntimeError("boom")
