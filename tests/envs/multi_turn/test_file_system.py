"""GorillaFileSystem scenarios: every command, its error paths, the quirks, long context."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench.envs.budget import MAX_TREE_NODES, MAX_TREE_TEXT, BudgetExceeded
from fcbench.envs.multi_turn import load_class
from fcbench.envs.multi_turn import long_context as filler
from fcbench.envs.multi_turn.file_system import Directory, File, GorillaFileSystem
from fcbench.envs.multi_turn.file_tree import expanded_size


@pytest.fixture
def fetched(fetched_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Long-context tests read the filler constants of the fetched release."""
    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    monkeypatch.setattr(filler, "_CACHE", {})
    yield


def _file(content: str) -> dict[str, Any]:
    return {"type": "file", "content": content}


def _dir(**contents: Any) -> dict[str, Any]:
    return {"type": "directory", "contents": contents}


def _scenario() -> dict[str, Any]:
    documents = _dir(
        **{
            "notes.txt": _file("b line\na line\nc"),
            "report.txt": _file("b line\nX\nc\nextra"),
            ".hidden": _file(""),
            "archive": _dir(),
        }
    )
    return {"root": {"alex": _dir(documents=documents, **{"readme.md": _file("hello")})}}


def _fs(long_context: bool = False, scenario: dict[str, Any] | None = None) -> GorillaFileSystem:
    fs = GorillaFileSystem()
    fs._load_scenario(_scenario() if scenario is None else scenario, long_context=long_context)
    return fs


def test_registry_state_and_equality() -> None:
    assert load_class("GorillaFileSystem") is GorillaFileSystem
    fs = _fs()
    assert [k for k in vars(fs) if not k.startswith("_")] == ["long_context", "root"]
    assert fs.long_context is False and fs.root.name == "alex"
    assert list(fs.root.contents) == ["documents", "readme.md"]
    other = _fs()
    other.cd("documents")  # the working directory is not part of the state
    assert fs.root == other.root and fs == other
    # Equality ignores parents, and File never equals Directory.
    assert Directory("d", None) == Directory("d", fs.root)
    assert File("a", "x") == File("a", "x") != File("a", "y")
    assert File("a") != Directory("a")
    assert repr(File("f", "t")) == "<<File: f, Content: t>>"
    assert repr(Directory("d", fs.root)) == "<Directory: d, Parent: alex, Contents: {}>"


def test_default_root_without_scenario() -> None:
    fs = _fs(scenario={})
    assert fs.root == Directory("/", None) and fs.root.parent is None
    # [quirk] the root's own name is always part of the path
    assert fs.pwd() == {"current_working_directory": "//"}


def test_navigation() -> None:
    fs = _fs()
    assert fs.pwd() == {"current_working_directory": "/alex"}
    assert fs.cd("documents/") == {"current_working_directory": "documents"}
    assert fs.pwd() == {"current_working_directory": "/alex/documents"}
    assert fs.ls() == {"current_directory_content": ["notes.txt", "report.txt", "archive"]}
    assert fs.ls(a=True)["current_directory_content"][2] == ".hidden"
    assert fs.cd(".") == {"current_working_directory": "documents"}
    assert fs.cd("archive/more") == {
        "error": "cd: archive/more: Unsupported path. Only one folder level at a time is supported."
    }
    assert fs.cd("missing") == {"error": "cd: 'missing': No such file or directory"}
    assert fs.cd("notes.txt") == {"error": "cd: 'notes.txt': No such file or directory"}
    assert fs.cd("../") == {}
    assert fs.cd("..") == {"error": "Current directory is already the root. Cannot go back."}
    fs.cd("documents")
    assert fs.cd("/") == {"current_working_directory": "alex"}
    assert fs.pwd() == {"current_working_directory": "/alex"}
    with pytest.raises(AttributeError):
        fs.cd(3)  # type: ignore[arg-type]


