"""Read the benchmark's constants (prompt texts, category lists, filler data) out of source text.

The official tool keeps its prompt texts and tables in Python modules as literals. fcbench
needs the exact texts, but must never import or run the official code, so this module parses
the source with `ast` and folds the values it can prove are constant: literals, references
to names assigned earlier in the same module, `+`/`*` on strings, lists and numbers,
f-strings over such values, subscripts and simple comprehensions. A `.format()` call or any
other call is never evaluated: such names go to the `"_unparsed"` list instead.

Templates are stored raw, with their `{placeholder}` fields intact; fcbench fills them with
`str.format` exactly as the official tool does at run time. For example the default system
prompt is `PROMPT_TEMPLATE_MAPPING[prompt_fmt].format(persona=..., task=...,
tool_call_format=..., multiturn_behavior=..., available_tools=...)` where the pieces come from
`PROMPT_STYLE_TEMPLATES[style]`, and `tool_call_format` is the style's `tool_call_no_tag` (or
`tool_call_with_tag`) template formatted with `output_format=OUTPUT_FORMAT_MAPPING[ret_fmt]` and
`param_types=PARAM_TYPE_MAPPING[ret_fmt]`.
"""

from __future__ import annotations

import ast
import json
from typing import Any

# Modules whose literals go into constants.json: short name -> path inside the wheel.
CONSTANT_MODULES: dict[str, str] = {
    "default_prompts": "bfcl_eval/constants/default_prompts.py",
    "category_mapping": "bfcl_eval/constants/category_mapping.py",
    "type_mappings": "bfcl_eval/constants/type_mappings.py",
    "executable_backend_config": "bfcl_eval/constants/executable_backend_config.py",
    "column_headers": "bfcl_eval/constants/column_headers.py",
    "long_context": "bfcl_eval/eval_checker/multi_turn_eval/func_source_code/long_context.py",
}

_BUILTIN_TYPES = frozenset({"int", "float", "str", "bool", "list", "dict", "set", "tuple"})
_MAX_REPEAT = 1_000_000


class _Unfoldable(Exception):
    """The expression is not provably constant."""


class _TypeRef:
    """A reference to a builtin type (`int`); stored in JSON as its name, usable nowhere else."""

    def __init__(self, name: str) -> None:
        self.name = name


_ELLIPSIS = _TypeRef("...")  # usable nowhere either; stored as ELLIPSIS_JSON
ELLIPSIS_JSON: dict[str, str] = {"__python__": "Ellipsis"}
"""How a literal `...` is stored (the official long-context watch list ends with one)."""


def extract_literals(source: str) -> dict[str, Any]:
    """Every module-level name whose value folds to a constant, as JSON-ready values.

    Tuples and sets become lists, builtin type references (`int`) become their names, and a
    literal `...` becomes `ELLIPSIS_JSON` (JSON has no such value). Names
    assigned a value that cannot be folded are listed, in source order, under `"_unparsed"`;
    when a name is assigned several times the last assignment wins.
    """
    env: dict[str, Any] = {}
    unparsed: list[str] = []
    for node in ast.parse(source).body:
        for name, value in _assignments(node, env):
            if value is _UNFOLDABLE:
                env.pop(name, None)
                if name not in unparsed:
                    unparsed.append(name)
            else:
                env[name] = value
                if name in unparsed:
                    unparsed.remove(name)
    result: dict[str, Any] = {}
    for name, value in env.items():
        try:
            result[name] = _to_json(value)
        except _Unfoldable:
            unparsed.append(name)
    result["_unparsed"] = unparsed
    return result


_UNFOLDABLE = object()


def _assignments(node: ast.stmt, env: dict[str, Any]) -> list[tuple[str, Any]]:
    """The (name, folded value or _UNFOLDABLE) pairs one module-level statement binds."""
    if isinstance(node, ast.Assign):
        pairs: list[tuple[str, Any]] = []
        for target in node.targets:
            pairs.extend(_bind(target, node.value, env))
        return pairs
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return _bind(node.target, node.value, env)
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        name = node.target.id
        if name not in env:
            return [(name, _UNFOLDABLE)]
        combined = ast.BinOp(left=ast.Name(id=name, ctx=ast.Load()), op=node.op, right=node.value)
        return [(name, _try_fold(combined, env))]
    return []


def _bind(target: ast.expr, value: ast.expr, env: dict[str, Any]) -> list[tuple[str, Any]]:
    """Bind a plain name, or a tuple of names to a tuple/list display of the same length."""
    if isinstance(target, ast.Name):
        return [(target.id, _try_fold(value, env))]
    if isinstance(target, (ast.Tuple, ast.List)):
        names = [t.id for t in target.elts if isinstance(t, ast.Name)]
        parts = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
        if parts is None or len(names) != len(target.elts) or len(parts) != len(names):
            return [(n, _UNFOLDABLE) for n in names]
        return [(n, _try_fold(v, env)) for n, v in zip(names, parts, strict=True)]
    return []


def _try_fold(node: ast.expr, env: dict[str, Any]) -> Any:
    try:
        return _fold(node, env)
    except (_Unfoldable, RecursionError):
        return _UNFOLDABLE


