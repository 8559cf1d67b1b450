"""GLM-4-9B-chat (`glm.py GLMHandler`): the docs as OpenAI tools, each under a `## name`
heading in GLM's Chinese system text, then `<|role|>\\ncontent` per message. Names are sent
with underscores (the checker maps them back), and the handler stops on GLM's end tokens."""

from __future__ import annotations

from fcbench.models.doc_formats import indented_json
from fcbench.models.families.base import Doc, Family, Message, own_system_prompt

SYSTEM = (
    "[gMASK]<sop><|system|>\n你是一个名为 ChatGLM 的人工智能助手。你是基于智谱AI训练的语言模型 GLM-4 "  # noqa: E501
    "模型开发的，你的任务是针对用户的问题和要求提供适当的答复和支持。\n\n# 可用工具"
)
CALL_NOTE = "\n在调用上述函数时，请使用 Json 格式表示调用的参数。"


def render(messages: list[Message], functions: list[Doc]) -> str:
    out = ""
    if functions:
        out = SYSTEM
        for tool in functions:
            function = tool["function"]
            out += f"\n\n## {function['name']}\n\n{indented_json(function)}{CALL_NOTE}"
    out += "".join(f"<|{m['role']}|>\n{m['content']}" for m in messages)
    return out + "<|assistant|>"


FAMILY = Family("glm", "glm.py GLMHandler", render, own_system_prompt, fc=True,
                fc_names="underscore", docs="openai",
                extra_body={"stop_token_ids": [151329, 151336, 151338]})
