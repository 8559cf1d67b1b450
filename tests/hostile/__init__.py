"""The hostile corpus of issue 20, in one place: every input that once hung, exhausted or
crashed a run, as plain data and small builders, shared by the tests and
`benchmarks/bench_hostile.py` (which runs all of it end to end).

* `decoding`: model answers for the decoders (`HOSTILE`, one named input a line);
* `environments`: multi-turn environment bombs (`ENVIRONMENT_BOMBS`, `doubling_tree`);
* `files`: malformed result lines and `model.json` contents (`RESULT_LINES`, `MODEL_JSONS`);
* `pages`: hostile web pages and refused URLs (`PAGES`, `REFUSED_URLS`, `gzip_bomb`);
* `endpoints`: a hostile model endpoint on 127.0.0.1 (`HostileEndpoint`, `KINDS`).
"""