def _fold(node: ast.expr, env: dict[str, Any]) -> Any:
    """The constant value of an expression, or _Unfoldable."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (str, int, float, bool)) or node.value is None:
            return node.value
        if node.value is Ellipsis:
            return _ELLIPSIS
        raise _Unfoldable
    if isinstance(node, ast.Name):
        return _fold_name(node.id, env)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = _fold_elements(node.elts, env)
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Dict):
        return _fold_dict(node, env)
    if isinstance(node, ast.BinOp):
        return _fold_binop(node.op, _fold(node.left, env), _fold(node.right, env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _fold(node.operand, env)
        if not _is_number(operand):
            raise _Unfoldable
        return -operand if isinstance(node.op, ast.USub) else +operand
    if isinstance(node, ast.JoinedStr):
        return "".join(_fold_fstring_part(part, env) for part in node.values)
    if isinstance(node, ast.Subscript):
        return _fold_subscript(node, env)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        return _fold_comprehension(node, env)
    raise _Unfoldable


def _fold_name(name: str, env: dict[str, Any]) -> Any:
    if name in env:
        return env[name]
    if name in _BUILTIN_TYPES:
        return _TypeRef(name)
    raise _Unfoldable


def _fold_elements(elts: list[ast.expr], env: dict[str, Any]) -> list[Any]:
    items: list[Any] = []
    for elt in elts:
        if isinstance(elt, ast.Starred):
            inner = _fold(elt.value, env)
            if not isinstance(inner, (list, tuple, str)):
                raise _Unfoldable
            items.extend(inner)
        else:
            items.append(_fold(elt, env))
    return items


def _fold_dict(node: ast.Dict, env: dict[str, Any]) -> dict[Any, Any]:
    result: dict[Any, Any] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        folded = _fold(value, env)
        if key is None:  # `**other`
            if not isinstance(folded, dict):
                raise _Unfoldable
            result.update(folded)
        else:
            result[_hashable(_fold(key, env))] = folded
    return result


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, dict, _TypeRef)):
        raise _Unfoldable
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fold_binop(op: ast.operator, left: Any, right: Any) -> Any:
    """`+` on str/list/tuple/numbers, `*` repeating a str/list by a small int, `-` on numbers."""
    if isinstance(op, ast.Add):
        same_sequence = type(left) is type(right) and isinstance(left, (str, list, tuple))
        if same_sequence or (_is_number(left) and _is_number(right)):
            return left + right
    elif isinstance(op, ast.Mult):
        if _is_number(left) and _is_number(right):
            return left * right
        seq, count = (left, right) if isinstance(right, int) else (right, left)
        if (
            isinstance(seq, (str, list, tuple))
            and isinstance(count, int)
            and not isinstance(count, bool)
            and len(seq) * max(count, 0) <= _MAX_REPEAT
        ):
            return seq * count
    elif isinstance(op, ast.Sub) and _is_number(left) and _is_number(right):
        return left - right
    raise _Unfoldable


def _fold_fstring_part(part: ast.expr, env: dict[str, Any]) -> str:
    """One piece of an f-string: literal text, or a folded value formatted as Python would."""
    if isinstance(part, ast.Constant) and isinstance(part.value, str):
        return part.value
    if not isinstance(part, ast.FormattedValue):
        raise _Unfoldable
    value = _fold(part.value, env)
    if isinstance(value, _TypeRef) or not isinstance(value, (str, int, float, bool, type(None))):
        raise _Unfoldable  # containers would format with their Python repr; keep it simple
    if part.conversion == ord("r"):
        value = repr(value)
    elif part.conversion in (ord("s"), ord("a")):
        value = str(value) if part.conversion == ord("s") else ascii(value)
    spec = "" if part.format_spec is None else _fold(part.format_spec, env)
    if not isinstance(spec, str):
        raise _Unfoldable
    try:
        return format(value, spec)
    except (ValueError, TypeError):
        raise _Unfoldable from None


def _fold_subscript(node: ast.Subscript, env: dict[str, Any]) -> Any:
    container = _fold(node.value, env)
    key = _fold(node.slice, env)
    if isinstance(container, _TypeRef) or isinstance(key, (list, dict, _TypeRef)):
        raise _Unfoldable
    try:
        return container[key]
    except (KeyError, IndexError, TypeError):
        raise _Unfoldable from None


def _fold_comprehension(
    node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, env: dict[str, Any]
) -> Any:
    """A single-`for`, condition-free comprehension over a folded iterable."""
    if len(node.generators) != 1:
        raise _Unfoldable
    gen = node.generators[0]
    if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
        raise _Unfoldable
    iterable = _fold(gen.iter, env)
    if not isinstance(iterable, (list, tuple, str, dict)):
        raise _Unfoldable
    target = gen.target.id
    scopes = [{**env, target: item} for item in iterable]
    if isinstance(node, ast.DictComp):
        return {_hashable(_fold(node.key, s)): _fold(node.value, s) for s in scopes}
    return [_fold(node.elt, s) for s in scopes]


def _to_json(value: Any) -> Any:
    """A folded Python value as JSON data (tuples and sets as lists, types as their names)."""
    if value is _ELLIPSIS:
        return dict(ELLIPSIS_JSON)
    if isinstance(value, _TypeRef):
        return value.name
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise _Unfoldable
            out[json.dumps(key) if not isinstance(key, str) else key] = _to_json(item)
        return out
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    raise _Unfoldable
