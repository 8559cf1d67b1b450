"""Function docs as the system prompt lists them: JSON, Python pseudo-docstrings, or XML.

The format-sensitivity configurations vary how the docs are written (`func_doc_fmt`). JSON is
the docs dumped with a 4-space indent. The Python and XML renderings are text layouts the
official prompt builder produces in code (not in its constants), so they are stated here;
every space, newline and attribute of them reaches the model, and the tests hold them to the
official builder's output on every format-sensitivity case.

* Python: per function a `# Function: <name>` line and a docstring with the description and
  an `Args:` list, one line per parameter `name (type[, default=...]): description`, nested
  properties indented below their parent; types mapped to Python names (`list[str]`,
  `dict[str, int]`, `str`, ...), other type names kept.
* XML: `<function name="..."><desc>..</desc><params><param name=.. type=.. required=..
  [default=..]><desc>..</desc>[<params>nested</params>]</param>...</params></function>`,
  element types in brackets (`array[string]`). Nothing is escaped, as upstream.

Both add the enum values to a parameter's description (`Enum values: [...]`, Python list
syntax). [quirk] In XML every comma of a parameter's attribute text is dropped (upstream
writes the attributes comma-separated, then deletes all commas), so a name, type or default
holding a comma loses it (`default="[1 2]"`).
"""

from __future__ import annotations

import json
from typing import Any

_PYTHON_TYPES = {"string": "str", "number": "float", "integer": "int", "boolean": "bool"}
_LIST_TYPES = ("array", "list", "tuple")
_DICT_TYPES = ("object", "dict")


def render_docs(functions: list[dict[str, Any]], doc_format: str) -> str:
    """The docs in one of the configurations' doc formats (json, python, xml)."""
    if doc_format == "json":
        return indented_json(functions)
    if doc_format == "python":
        return python_docs(functions)
    if doc_format == "xml":
        return xml_docs(functions)
    raise ValueError(f"unknown function doc format {doc_format!r}")


def indented_json(value: Any) -> str:
    """`json.dumps(value, indent=4)`, remembered by the value's compact JSON: a conversation
    renders the same docs at every step, and an indent sends `json` to its pure-Python
    encoder (several times slower than the C encoder that writes the key). Both texts are
    the same tokens in the same order, so equal keys mean equal texts."""
    key = json.dumps(value)
    text = _INDENTED.get(key)
    if text is None:
        if len(_INDENTED) >= _INDENTED_MAX:
            _INDENTED.clear()
        text = _INDENTED[key] = json.dumps(value, indent=4)
    return text


_INDENTED: dict[str, str] = {}
_INDENTED_MAX = 1024
"""At most this many texts are kept (a run's docs; forgotten all at once when full)."""


def _description(meta: dict[str, Any]) -> Any:
    """A parameter's description, with its enum values appended when it has any."""
    text = meta.get("description", "")
    if "enum" in meta:
        text += f" Enum values: {meta['enum']}."
    return text


# --------------------------------------------------------------------------- python


def python_docs(functions: list[dict[str, Any]]) -> str:
    """Each function's block followed by an empty piece, all joined by blank lines (so two
    functions are five newlines apart, and the text ends in three)."""
    pieces: list[str] = []
    for doc in functions:
        pieces += [_python_function(doc), "\n"]
    return "\n\n".join(pieces)


def _python_function(doc: dict[str, Any]) -> str:
    lines = [f"# Function: {doc['name']}\n", '    """\n', f"    {doc.get('description', '')}\n\n"]
    properties = doc.get("parameters", {}).get("properties", {})
    if properties:
        lines.append("    Args:\n")
        for name, meta in properties.items():
            lines += _python_param(name, meta, 0)
    lines.append('    """\n')
    return "".join(lines)


def _python_param(name: str, meta: dict[str, Any], depth: int) -> list[str]:
    indent = " " * (8 + 4 * depth)
    default = f", default={meta['default']!r}" if "default" in meta else ""
    lines = [f"{indent}{name} ({_python_type(meta)}{default}): {_description(meta)}\n"]
    for child, child_meta in meta.get("properties", {}).items():
        lines += _python_param(child, child_meta, depth + 1)
    return lines


def _python_type(meta: dict[str, Any]) -> Any:
    kind = meta.get("type", "string")
    if kind in _PYTHON_TYPES:
        return _PYTHON_TYPES[kind]
    if kind in _LIST_TYPES and "items" in meta:
        return f"list[{_python_type(meta['items'])}]"
    if kind in _DICT_TYPES:
        if "additionalProperties" in meta:
            return f"dict[str, {_python_type(meta['additionalProperties'])}]"
        return "dict"
    return kind


# --------------------------------------------------------------------------- xml


def xml_docs(functions: list[dict[str, Any]]) -> str:
    """One `<function>` block per doc, blocks separated by an empty line."""
    return "\n".join(_xml_function(doc) for doc in functions)


def _xml_function(doc: dict[str, Any]) -> str:
    params = doc["parameters"]
    required = params.get("required")
    parts = [f'<function name="{doc["name"]}">\n', f"  <desc>{doc.get('description', '')}</desc>\n",
             "  <params>\n"]
    parts += [_xml_param(name, meta, required, 2)
              for name, meta in params.get("properties", {}).items()]
    parts += ["  </params>\n", "</function>\n"]
    return "".join(parts)


def _xml_param(name: str, meta: dict[str, Any], required: Any, level: int) -> str:
    """A `<param>` element; without a `required` list every parameter counts as required."""
    indent = " " * (2 * level)
    is_required = "true" if required is None or name in required else "false"
    attributes = f'name="{name}", type="{_xml_type(meta)}", required="{is_required}"'
    if "default" in meta:
        attributes += f' default="{meta["default"]!r}"'
    parts = [f"{indent}<param {attributes.replace(',', '')}>\n",
             f"{indent}  <desc>{_description(meta)}</desc>\n"]
    if "properties" in meta:
        child_required = meta.get("required")
        parts.append(f"{indent}  <params>\n")
        parts += [_xml_param(child, child_meta, child_required, level + 2)
                  for child, child_meta in meta["properties"].items()]
        parts.append(f"{indent}  </params>\n")
    parts.append(f"{indent}</param>\n")
    return "".join(parts)


def _xml_type(meta: dict[str, Any]) -> str:
    kind = meta.get("type", "string")
    items: Any = meta.get("items")
    if "items" in meta and "type" in items:
        return f"{kind}[{items['type']}]"
    if "additionalProperties" in meta:
        return f"{kind}[{meta['additionalProperties'].get('type', 'string')}]"
    return f"{kind}"
