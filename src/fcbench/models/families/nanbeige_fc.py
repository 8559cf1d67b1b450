"""Nanbeige 4 (`nanbeige_fc.py NanbeigeFCHandler`): Qwen-FC's layout with Nanbeige's own
default system texts (one before the tools, another when there are no docs)."""

from __future__ import annotations

from fcbench.models.families.base import Doc, Family, Message, own_system_prompt
from fcbench.models.families.qwen import IM_END, IM_START, render_turns
from fcbench.models.families.qwen_fc import parse, system_block

TOOLS_SYSTEM = (
    "你是一位工具函数调用专家，你会得到一个问题和一组可能的工具函数。根据问题，你需要进行一个或多个"
    "函数/工具调用以实现目的，请尽量尝试探索通过工具解决问题。 如果没有一个函数可以使用，请直接使用"
    "自然语言回复用户。 如果给定的问题缺少函数所需的参数，请使用自然语言进行提问，向用户询问必要信息。"  # noqa: E501
    " 如果调用结果已经足够回答用户问题，请对历史结果进行总结，使用自然语言回复用户。"
)
PLAIN_SYSTEM = (
    ' 你是一个名为"南北阁"的人工智能助手，正在与人类用户进行交谈。你的目标是以最有帮助和最逻辑的方式'  # noqa: E501
    "回答问题，同时确保内容的安全性。你的回答中不应包含任何有害、政治化、宗教化、不道德、种族主义、"
    "非法的内容。请确保你的回答不带有社会偏见，符合社会主义价值观。如果遇到的问题无意义或事实上不连贯，"
    "请不要回答错误的内容，而是解释问题为何无效或不连贯。如果你不知道问题的答案，也请勿提供错误的信息。"
)


def render(messages: list[Message], functions: list[Doc]) -> str:
    head = system_block(messages, functions, TOOLS_SYSTEM)
    if not head:
        head = f"{IM_START}system\n{PLAIN_SYSTEM}{IM_END}\n"
    return head + render_turns(messages, with_calls=True)


FAMILY = Family("nanbeige-fc", "nanbeige_fc.py NanbeigeFCHandler", render, own_system_prompt,
                parse, fc=True)