def test_create_write_read() -> None:
    fs = _fs()
    assert fs.mkdir("new") is None and isinstance(fs.root.contents["new"], Directory)
    assert fs.root.contents["new"].parent is fs.root
    assert fs.mkdir("new") == {"error": "mkdir: cannot create directory 'new': File exists"}
    assert fs.mkdir("a:b") == {"error": "mkdir: cannot create directory 'a:b': Invalid character"}
    assert fs.touch("t.txt") is None and fs.root.contents["t.txt"] == File("t.txt", "")
    assert fs.touch("t.txt") == {"error": "touch: cannot touch 't.txt': File exists"}
    assert fs.touch("a/b") == {"error": "touch: cannot touch 'a/b': Invalid character"}
    assert fs.echo("hi") == {"terminal_output": "hi"}
    assert fs.echo("hi", "") == {"terminal_output": "hi"}
    assert fs.echo("hi", "x?") == {"error": "echo: cannot write to 'x?': Invalid character"}
    assert fs.echo("hi", "nope") == {"error": "echo: cannot write to 'nope': No such file"}
    assert fs.echo("new text", "t.txt") is None
    assert fs.cat("t.txt") == {"file_content": "new text"}
    with pytest.raises(AttributeError, match="'Directory' object has no attribute '_write'"):
        fs.echo("x", "new")  # [quirk]
    assert fs.cat("new") == {"error": "cat: 'new': Is a directory"}
    assert fs.cat("nope") == {"error": "cat: 'nope': No such file or directory"}
    assert fs.cat("a>b") == {"error": "cat: 'a>b': Invalid character"}
    with pytest.raises(TypeError):
        fs.touch(5)  # type: ignore[arg-type]


def test_find() -> None:
    fs = _fs()
    assert fs.find() == {
        "matches": [
            "./documents",
            "./documents/notes.txt",
            "./documents/report.txt",
            "./documents/.hidden",
            "./documents/archive",
            "./readme.md",
        ]
    }
    assert fs.find(path="/", name="txt") == {
        "matches": ["/documents/notes.txt", "/documents/report.txt"]
    }
    assert fs.find(path="documents/", name="arch") == {"matches": ["documents/archive"]}
    assert fs.find(path="nope") == {"error": "find: 'nope': No such file or directory"}
    assert fs.find(path="..") == {"error": "find: '..': No such file or directory"}


def test_text_tools() -> None:
    fs = _fs()
    fs.cd("documents")
    assert fs.wc("notes.txt") == {"count": 3, "type": "lines"}
    assert fs.wc("notes.txt", "w") == {"count": 5, "type": "words"}
    assert fs.wc("notes.txt", "c") == {"count": 15, "type": "characters"}
    assert fs.wc("notes.txt", "x") == {"error": "wc: invalid mode 'x'"}
    assert fs.wc("archive") == {"error": "wc: archive: No such file or directory"}
    assert fs.sort("notes.txt") == {"sorted_content": "a line\nb line\nc"}
    assert fs.sort("nope") == {"error": "sort: nope: No such file or directory"}
    assert fs.grep("notes.txt", "line") == {"matching_lines": ["b line", "a line"]}
    assert fs.grep("archive", "x") == {"error": "grep: archive: No such file or directory"}
    assert fs.tail("notes.txt", 2) == {"last_lines": "a line\nc"}
    assert fs.tail("notes.txt", 50) == {"last_lines": "b line\na line\nc"}
    assert fs.tail("notes.txt", 0) == {"last_lines": "b line\na line\nc"}  # [quirk] [-0:]
    assert fs.tail("nope") == {"error": "tail: nope: No such file or directory"}
    # Only the common prefix of lines is compared.
    assert fs.diff("notes.txt", "report.txt") == {"diff_lines": "- a line\n+ X"}
    assert fs.diff("notes.txt", "archive") == {
        "error": "diff: notes.txt or archive: No such file or directory"
    }


def test_du() -> None:
    fs = _fs()
    assert fs.du() == {"disk_usage": "36 bytes"}
    fs.echo("é" * 1024, "readme.md")  # two UTF-8 bytes each
    assert fs.du() == {"disk_usage": "2079 bytes"}
    assert fs.du(human_readable=True) == {"disk_usage": "2.03 KB"}
    fs.cd("documents")
    assert fs.du(human_readable=True) == {"disk_usage": "31.00 B"}


