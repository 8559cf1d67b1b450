"""Write pr_golden/<family>.json: what an open upstream pull request's handler renders and
parses, for the oracle tests of families whose handler is not in the official wheel.

The PR's handler file cannot be committed (upstream code) and tests never reach the network,
so its behaviour is recorded here once, as data, by running the handler itself: the wheel's
package is extracted as in the other oracle tests, the PR's file is read from a local mirror
of ShishirPatil/gorilla (`git show refs/pull/<n>/merge:<path>`) and dropped into it, and the
handler's `_pre_query_processing_prompting` / `_format_prompt` / `_parse_query_response_
prompting` / `decode_ast` produce the expectations:

* every single-turn case of the 13 single-turn categories: a 12-hex sha256 prefix of the
  prompt (the full text for the first case of each, for readable differences);
* every multi-turn case: the prompts (same digests) at three steps -- the first step, the
  step after the scripted call's results came back, the first step of turn 1 -- and the
  stored answer of the scripted call;
* the replies of `REPLIES` (correct, mutated, malformed): the stored answer, the reasoning,
  and the outcome of the handler's `decode_ast` (calls / error type).

Run from the repository root (needs the shared wheel and the mirror; ~1 min):
    PYTHONPATH=src:tests:tests/models/families python tests/models/families/make_pr_golden.py \
        /work/.mirror/ShishirPatil+gorilla/repo [GOLDEN...]
(GOLDEN: only these files, e.g. `lfm2`.)
"""

from __future__ import annotations

import hashlib
import importlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "pr_golden"
WHEEL = (Path(__file__).resolve().parents[3].parent / "shared" / "wheels"
         / "bfcl_eval-2026.3.23-py3-none-any.whl")
HANDLER_DIR = "berkeley-function-call-leaderboard/bfcl_eval/model_handler/local_inference"

PR_HANDLERS: dict[str, dict[str, Any]] = {
    "gemma-4": {"pr": 1357, "module": "gemma_4", "variants": {
        "gemma-4": ("Gemma4Handler", "google/gemma-4-E4B-it"),
        "gemma-4-no-think": ("Gemma4NoThinkHandler", "google/gemma-4-E4B-it"),
    }},
    "lfm2": {"pr": 1341, "module": "lfm2", "template": "LFM2.5-Instruct.jinja",
             "replies": "LFM2_REPLIES", "agentic": True, "variants": {
                 "lfm2": ("LFM2Handler", "LiquidAI/LFM2.5-1.2B-Instruct"),
             }},
}
"""Golden file -> the PR, its handler module, and fcbench family -> (class, model name);
`template`: the chat template (templates/) its tokenizer renders, for handlers whose
`_format_prompt` is `apply_chat_template`; `replies`: the name of its own reply list."""
TEMPLATES = Path(__file__).parent / "templates"

PR_DECODERS: dict[str, dict[str, Any]] = {
    "gemma-4-native": {"pr": 1340, "module": "gemma4", "class": "Gemma4Handler",
                       "model": "google/gemma-4-26B-A4B-it"},
}
"""Output decoders of PRs whose prompt is the model tokenizer's own chat template (not
reproducible offline): golden file -> the PR and its handler, whose decode_ast /
decode_execute are recorded on `REPLIES` + `NATIVE_REPLIES` (the stored text is the reply)."""

NATIVE_REPLIES: list[str] = [
    "<|tool_call>call\uff1aget_weather(city='Paris')<tool_call|>",
    "<|tool_call>call[get_weather(city='Paris')]<tool_call|>",
    "<|tool_call>call:get_time{}<tool_call|>",
    "<|tool_call>call:get_weather{city: 'Paris', days: 3}<tool_call|>",
    "<|tool_call>call:f{a: 'x:y', b: [1, 2]}<tool_call|>",
    "<|tool_call>get_weather(city='Paris')<tool_call|>",
    "<|tool_call>get_weather(city='Paris')<tool_call|><|tool_call>call:f(x=1)<tool_call|>",
    "Sure: <|tool_call>  call:f(x=1)\n<tool_call|> and <|tool_call>call:g()<tool_call|>",
    "<|tool_call>call:f(x=1)<|tool_call>call:g()<tool_call|>",
    "<|tool_call>call:f(x=1)",
    "<|tool_call>call:f(x='<|tool_call>call:g()')<tool_call|>",
    "<|tool_call>call:f(x=[1, 2]<tool_call|>",
    "f(x=1)",
]
"""Replies for #1340's rewrite of native blocks (correct, mutated, malformed)."""

