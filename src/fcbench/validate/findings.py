"""What `fcbench data validate` finds, each with its file, line and case id, and the
tolerant reading of JSON lines its checks share.

An *error* is something that makes a case unloadable or unpassable, or contradicts the docs
(a model that follows the docs is judged wrong, or the tool fails on the file); a *warning*
is only suspicious (the checker copes, but the data probably does not mean it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from fcbench.dataset.fetch import DataError
from fcbench.dataset.source import Source, json_lines

__all__ = ["Finding", "Place", "Recorder", "Report", "read_rows"]

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Place:
    """Where a finding is: a data file (relative to `data/`), a line (1-based), a case id."""

    file: str
    line: int | None = None
    case_id: str | None = None


@dataclass(frozen=True)
class Finding:
    severity: Severity
    kind: str
    """A short, stable name for the kind of defect (`unknown-param`, `duplicate-id`, ...)."""
    place: Place
    message: str

    def format(self) -> str:
        """`error: possible_answer/F.json:12: simple_python_11: [unknown-param] ...`."""
        where = self.place.file + (f":{self.place.line}" if self.place.line else "")
        case = f" {self.place.case_id}:" if self.place.case_id else ""
        return f"{self.severity}: {where}:{case} [{self.kind}] {self.message}"

    def as_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "kind": self.kind,
            "file": self.place.file,
            "line": self.place.line,
            "id": self.place.case_id,
            "message": self.message,
        }


@dataclass
class Recorder:
    """Collects findings as the checks go (the checks never raise on bad data)."""

    findings: list[Finding] = field(default_factory=list)

    def error(self, kind: str, place: Place, message: str) -> None:
        self.findings.append(Finding("error", kind, place, message))

    def warning(self, kind: str, place: Place, message: str) -> None:
        self.findings.append(Finding("warning", kind, place, message))


@dataclass
class Report:
    """The outcome of validating one dataset."""

    source: str
    """The release (`bfcl-eval 2026.3.23`) or the folder validated."""
    naming: str
    """The file-name prefix recognised (`BFCL_v4`, `BFCL_v3`)."""
    findings: list[Finding]
    files: int
    cases: int

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    def counts(self) -> Counter[tuple[str, str]]:
        """How many findings of each (severity, kind)."""
        return Counter((f.severity, f.kind) for f in self.findings)

    def summary(self) -> str:
        return (
            f"{self.source}: {self.files} file(s), {self.cases} case(s) checked: "
            f"{len(self.errors)} error(s), {len(self.warnings)} warning(s)"
        )


def read_rows(
    src: Source, rel: str, rec: Recorder, lines: Iterator[str] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every JSON-object line, one at a time (a large file's rows
    are never all held); each bad line is a finding, and the rest of the file is still read
    (loading stops at the first). `lines`: the file's lines when they come from elsewhere
    (`Source.stream_pair`)."""
    try:
        lines = src.stream(rel) if lines is None else lines
        for number, line in enumerate(lines, start=1):
            for _, obj, error in json_lines(line):
                if error is not None:
                    rec.error("json", Place(rel, number), error)
                elif not isinstance(obj, dict):
                    rec.error("schema", Place(rel, number), "the line is not a JSON object")
                else:
                    yield number, obj
    except DataError as exc:
        rec.error("unreadable", Place(rel), str(exc))
    except UnicodeDecodeError as exc:
        rec.error("encoding", Place(rel), f"not UTF-8 text ({exc.reason})")