def test_mv() -> None:
    fs = _fs()
    fs.cd("documents")
    assert fs.mv("nope", "x") == {"error": "mv: cannot move 'nope': No such file or directory"}
    assert fs.mv("notes.txt", "a/b") == {
        "error": "mv: path not allowed in destination. Provide only a file or directory name."
    }
    assert fs.mv("notes.txt", "report.txt") == {
        "error": "mv: cannot move 'notes.txt' to 'report.txt': Not a directory"
    }
    assert fs.mv("notes.txt", "renamed.txt") == {"result": "'notes.txt' moved to 'renamed.txt'"}
    assert list(fs.ls()["current_directory_content"]) == ["report.txt", "archive", "renamed.txt"]
    assert fs.mv("renamed.txt", "archive") == {
        "result": "'renamed.txt' moved to 'archive/renamed.txt'"
    }
    fs.touch("renamed.txt")
    assert fs.mv("renamed.txt", "archive") == {
        "error": "mv: cannot move 'renamed.txt' to 'archive/renamed.txt': File exists"
    }


def test_mv_directory_keeps_old_parent_links() -> None:
    fs = _fs()
    assert fs.mv("documents", "docs") == {"result": "'documents' moved to 'docs'"}
    fs.cd("docs")
    assert fs.pwd() == {"current_working_directory": "/alex/docs"}
    fs.cd("archive")
    # [quirk] the children still point at the old directory object
    assert fs.pwd() == {"current_working_directory": "/alex/documents/archive"}
    fs.cd("..")
    assert fs.pwd() == {"current_working_directory": "/alex/documents"}
    assert fs.root.contents["docs"].contents is fs._current_dir.contents  # type: ignore[union-attr]


def test_cp() -> None:
    fs = _fs()
    fs.cd("documents")
    assert fs.cp("nope", "x") == {"error": "cp: cannot copy 'nope': No such file or directory"}
    assert fs.cp("notes.txt", "x/y") == {
        "error": "cp: path not allowed in destination. Provide only a file or directory name."
    }
    assert fs.cp("notes.txt", "report.txt") == {
        "error": "cp: cannot copy 'notes.txt' to 'report.txt': Not a directory"
    }
    assert fs.cp("notes.txt", "copy.txt") == {"result": "'notes.txt' copied to 'copy.txt'"}
    assert fs.cat("copy.txt") == fs.cat("notes.txt")
    assert fs.cp("notes.txt", "archive") == {"result": "'notes.txt' copied to 'archive/notes.txt'"}
    # [quirk] the clash check never matches; adding the file raises instead
    with pytest.raises(
        ValueError, match=r"File 'notes\.txt' already exists in directory 'archive'\."
    ):
        fs.cp("notes.txt", "archive")


def test_cp_directory_shares_children() -> None:
    fs = _fs()
    assert fs.cp("documents", "backup") == {"result": "'documents' copied to 'backup'"}
    fs.cd("backup")
    fs.echo("changed", "notes.txt")
    fs.touch("only_in_backup")
    fs.cd("..")
    fs.cd("documents")
    # [quirk] the files are shared objects, the name mapping is not
    assert fs.cat("notes.txt") == {"file_content": "changed"}
    assert "only_in_backup" not in fs.ls()["current_directory_content"]


def _doubling(fs: GorillaFileSystem, levels: int) -> None:
    """`levels` nested directories, each copied beside itself on the way back up: the copies
    share children, so paths double per level; stops at the first refused copy."""
    for level in range(levels):
        fs.mkdir(f"l{level}")
        fs.cd(f"l{level}")
    fs.touch("f")
    for level in range(levels - 1, 0, -1):
        fs.cd("..")
        fs.cp(f"l{level}", f"m{level}")


def test_copies_that_multiply_paths_are_refused_and_undone() -> None:
    fs = _fs()
    _doubling(fs, 12)  # 2**12 paths: within the budget, as the official builds it
    fs.cd("/")
    assert len(fs.find()["matches"]) > 2**12
    fs = _fs()
    with pytest.raises(BudgetExceeded, match="cp: the file system would exceed"):
        _doubling(fs, 40)
    size = expanded_size(fs.root, MAX_TREE_NODES, MAX_TREE_TEXT)
    assert size is not None and size[0] <= MAX_TREE_NODES  # the refused copy was taken back
    level = int(fs._current_dir.name[1:])
    for deeper in range(level + 1, 40):
        fs.cd(f"l{deeper}")  # the bottom: reached along every copied path
    names = list(fs._current_dir.contents)
    with pytest.raises(BudgetExceeded, match="touch"):  # each file adds a path per copy
        for count in range(1000):
            fs.touch(f"t{count}")
            names.append(f"t{count}")
    assert list(fs._current_dir.contents) == names  # the refused file was taken back