SAMPLE_TEXTS = 1
"""Cases per single-turn category whose whole prompt is kept (the rest: digests)."""

REPLIES: list[str] = [
    "[get_weather(city='Paris', unit='celsius')]",
    "<|channel>thought\nThe user wants Paris.<channel|>[get_weather(city='Paris')]",
    "<|tool_call>call:get_weather(city='Paris')<tool_call|>",
    "<|tool_call>call:get_weather(city='Paris')<tool_call|><|tool_call>call: f(x=1)<tool_call|>",
    "<|channel>thought\nhm<channel|><|tool_call>call:get_weather(city='Rome', days=3)<tool_call|>",
    "[get_weather(city='Paris')]<tool_call|>",
    "<|tool_call>[get_weather(city='Paris')]",
    "<|tool_call>call:<tool_call|>",
    "<|tool_call>call:get_weather{city:'Paris'}<tool_call|>",
    "<|channel>thought\nno answer<channel|>",
    "<|channel>thought\na<channel|>b<channel|>[f(a=1)]",
    "I cannot help with that.",
    "[get_weather(city='Paris'",
    "",
]
"""Model replies for the decoder oracle: correct, mutated and malformed Gemma 4 outputs."""

LFM2_REPLIES: list[str] = [
    "<|tool_call_start|>[get_weather(city='Paris', unit='celsius')]<|tool_call_end|>",
    "<think>The user wants Paris.</think><|tool_call_start|>[get_weather(city=\"Paris\")]"
    "<|tool_call_end|>",
    "<|tool_call_start|>[math.add(a=1, b=-2.5), f(x=[1, (2, 3)], y={'k': None})]"
    "<|tool_call_end|>",
    "<|tool_call_start|> [ f(order=ascending) ] \n<|tool_call_end|>",
    "<|tool_call_start|>[f(x=1)]<|tool_call_end|> then <|tool_call_start|>[g(y=2)]"
    "<|tool_call_end|>",
    "Sure.<|tool_call_start|>[f(1, x=2)]<|tool_call_end|>",
    "<|tool_call_start|>[f(x=-'a'), g(y=1)]<|tool_call_end|>",
    "<|tool_call_start|>[f(x=1+2), 3, g()]<|tool_call_end|>",
    "<|tool_call_start|>[f(x={**a}), h(z=None)]<|tool_call_end|>",
    "<|tool_call_start|>[f(x=[1, 2]<|tool_call_end|>",
    "<|tool_call_start|>[f(x=1)]",
    "[f(x=1)]<|tool_call_end|>",
    "<|tool_call_end|><|tool_call_start|>[f(x=1)]",
    "<|tool_call_start|>[]<|tool_call_end|>",
    "<|tool_call_start|>[f(x='a]b')]<|tool_call_end|>",
    "<|tool_call_start|>[f(x='<|tool_call_end|>')]<|tool_call_end|>",
    "<|tool_call_start|>[(lambda: 1)()]<|tool_call_end|>",
    "[get_weather(city='Paris')]",
    "<think>hm</think>\n\n[f(a=1)]",
    "<think>a</think>b<think>c</think>[f(a=1)]",
    "<think>unclosed [f(a=1)]",
    "I cannot help with that.",
    "[get_weather(city='Paris'",
    "",
]
"""Correct, mutated and malformed LFM2.x outputs."""


class TemplateTokenizer:
    """A tokenizer's `apply_chat_template` (text out) for a template file, rendered by
    transformers' own chat-template renderer with the LFM2 tokenizer's `bos_token`."""

    def __init__(self, path: Path) -> None:
        self.template = path.read_text(encoding="utf-8")

    def apply_chat_template(self, messages: Any, tools: Any = None, *,
                            add_generation_prompt: bool = False, tokenize: bool = True) -> str:
        from transformers.utils.chat_template_utils import render_jinja_template

        assert not tokenize
        rendered, _ = render_jinja_template(
            conversations=[messages], tools=tools, chat_template=self.template,
            add_generation_prompt=add_generation_prompt, bos_token="<|startoftext|>")
        return str(rendered[0])


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def pr_source(mirror: Path, pr: int, module: str) -> tuple[str, str]:
    """(the handler file's text, the merge commit) from the mirror."""
    ref = f"refs/pull/{pr}/merge"
    commit = subprocess.run(["git", "-C", str(mirror), "rev-parse", ref], check=True,
                            capture_output=True, text=True).stdout.strip()
    text = subprocess.run(["git", "-C", str(mirror), "show", f"{commit}:{HANDLER_DIR}/{module}.py"],
                          check=True, capture_output=True, text=True).stdout
    return text, commit


