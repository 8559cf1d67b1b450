"""Import-only stand-ins for modules the official evaluator imports but never uses to evaluate.

This file is copied into the throwaway virtual environment of the official evaluator
(``bfcl-eval``) as ``_fcbench_bench_stubs.py``, together with a ``.pth`` file that calls
:func:`install` at interpreter start-up. It is never imported into fcbench itself.

``bfcl-eval`` imports every model handler when it builds its model registry, and the handlers
import vendor SDKs (openai, anthropic, google-genai, ...) at module level; the multi-turn and
agentic back-ends import retrieval libraries (sentence-transformers -> torch, faiss, ...). None
of them runs when single-turn categories are evaluated: decoding and checking are pure Python
plus tree-sitter. Installing them would pull several GB (torch) for nothing, so the listed
top-level names are answered with permissive placeholder modules instead.

Fairness: a placeholder imports in microseconds, while the real SDKs take hundreds of
milliseconds to import. The stubs can only make the official tool start faster, never slower.

The finder is appended to ``sys.meta_path``: a real installation of any listed package, if
present, always wins over its placeholder.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Sequence
from typing import Any

#: Top-level modules answered with placeholders. Each one is imported at module level by some
#: part of bfcl-eval, and none is used when single-turn categories are evaluated.
STUBBED_MODULES: tuple[str, ...] = (
    # vendor SDKs imported by the API model handlers (clients are built, never called)
    "anthropic",
    "boto3",
    "cohere",
    "google",  # google-genai: ``from google import genai``
    "mistralai",
    "openai",
    "qwen_agent",
    "writerai",
    # HTTP clients used only during generation (local servers, gorilla, nexus, glm)
    "httpx",
    "requests",
    # code generation used only by the MiniCPM handler's prompt formatting
    "datamodel_code_generator",
    # multi-turn / agentic back-ends (imported lazily; listed for completeness)
    "bs4",
    "faiss",
    "html2text",
    "rank_bm25",
    "sentence_transformers",
    "serpapi",
)


class _PlaceholderMeta(type):
    """Metaclass so that attribute access on a placeholder *class* also yields placeholders."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _placeholder_class(name)

    def __getitem__(cls, item: Any) -> Any:
        return cls


class _Placeholder(Exception, metaclass=_PlaceholderMeta):
    """Accepts any construction, call and attribute access; usable as a base or exception class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _Placeholder()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder()


def _placeholder_class(name: str) -> type:
    return _PlaceholderMeta(name, (_Placeholder,), {})


def _module_getattr(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    return _placeholder_class(name)


class _PlaceholderFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``name`` and ``name.anything`` for the stubbed top-level names."""

    def __init__(self, names: Sequence[str]) -> None:
        self._names = frozenset(names)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] not in self._names:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = types.ModuleType(spec.name, "fcbench benchmark placeholder (import only)")
        module.__path__ = []
        module.__getattr__ = _module_getattr  # type: ignore[method-assign]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def install() -> None:
    """Append the placeholder finder to ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _PlaceholderFinder) for finder in sys.meta_path):
        sys.meta_path.append(_PlaceholderFinder(STUBBED_MODULES))