def test_a_copy_into_itself_is_a_refused_cycle() -> None:
    fs = _fs()
    fs.cd("documents")
    fs.mkdir("inner")
    fs.cd("..")
    with pytest.raises(BudgetExceeded):
        fs.cp("documents", "documents")
    assert "documents" not in fs._current_dir.contents["documents"].contents  # type: ignore[union-attr]
    assert len(fs.find()["matches"]) == 7


def test_text_multiplied_by_shared_copies_is_refused() -> None:
    fs = _fs()
    _doubling(fs, 8)  # 2**8 copies of one file
    fs.cd("l1")
    for level in range(2, 8):
        fs.cd(f"l{level}")
    with pytest.raises(BudgetExceeded, match="echo"):
        fs.echo("z" * (MAX_TREE_TEXT // 100), "f")
    assert fs.cat("f") == {"file_content": ""}
    assert fs.echo("small", "f") is None


def test_expanded_size_counts_every_path_once() -> None:
    root = Directory("/")
    shared = Directory("s", root)
    shared.contents["f"] = File("f", "abc")
    root.contents["a"] = shared
    root.contents["b"] = shared
    assert expanded_size(root, 100, 100) == (4, 6)
    assert expanded_size(root, 3, 100) is None
    assert expanded_size(root, 100, 5) is None
    shared.contents["loop"] = root
    assert expanded_size(root, 10**9, 10**9) is None


def test_rm_and_rmdir() -> None:
    fs = _fs()
    fs.cd("documents")
    assert fs.rmdir("notes.txt") == {"error": "rmdir: cannot remove 'notes.txt': Not a directory"}
    assert fs.rmdir("nope") == {"error": "rmdir: cannot remove 'nope': No such file or directory"}
    assert fs.rmdir("archive") == {"result": "'archive' removed"}
    assert fs.rm("nope") == {"error": "rm: cannot remove 'nope': No such file or directory"}
    assert fs.rm("notes.txt") == {"result": "'notes.txt' removed"}
    fs.cd("..")
    assert fs.rmdir("documents") == {
        "error": "rmdir: cannot remove 'documents': Directory not empty"
    }
    assert fs.rm("documents") == {"result": "'documents' removed"}
    assert fs.ls() == {"current_directory_content": ["readme.md"]}


@pytest.mark.usefixtures("fetched")
def test_long_context_padding() -> None:
    extension = filler.value("FILE_CONTENT_EXTENSION")
    names = filler.value("POPULATE_FILE_EXTENSION")
    scenario = {
        "root": {
            "u": _dir(
                docs=_dir(**{"a.txt": _file("A"), "log.txt": _file("L")}),
                **{"top.txt": _file("T")},
            )
        }
    }
    fs = _fs(long_context=True, scenario=scenario)
    assert fs.long_context is True
    docs = fs.root.contents["docs"]
    assert isinstance(docs, Directory)
    assert docs.contents["a.txt"] == File("a.txt", "A" + extension)
    assert docs.contents["log.txt"] == File("log.txt", "L")  # a file cases `tail`
    assert list(docs.contents)[2:] == names and all(
        docs.contents[name] == File(name, "") for name in names
    )
    # The root has a subdirectory, so it is not stuffed with filler names.
    assert list(fs.root.contents) == ["docs", "top.txt"]
    # A root holding only files is the bottom level and gets the filler names.
    flat = _fs(long_context=True, scenario={"root": {"u": _dir(**{"x": _file("")})}})
    assert list(flat.root.contents) == ["x", *names]


def test_long_context_module_access(fetched: None) -> None:
    assert filler.value("FILES_TAIL_USED") == filler.FILES_TAIL_USED
    assert filler.value("WATCH_LIST_EXTENSION")[-1] is Ellipsis
    assert "FILE_CONTENT_EXTENSION" in filler.names()
    with pytest.raises(AttributeError):
        _ = filler.NO_SUCH_TABLE