def decoded(handler: Any, result: str) -> list[str]:
    """[outcome of decode_ast, its calls or error, outcome of decode_execute]."""
    from bfcl_eval.constants.enums import ReturnFormat
    from bfcl_eval.utils import is_function_calling_format_output

    from fcbench.decode.errors import DECODER_FAILED, WRONG_OUTPUT_FORMAT

    try:
        execute = repr(handler.decode_execute(result, False))
    except Exception as exc:
        execute = f"{DECODER_FAILED} {type(exc).__name__}"
    try:
        out = handler.decode_ast(result, ReturnFormat.PYTHON, False)
    except Exception as exc:
        return [DECODER_FAILED, type(exc).__name__, execute]
    if not is_function_calling_format_output(out):
        return [WRONG_OUTPUT_FORMAT, repr(out), execute]
    return ["calls", repr(out), execute]


def record_variant(handler: Any, official: Any, texts: Any,
                   replies_to: list[str] = REPLIES) -> dict[str, Any]:
    from family_handlers import FakeCompletion, copy, python_list
    from test_official_prompts import MULTI_TURN, SINGLE_TURN

    single: dict[str, str] = {}
    samples: dict[str, str] = {}
    for category in SINGLE_TURN:
        for index, entry in enumerate(official.load(category)):
            entry = copy(entry)
            data = handler._pre_query_processing_prompting(entry)
            data = handler.add_first_turn_message_prompting(data, entry["question"][0])
            prompt = handler._format_prompt(data["message"], data["function"])
            single[entry["id"]] = digest(prompt)
            if index < SAMPLE_TEXTS:
                samples[entry["id"]] = prompt
    multi: dict[str, Any] = {}
    for category in MULTI_TURN:
        for entry in official.load(category):
            multi[entry["id"]] = record_conversation(handler, copy(entry), texts, python_list)
    replies = []
    for reply in replies_to:
        parsed = handler._parse_query_response_prompting(FakeCompletion(reply))
        replies.append({"reply": reply, "result": parsed["model_responses"],
                        "reasoning": parsed["reasoning_content"],
                        "decoded": decoded(handler, parsed["model_responses"])})
    return {"single_turn": single, "samples": samples, "multi_turn": multi, "replies": replies}


AGENTIC_FIRST_TURNS: dict[str, list[dict[str, str]]] = {
    "memory_kv_0-customer-0": [{"role": "system", "content": "You are a memory agent."},
                               {"role": "user", "content": "What is my name?"}],
    "web_search_base_0": [{"role": "user", "content": "Who won?"}],
    "multiple_0": [{"role": "user", "content": "Add 1 and 2."}],
}
"""First turns of hand-made entries (agentic with and without a system message, and one
that is not), for handlers whose system text depends on the category."""


def record_agentic(handler: Any) -> dict[str, Any]:
    """The first turn the handler's `_pre_query_processing_prompting` leaves in each entry."""
    found = {}
    for case_id, turn in AGENTIC_FIRST_TURNS.items():
        entry = {"id": case_id, "question": [json.loads(json.dumps(turn))], "function": []}
        handler._pre_query_processing_prompting(entry)
        found[case_id] = entry["question"][0]
    return found


def record_conversation(handler: Any, entry: dict[str, Any], texts: Any, write: Any) -> Any:
    """The three prompts and the stored answer, as in `test_pr_prompts.our_conversation`."""
    from test_official_prompts import OfficialConversation

    theirs = OfficialConversation(handler, entry)
    prompts = [digest(theirs.prompt())]
    call = first_call(entry)
    response = theirs.answer(write(call))
    calls = [f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in call]
    results = [json.dumps({"result": c, "n": i}) for i, c in enumerate(calls)]
    theirs.results(response, calls, results)
    prompts.append(digest(theirs.prompt()))
    theirs.answer("All done.")
    if len(entry["question"]) > 1:  # a one-turn conversation has two steps to check
        theirs.next_turn(1, texts)
        prompts.append(digest(theirs.prompt()))
    return {"prompts": prompts, "result": response["model_responses"]}


