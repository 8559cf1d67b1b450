"""GorillaFileSystem: the in-memory shell that file-system multi-turn cases run against.

The tree is made of `Directory` and `File` nodes. A case's state is the tree under `root`
plus the `long_context` flag; the working directory (`_current_dir`) is private, so two runs
that end in different directories still agree. Node equality looks at names and contents
only (never at parents), which is what makes the comparison of two trees structural.

Every method mirrors a shell command with deliberately narrow rules (one folder level per
`cd`, no paths in most file names) and answers with a small dict, or `None` for commands
that succeed silently. The messages are part of what the model sees and of what the checker
compares, so they are kept verbatim, as are several odd behaviours of the official backend
(marked `[quirk]`).
"""

from __future__ import annotations

from typing import Any

from fcbench.envs.budget import MAX_TREE_NODES, MAX_TREE_TEXT, BudgetExceeded
from fcbench.envs.multi_turn import long_context
from fcbench.envs.multi_turn.file_tree import (
    _SIZE_UNITS,
    _WC_MODES,
    Directory,
    File,
    Node,
    _byte_size,
    _name_is_valid,
    expanded_size,
)

__all__ = ["Directory", "File", "GorillaFileSystem"]

_Saved = list[tuple[Directory, dict[str, Node]]]

class GorillaFileSystem:
    """The file-system backend; state is `root` (the tree) and `long_context`."""

    def __init__(self) -> None:
        self.root: Directory
        self._current_dir: Directory
        self._release: str | None = None
        self._shared = False
        """Whether a directory was ever copied: from then on a change can multiply paths
        (the copy shares its children), so changes are checked against the tree budget."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GorillaFileSystem) and self.root == other.root

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ loading

    def _load_scenario(
        self, scenario: dict[str, Any], long_context: bool = False, release: str | None = None
    ) -> None:
        """Build the tree from `{"root": {<root name>: {"type": "directory", "contents": ...}}}`.

        Without a `root` key the tree is a single empty directory named `/`. In long-context
        mode every file's text gets the filler appended (except the files that cases `tail`)
        and every directory with no subdirectory is stuffed with filler file names, so that
        listings and reads become long.
        """
        self.long_context = long_context
        self._release = release
        self.root = Directory("/", None)
        if "root" in scenario:
            top_name = next(iter(scenario["root"]))
            top = Directory(top_name, None)
            self.root = self._load_directory(scenario["root"][top_name]["contents"], top)
        self._current_dir = self.root

    def _table(self, name: str) -> Any:
        return long_context.value(name, self._release)

    def _load_directory(self, entries: dict[str, Any], target: Directory) -> Directory:
        """Fill `target` from a scenario `contents` mapping, depth first, and return it."""
        has_subdirectory = False
        for entry_name, entry in entries.items():
            kind = entry["type"]
            if kind == "directory":
                has_subdirectory = True
                child = Directory(entry_name, target)
                target.contents[entry_name] = self._load_directory(entry["contents"], child)
            elif kind == "file":
                text = entry["content"]
                tail_used = self.long_context and entry_name in self._table("FILES_TAIL_USED")
                if self.long_context and not tail_used:
                    text += self._table("FILE_CONTENT_EXTENSION")
                target.contents[entry_name] = File(entry_name, text)
        if self.long_context and not has_subdirectory:
            for filler_name in self._table("POPULATE_FILE_EXTENSION"):
                target._add_file(filler_name)
        return target

    # ------------------------------------------------------------------ helpers

    def _navigate_to_directory(self, path: str | None) -> Directory | dict[str, Any]:
        """Resolve a path (absolute, or relative to the working directory) to a directory.

        Only real child names and `.` are followed (no `..`); any miss yields the `cd:`
        error dict, which callers return or re-label.
        """
        if path is None or path == ".":
            return self._current_dir
        if path == "/":
            return self.root
        parts = path.strip("/").split("/")
        node: Directory = self.root if path.startswith("/") else self._current_dir
        for part in parts:
            step = node._get_item(part)
            if not isinstance(step, Directory):
                return {"error": f"cd: '{path}': No such file or directory"}
            node = step
        return node

    def _save(self, *directories: Directory) -> _Saved | None:
        """The entries of the directories a change is about to touch, when the change must be
        checked against the tree budget (None: no directory was ever copied)."""
        if not self._shared:
            return None
        return [(directory, dict(directory.contents)) for directory in directories]

    def _check_budget(self, command: str, saved: _Saved | None) -> None:
        """After a change: when the tree is now over budget, put the saved entries back
        (in place: a moved directory shares its entries mapping) and refuse the command."""
        if saved is None or not self._over_budget():
            return
        for directory, entries in saved:
            directory.contents.clear()
            directory.contents.update(entries)
        raise _refused(command)

    def _over_budget(self) -> bool:
        return self._shared and expanded_size(self.root, MAX_TREE_NODES, MAX_TREE_TEXT) is None

    def _local_file(self, file_name: str) -> File | None:
        """A file (not a directory) in the working directory, by name."""
        if file_name in self._current_dir.contents:
            node = self._current_dir._get_item(file_name)
            if isinstance(node, File):
                return node
        return None

    # ------------------------------------------------------------------ commands

    def pwd(self) -> dict[str, Any]:
        """The working directory as an absolute path that starts with the root's name."""
        # [quirk] the official walk stops at a name equal to the root *object*, which a name
        # never is, so the root's own name is always part of the path ("/alex/docs").
        parts: list[str] = []
        node: Directory | None = self._current_dir
        while node is not None:
            parts.append(node.name)
            node = node.parent
        return {"current_working_directory": "/" + "/".join(reversed(parts))}

    def ls(self, a: bool = False) -> dict[str, Any]:
        """Names in the working directory; dot-names only with `a`."""
        listing = list(self._current_dir.contents)
        if not a:
            listing = [entry for entry in listing if not entry.startswith(".")]
        return {"current_directory_content": listing}

    def cd(self, folder: str) -> dict[str, Any]:
        """Move one level (a child name, `..`, `.` or `/`); deeper paths are refused."""
        folder = folder.rstrip("/")
        if folder == "":
            folder = "/"
        if folder not in {".", "..", "/"} and "/" in folder:
            return {
                "error": f"cd: {folder}: Unsupported path. Only one folder level at a time is "
                "supported."
            }
        if folder == "..":
            if self._current_dir.parent:
                self._current_dir = self._current_dir.parent
                return {}
            if self.root == self._current_dir:
                return {"error": "Current directory is already the root. Cannot go back."}
            return {"error": "cd: ..: No such directory"}
        target = self._navigate_to_directory(folder)
        if isinstance(target, dict):
            return target
        self._current_dir = target
        return {"current_working_directory": target.name}

    def mkdir(self, dir_name: str) -> dict[str, Any] | None:
        """Create an empty directory here; silent (None) on success."""
        if not _name_is_valid(dir_name):
            return {"error": f"mkdir: cannot create directory '{dir_name}': Invalid character"}
        if dir_name in self._current_dir.contents:
            return {"error": f"mkdir: cannot create directory '{dir_name}': File exists"}
        saved = self._save(self._current_dir)
        self._current_dir._add_directory(dir_name)
        self._check_budget("mkdir", saved)
        return None

    def touch(self, file_name: str) -> dict[str, Any] | None:
        """Create an empty file here; silent (None) on success, an existing name is an error."""
        if not _name_is_valid(file_name):
            return {"error": f"touch: cannot touch '{file_name}': Invalid character"}
        if file_name in self._current_dir.contents:
            return {"error": f"touch: cannot touch '{file_name}': File exists"}
        saved = self._save(self._current_dir)
        self._current_dir._add_file(file_name)
        self._check_budget("touch", saved)
        return None

    def echo(self, content: str, file_name: str | None = None) -> dict[str, Any] | None:
        """Print `content`, or overwrite an existing file here with it (silent on success)."""
        if file_name is None:
            return {"terminal_output": content}
        if not _name_is_valid(file_name):
            return {"error": f"echo: cannot write to '{file_name}': Invalid character"}
        if not file_name:
            return {"terminal_output": content}
        if file_name not in self._current_dir.contents:
            return {"error": f"echo: cannot write to '{file_name}': No such file"}
        node = self._current_dir._get_item(file_name)
        if isinstance(node, Directory):
            # [quirk] the official writes through a method directories lack, so echoing into
            # a directory name raises this AttributeError instead of returning an error dict.
            raise AttributeError("'Directory' object has no attribute '_write'")
        assert node is not None
        previous = node._read()
        node._write(content)
        if self._over_budget():
            node._write(previous)
            raise _refused("echo")
        return None

    def cat(self, file_name: str) -> dict[str, Any]:
        """The text of a file in the working directory."""
        if not _name_is_valid(file_name):
            return {"error": f"cat: '{file_name}': Invalid character"}
        if file_name not in self._current_dir.contents:
            return {"error": f"cat: '{file_name}': No such file or directory"}
        node = self._current_dir._get_item(file_name)
        if isinstance(node, File):
            return {"file_content": node._read()}
        return {"error": f"cat: '{file_name}': Is a directory"}

    def find(self, path: str = ".", name: str | None = None) -> dict[str, Any]:
        """Every entry below `path` (recursively) whose name contains `name`.

        Results are spelled from `path` as given (minus trailing slashes), e.g. `./a/b`.
        """
        start = self._navigate_to_directory(path)
        if isinstance(start, dict):
            message = start.get("error", "")
            if message.startswith("cd:"):
                return {"error": message.replace("cd:", "find:", 1)}
            return start
        found: list[str] = []

        def walk(directory: Directory, prefix: str) -> None:
            for entry_name, node in directory.contents.items():
                entry_path = f"{prefix}/{entry_name}"
                if name is None or name in entry_name:
                    found.append(entry_path)
                if isinstance(node, Directory):
                    walk(node, entry_path)

        walk(start, path.rstrip("/"))
        return {"matches": found}

    def wc(self, file_name: str, mode: str = "l") -> dict[str, Any]:
        """Count lines (`l`), words (`w`) or characters (`c`) of a file here."""
        if mode not in _WC_MODES:
            return {"error": f"wc: invalid mode '{mode}'"}
        node = self._local_file(file_name)
        if node is None:
            return {"error": f"wc: {file_name}: No such file or directory"}
        text = node._read()
        if mode == "l":
            return {"count": len(text.splitlines()), "type": "lines"}
        if mode == "w":
            return {"count": len(text.split()), "type": "words"}
        return {"count": len(text), "type": "characters"}

    def sort(self, file_name: str) -> dict[str, Any]:
        """A file's lines in code-point order, joined by newlines (the file is unchanged)."""
        node = self._local_file(file_name)
        if node is None:
            return {"error": f"sort: {file_name}: No such file or directory"}
        return {"sorted_content": "\n".join(sorted(node._read().splitlines()))}

    def grep(self, file_name: str, pattern: str) -> dict[str, Any]:
        """Lines of a file here that contain `pattern` as a plain substring."""
        node = self._local_file(file_name)
        if node is None:
            return {"error": f"grep: {file_name}: No such file or directory"}
        return {"matching_lines": [line for line in node._read().splitlines() if pattern in line]}

    def du(self, human_readable: bool = False) -> dict[str, Any]:
        """Total UTF-8 size of the files under the working directory."""
        start = self._navigate_to_directory(None)
        if isinstance(start, dict):
            return start
        size: float = _byte_size(start)
        if not human_readable:
            return {"disk_usage": f"{size} bytes"}
        for unit in _SIZE_UNITS:
            if size < 1024:
                return {"disk_usage": f"{size:.2f} {unit}"}
            size /= 1024
        return {"disk_usage": f"{size:.2f} PB"}

    def tail(self, file_name: str, lines: int = 10) -> dict[str, Any]:
        """The last `lines` lines of a file here."""
        node = self._local_file(file_name)
        if node is None:
            return {"error": f"tail: {file_name}: No such file or directory"}
        all_lines = node._read().splitlines()
        if lines > len(all_lines):
            lines = len(all_lines)
        # [quirk] lines=0 slices [-0:], i.e. the whole file.
        return {"last_lines": "\n".join(all_lines[-lines:])}

    def diff(self, file_name1: str, file_name2: str) -> dict[str, Any]:
        """Pairwise differing lines of two files here (extra lines of the longer are ignored)."""
        here = self._current_dir.contents
        if file_name1 in here and file_name2 in here:
            first = self._current_dir._get_item(file_name1)
            second = self._current_dir._get_item(file_name2)
            if isinstance(first, File) and isinstance(second, File):
                # Lines past the end of the shorter file are not compared.
                pairs = zip(first._read().splitlines(), second._read().splitlines(), strict=False)
                changed = [f"- {old}\n+ {new}" for old, new in pairs if old != new]
                return {"diff_lines": "\n".join(changed)}
        return {"error": f"diff: {file_name1} or {file_name2}: No such file or directory"}

    def mv(self, source: str, destination: str) -> dict[str, Any]:
        """Rename an entry here, or move it into a directory here."""
        here = self._current_dir
        if source not in here.contents:
            return {"error": f"mv: cannot move '{source}': No such file or directory"}
        node = here._get_item(source)
        if not isinstance(node, (File, Directory)):
            return {"error": f"mv: cannot move '{source}': Not a file or directory"}
        if "/" in destination:
            return {
                "error": "mv: path not allowed in destination. Provide only a file or directory "
                "name."
            }
        if destination not in here.contents:
            saved = self._save(here)
            here.contents.pop(source)
            _place_copy(node, here, destination, share_children=True)
            self._check_budget("mv", saved)
            return {"result": f"'{source}' moved to '{destination}'"}
        target = here._get_item(destination)
        if not isinstance(target, Directory):
            return {"error": f"mv: cannot move '{source}' to '{destination}': Not a directory"}
        if source in target.contents:
            return {"error": f"mv: cannot move '{source}' to '{destination}/{source}': File exists"}
        saved = self._save(here, target)
        here.contents.pop(source)
        _place_copy(node, target, source, share_children=True)
        self._check_budget("mv", saved)
        return {"result": f"'{source}' moved to '{destination}/{source}'"}

    def rm(self, file_name: str) -> dict[str, Any]:
        """Delete a file or a directory (even a non-empty one) here."""
        if file_name not in self._current_dir.contents:
            return {"error": f"rm: cannot remove '{file_name}': No such file or directory"}
        node = self._current_dir._get_item(file_name)
        if not isinstance(node, (File, Directory)):
            return {"error": f"rm: cannot remove '{file_name}': Not a file or directory"}
        self._current_dir.contents.pop(file_name)
        return {"result": f"'{file_name}' removed"}

    def rmdir(self, dir_name: str) -> dict[str, Any]:
        """Delete an empty directory here."""
        if dir_name not in self._current_dir.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': No such file or directory"}
        node = self._current_dir._get_item(dir_name)
        if not isinstance(node, Directory):
            return {"error": f"rmdir: cannot remove '{dir_name}': Not a directory"}
        if node.contents:
            return {"error": f"rmdir: cannot remove '{dir_name}': Directory not empty"}
        self._current_dir.contents.pop(dir_name)
        return {"result": f"'{dir_name}' removed"}

    def cp(self, source: str, destination: str) -> dict[str, Any]:
        """Copy an entry here to a new name, or into a directory here."""
        here = self._current_dir
        if source not in here.contents:
            return {"error": f"cp: cannot copy '{source}': No such file or directory"}
        node = here._get_item(source)
        if not isinstance(node, (File, Directory)):
            return {"error": f"cp: cannot copy '{source}': Not a file or directory"}
        if "/" in destination:
            return {
                "error": "cp: path not allowed in destination. Provide only a file or directory "
                "name."
            }
        self._shared = self._shared or isinstance(node, Directory)
        if destination not in here.contents:
            saved = self._save(here)
            _place_copy(node, here, destination, share_children=False)
            self._check_budget("cp", saved)
            return {"result": f"'{source}' copied to '{destination}'"}
        target = here._get_item(destination)
        if not isinstance(target, Directory):
            return {"error": f"cp: cannot copy '{source}' to '{destination}': Not a directory"}
        # [quirk] the official looks for "<destination>/<source>" among the target's names,
        # which never matches; a clash then surfaces as the ValueError raised while adding
        # ("File 'x' already exists in directory 'd'.") instead of this error dict.
        if f"{destination}/{source}" in target.contents:
            return {"error": f"cp: cannot copy '{source}' to '{destination}/{source}': File exists"}
        saved = self._save(target)
        _place_copy(node, target, source, share_children=False)
        self._check_budget("cp", saved)
        return {"result": f"'{source}' copied to '{destination}/{source}'"}


def _refused(command: str) -> BudgetExceeded:
    return BudgetExceeded(
        f"{command}: the file system would exceed {MAX_TREE_NODES} entries or "
        f"{MAX_TREE_TEXT} characters counted along every path (or contain a cycle)"
    )


def _place_copy(node: Node, target: Directory, new_name: str, *, share_children: bool) -> None:
    """Add a copy of `node` to `target` under `new_name` (raises if the name is taken).

    Files are re-created with the same text. Directories are re-created as a new node whose
    parent is `target` but whose children are the original child objects:
    [quirk] after a move the new directory holds the *same* children mapping (and the
    children keep pointing at the old node as their parent, which `cd ..` then follows);
    after a copy it holds a shallow copy of the mapping, so the children themselves (files
    and subdirectories) are shared between the original and the copy.
    """
    if isinstance(node, File):
        target._add_file(new_name, node.content)
        return
    target._add_directory(new_name)
    created = target.contents[new_name]
    assert isinstance(created, Directory)
    created.contents = node.contents if share_children else node.contents.copy()
