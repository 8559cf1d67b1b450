"""The nodes of GorillaFileSystem's tree: `File` and `Directory`, compared by name and
contents only (never by parent), and the name and size rules the shell commands share."""

from __future__ import annotations

from typing import Union

# Characters a file or directory name created or read by name may not contain.
_FORBIDDEN_NAME_CHARS = '|/\\?%*:"><'
_WC_MODES = ("l", "w", "c")
_SIZE_UNITS = ("B", "KB", "MB", "GB", "TB")


class File:
    """A named blob of text; equal to another file with the same name and text."""

    def __init__(self, name: str, content: str = "") -> None:
        self.name = name
        self.content = content

    def _write(self, new_content: str) -> None:
        self.content = new_content

    def _read(self) -> str:
        return self.content

    def __repr__(self) -> str:
        return f"<<File: {self.name}, Content: {self.content}>>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, File) and self.name == other.name and self.content == other.content

    __hash__ = None  # type: ignore[assignment]


Node = Union[File, "Directory"]


class Directory:
    """A named folder; `parent` is kept for `cd ..`/`pwd` but ignored by equality."""

    def __init__(self, name: str, parent: Directory | None = None) -> None:
        self.name = name
        self.parent = parent
        self.contents: dict[str, Node] = {}

    def _add_file(self, file_name: str, content: str = "") -> None:
        """Insert a new file; a taken name raises (the message reaches the model)."""
        if file_name in self.contents:
            raise ValueError(f"File '{file_name}' already exists in directory '{self.name}'.")
        self.contents[file_name] = File(file_name, content)

    def _add_directory(self, dir_name: str) -> None:
        """Insert a new empty child directory whose parent is this one."""
        if dir_name in self.contents:
            raise ValueError(f"Directory '{dir_name}' already exists in directory '{self.name}'.")
        self.contents[dir_name] = Directory(dir_name, self)

    def _get_item(self, item_name: str) -> Node | None:
        """A child by name; `.` means this directory itself."""
        if item_name == ".":
            return self
        return self.contents.get(item_name)

    def __repr__(self) -> str:
        parent_name = self.parent.name if self.parent else None
        return f"<Directory: {self.name}, Parent: {parent_name}, Contents: {self.contents}>"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Directory)
            and self.name == other.name
            and self.contents == other.contents
        )

    __hash__ = None  # type: ignore[assignment]


def _name_is_valid(name: str) -> bool:
    """Whether a name is free of path and shell-special characters."""
    return not any(char in name for char in _FORBIDDEN_NAME_CHARS)


def _byte_size(node: Node) -> int:
    """Bytes of UTF-8 text under a node (directories count only their files)."""
    if isinstance(node, File):
        return len(node._read().encode("utf-8"))
    return sum(_byte_size(child) for child in node.contents.values())


def expanded_size(root: Directory, max_nodes: int, max_text: int) -> tuple[int, int] | None:
    """(entries, characters of file text) under `root`, each counted once per path that
    reaches it, or None past either limit or on a cycle (infinitely many paths).

    `cp` of a directory shares its children, so a tree can hold exponentially many paths in a
    few nodes: each distinct directory is sized once (memoised by identity) and iteratively,
    so the count costs time linear in the distinct nodes whatever their depth.
    """
    sizes: dict[int, tuple[int, int]] = {}
    on_path: set[int] = set()
    pending: list[tuple[Directory, bool]] = [(root, False)]
    while pending:
        directory, children_done = pending.pop()
        key = id(directory)
        if children_done:
            on_path.discard(key)
            total = _sum_children(directory, sizes)
            if total[0] > max_nodes or total[1] > max_text:
                return None
            sizes[key] = total
            continue
        if key in sizes:
            continue
        on_path.add(key)
        pending.append((directory, True))
        for child in directory.contents.values():
            if isinstance(child, Directory) and id(child) not in sizes:
                if id(child) in on_path:
                    return None
                pending.append((child, False))
    return sizes[id(root)]


def _sum_children(directory: Directory, sizes: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """A directory's expanded size from its children's (already computed) sizes."""
    nodes = text = 0
    for child in directory.contents.values():
        if isinstance(child, File):
            nodes, text = nodes + 1, text + _text_length(child.content)
        else:
            child_nodes, child_text = sizes[id(child)]
            nodes, text = nodes + 1 + child_nodes, text + child_text
    return nodes, text


def _text_length(content: object) -> int:
    """Characters of a file's text (`echo` stores whatever value it was given)."""
    return len(content) if isinstance(content, str) else len(str(content))