def first_call(entry: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The first ground-truth call of turn 0 (the official loader keeps the answers apart,
    so it is read through fcbench's loader, like the other oracle tests' scripts)."""
    from test_official_prompts import scripted_call

    from fcbench.dataset.load import load_category

    category = entry["id"].rsplit("_", 1)[0]
    cases = _cases(category, load_category)
    return scripted_call(cases[entry["id"]])


_CACHE: dict[str, Any] = {}


def _cases(category: str, load: Any) -> Any:
    if category not in _CACHE:
        _CACHE[category] = {case.id: case for case in load(category)}
    return _CACHE[category]


def main(mirror: Path, only: list[str]) -> None:
    """Record every golden file, or only those named in `only`."""
    import os

    from family_handlers import bare

    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.install import fetch
    from fcbench.dataset.prompt_texts import load_texts
    from official_bfcl import official_package

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FCBENCH_HOME"] = str(Path(tmp) / "home")
        fetch(DEFAULT_RELEASE, source=WHEEL)
        texts = load_texts(DEFAULT_RELEASE)
        with official_package(WHEEL, Path(tmp) / "official") as package:
            from bfcl_eval.constants.enums import ModelStyle
            from bfcl_eval.utils import load_dataset_entry

            official = type("Official", (), {"load": staticmethod(load_dataset_entry)})
            for golden, spec in PR_HANDLERS.items():
                if only and golden not in only:
                    continue
                source, commit = pr_source(mirror, spec["pr"], spec["module"])
                (package / "model_handler/local_inference" / f"{spec['module']}.py").write_text(
                    source, encoding="utf-8")
                module = importlib.import_module(
                    f"bfcl_eval.model_handler.local_inference.{spec['module']}")
                out: dict[str, Any] = {"pr": spec["pr"], "commit": commit,
                                       "path": f"{HANDLER_DIR}/{spec['module']}.py",
                                       "families": {}}
                for family, (cls, model) in spec["variants"].items():
                    handler = bare(getattr(module, cls), model_name=model,
                                   model_name_huggingface=model, model_style=ModelStyle.OSSMODEL,
                                   temperature=0.001)
                    if "template" in spec:
                        handler.tokenizer = TemplateTokenizer(TEMPLATES / spec["template"])
                    replies = globals()[spec.get("replies", "REPLIES")]
                    out["families"][family] = record_variant(handler, official, texts, replies)
                    if spec.get("agentic"):
                        out["families"][family]["agentic"] = record_agentic(handler)
                    if "replies" in spec:  # its decoders on the raw replies too (markers kept)
                        out["families"][family]["raw_replies"] = [
                            {"reply": reply, "decoded": decoded(handler, reply)}
                            for reply in replies]
                GOLDEN.mkdir(exist_ok=True)
                (GOLDEN / f"{golden}.json").write_text(
                    json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                    encoding="utf-8")
                print(golden, commit, file=sys.stderr)
            for golden, spec in PR_DECODERS.items():
                if only and golden not in only:
                    continue
                source, commit = pr_source(mirror, spec["pr"], spec["module"])
                (package / "model_handler/local_inference" / f"{spec['module']}.py").write_text(
                    source, encoding="utf-8")
                module = importlib.import_module(
                    f"bfcl_eval.model_handler.local_inference.{spec['module']}")
                handler = bare(getattr(module, spec["class"]), model_name=spec["model"],
                               model_name_huggingface=spec["model"],
                               model_style=ModelStyle.OSSMODEL, temperature=0.001)
                replies = [{"reply": reply, "decoded": decoded(handler, reply)}
                           for reply in REPLIES + NATIVE_REPLIES]
                recorded = {"pr": spec["pr"], "commit": commit,
                            "path": f"{HANDLER_DIR}/{spec['module']}.py", "replies": replies}
                (GOLDEN / f"{golden}.json").write_text(
                    json.dumps(recorded, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                    encoding="utf-8")
                print(golden, commit, file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
