"""MiniCPM3 with tools (`minicpm_fc.py MiniCPMFCHandler`): the docs written as Python — each
tool a `def` whose docstring lists its arguments as the pydantic fields that
`datamodel-code-generator` makes of its JSON schema — inside MiniCPM's function-call rules, at
the end of the system turn; then ChatML turns with stripped text. Names are sent with
underscores; the handler stops on MiniCPM's end tokens and keeps special tokens.

The code generator decides the prompt's text, so it is the handler's pinned version
(extra `minicpm`: `pip install 'fcbench[minicpm]'`); its output is also shaped by the
formatter versions it finds (black, isort).

[quirk] The handler renders by rewriting the conversation in place: a system message is
inserted when there is none, every text is stripped, and the tools text is appended to the
system message again at every step. The family repeats that once per step taken.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from fcbench.models.families.base import (
    Doc,
    Family,
    Message,
    counted_text,
    own_system_prompt,
    render_count,
)

GENERATOR_VERSION = "0.25.7"
HEADER = ("from enum import Enum\nfrom typing import List, Dict, Optional\n"
          "from pydantic import BaseModel, Field\n\n")
RULES = """# Functions
Here is a list of functions that you can invoke:
```python
{tools}
```

# Function Call Rule and Output Format
- If the user's question can be answered without calling any function, please answer the user's question directly. In this situation, you should return your thought and answer the user's question directly.
- If the user cannot be answered without calling any function, and the user does not provide enough information to call functions, please ask the user for more information. In this situation, you should return your thought and ask the user for more information.
- If the user's question cannot be answered without calling any function, and the user has provided enough information to call functions to solve it, you should call the functions. In this situation, the assistant should return your thought and call the functions.
- Use default parameters unless the user has specified otherwise.
- You should answer in the following format:

<|thought_start|>
{{explain why the user's question can be answered without calling a function or why you should ask the user for more information or why you should call one or more functions and your plan to solve the user's question.}}
<|thought_end|>
<|tool_call_start|>
```python
func1(params_name=params_value, params_name2=params_value2...)
func2(params)
```
<|tool_call_end|>
{{answer the user's question directly or ask the user for more information}}
"""  # noqa: E501


def schema_code(schema: dict[str, Any]) -> str:
    """The pydantic models `datamodel-code-generator` writes for a JSON schema (remembered:
    a run renders the same docs at every step, and each takes the generator ~0.1 s)."""
    return _schema_code(json.dumps(schema))


@functools.lru_cache(maxsize=4096)
def _schema_code(schema_json: str) -> str:
    import datamodel_code_generator as generator
    from datamodel_code_generator import DataModelType, PythonVersion
    from datamodel_code_generator.model import get_data_model_types
    from datamodel_code_generator.parser.jsonschema import JsonSchemaParser

    if generator.get_version() != GENERATOR_VERSION:
        raise RuntimeError(f"the minicpm-fc prompt needs datamodel-code-generator=="
                           f"{GENERATOR_VERSION} (found {generator.get_version()})")
    types = get_data_model_types(DataModelType.PydanticBaseModel,
                                 target_python_version=PythonVersion.PY_310)
    parser = JsonSchemaParser(
        source=schema_json, data_model_type=types.data_model,
        data_model_root_type=types.root_model, data_model_field_type=types.field_model,
        data_type_manager_type=types.data_type_manager,
        target_python_version=PythonVersion.PY_311,
        dump_resolve_reference_action=types.dump_resolve_reference_action,
        field_constraints=True,
    )
    return str(parser.parse())


def tool_code(tool: Doc) -> str:
    """One tool as Python: its classes, then `def name(args):` with the fields as docstring."""
    params = tool["parameters"]
    required, optional = [], []
    for name, prop in params["properties"].items():
        if "default" in prop:
            optional.append(f"{name}={prop['default']!r}")
        elif name not in params.get("required", []):
            optional.append(f"{name}={None!r}")
        else:
            required.append(name)
    arguments = ", ".join(required + optional)
    signature = "def {f_name}({ps}):\n".format(f_name=tool["name"], ps=arguments)
    code = schema_code(params)
    if "class" in code:
        code = code[code.index("class"):]
    classes, fields = code.split("class Model(BaseModel):", 1)
    docstring = f'    """\n    {tool.get("description", "")}\n    Args:\n{fields}\n    """\n'
    return classes + signature + docstring if classes else signature + docstring


def tools_text(tools: list[Doc]) -> str:
    """The function section; a tool the generator cannot write is left out, as upstream."""
    if not tools:
        return ""
    code = HEADER
    for tool in tools:
        try:
            code += "\n\n" + tool_code(tool.get("function", tool))
        except RuntimeError:
            raise
        except Exception:  # the handler's bare except
            pass
    return RULES.format(tools=code).strip()


def render(messages: list[Message], functions: list[Doc]) -> str:
    tools = tools_text(functions)
    system = ""
    rest = messages
    if messages and messages[0]["role"] == "system":
        system, rest = messages[0]["content"], messages[1:]
    for _ in range(render_count(messages)):  # the tools text joins the system text per step
        system = (system + "\n" + tools).strip()
    turns = [f"<|im_start|>system\n{system}<|im_end|>\n"] if messages else []
    for message in rest:
        content = message.get("content")
        turns.append(f"<|im_start|>{message['role']}\n{(content or '').strip()}<|im_end|>\n")
    return "".join(turns) + "<|im_start|>assistant\n"


FAMILY = Family("minicpm-fc", "minicpm_fc.py MiniCPMFCHandler", render, own_system_prompt,
                counted_text, fc=True, fc_names="underscore", docs="openai",
                extra_body={"stop_token_ids": [2, 73440], "skip_special_tokens": False},
                requires=("datamodel_code_generator",), extra="minicpm")
