"""Decoders: a model's raw output (text or tool calls) -> list[Call] for one language."""
