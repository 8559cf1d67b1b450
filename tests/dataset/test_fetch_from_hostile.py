"""`fcbench data fetch --from` meets a hostile folder or wheel (issue 30): only regular files
inside the source are copied, a symlink out or a loop is refused, sizes are capped and
streamed; every refusal is one line and leaves the cache as it was."""

from __future__ import annotations

import os
import stat
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.cli.data import data
from fcbench.dataset import intake
from fcbench.dataset.fetch import DEFAULT_RELEASE, DataError, read_data_file, release_path
from fcbench.dataset.install import fetch

QUESTION = b'{"id": "irrelevance_0", "question": [], "function": []}\n'


def data_folder(root: Path) -> Path:
    """A folder laid out like the wheel's `bfcl_eval/data/` (one data file)."""
    root.mkdir()
    (root / "BFCL_v4_irrelevance.json").write_bytes(QUESTION)
    return root


def refused(source: Path, *expected: str) -> str:
    """The one-line DataError of fetching from `source`, within a few seconds, with the
    cache left without a release."""
    started = time.monotonic()
    with pytest.raises(DataError) as caught:
        fetch(source=source)
    assert time.monotonic() - started < 5
    message = str(caught.value)
    assert "\n" not in message and all(part in message for part in expected), message
    assert not release_path(DEFAULT_RELEASE).exists()
    return message


def test_a_file_symlink_leaving_the_source_is_refused(empty_home: Path, tmp_path: Path) -> None:
    folder = data_folder(tmp_path / "data")
    (folder / "passwd").symlink_to("/etc/passwd")
    refused(folder, "passwd is a symlink leaving the source (to /etc/passwd)")


def test_a_folder_symlink_leaving_the_source_is_refused(empty_home: Path,
                                                          tmp_path: Path) -> None:
    folder = data_folder(tmp_path / "data")
    (folder / "etc_link").symlink_to("/etc")
    refused(folder, "etc_link is a symlink leaving the source (to /etc)")


def test_a_loop_is_refused_at_once(empty_home: Path, tmp_path: Path) -> None:
    folder = data_folder(tmp_path / "data")
    (folder / "loop").symlink_to(".")
    refused(folder, "loop is a symlink loop")


def test_a_loop_beside_a_link_out_is_refused_at_once(empty_home: Path, tmp_path: Path) -> None:
    """Once 2.3 GB written in 120 s (the loop copied /etc over and over)."""
    folder = data_folder(tmp_path / "data")
    (folder / "etc_link").symlink_to("/etc")
    (folder / "loop").symlink_to(".")
    refused(folder, "--from")


def test_a_deeper_loop_and_a_broken_link_are_refused(empty_home: Path, tmp_path: Path) -> None:
    folder = data_folder(tmp_path / "data")
    (folder / "a" / "b").mkdir(parents=True)
    (folder / "a" / "b" / "up").symlink_to("../..")
    refused(folder, os.path.join("a", "b", "up"), "loop")
    (folder / "a" / "b" / "up").unlink()
    (folder / "a" / "gone").symlink_to("nowhere")
    refused(folder, os.path.join("a", "gone"), "cannot read")


def test_a_fifo_is_refused_without_blocking(empty_home: Path, tmp_path: Path) -> None:
    folder = data_folder(tmp_path / "data")
    os.mkfifo(folder / "pipe.json")
    refused(folder, "pipe.json is neither a regular file nor a folder")


def test_links_inside_the_source_are_copied_as_files(empty_home: Path, tmp_path: Path) -> None:
    folder = data_folder(tmp_path / "data")
    (folder / "real").mkdir()
    (folder / "real" / "x.json").write_bytes(b"{}\n")
    (folder / "alias").symlink_to("real")
    (folder / "BFCL_v4_copy.json").symlink_to("BFCL_v4_irrelevance.json")
    fetch(source=folder)
    assert read_data_file("BFCL_v4_copy.json") == QUESTION
    assert read_data_file("alias/x.json") == b"{}\n"
    copied = release_path(DEFAULT_RELEASE) / "data"
    assert not any(p.is_symlink() for p in copied.rglob("*"))


def test_a_file_past_the_cap_is_refused(empty_home: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intake, "MEMBER_CAP", 1000)
    folder = data_folder(tmp_path / "data")
    (folder / "big.json").write_bytes(b"x" * 1001)
    refused(folder, "big.json is larger than the 1,000-byte cap on one data file")


def test_files_past_the_total_cap_are_refused(empty_home: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intake, "TOTAL_CAP", 1000)
    folder = data_folder(tmp_path / "data")
    for name in "abc":
        (folder / f"{name}.json").write_bytes(b"x" * 400)
    refused(folder, "larger than the 1,000-byte cap in all")


def wheel(path: Path, members: dict[str, bytes], link: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            zf.writestr(f"bfcl_eval/data/{name}", content)
        if link is not None:
            info = zipfile.ZipInfo(f"bfcl_eval/data/{link}")
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return path


def test_a_wheel_member_past_the_cap_is_refused_from_the_directory(
    empty_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(intake, "MEMBER_CAP", 1000)
    read: list[int] = []
    monkeypatch.setattr(intake, "copy_stream", lambda *args: read.append(1))
    source = wheel(tmp_path / "w.whl", {"BFCL_v4_irrelevance.json": QUESTION,
                                        "huge.json": b"\0" * 5000})
    refused(source, "huge.json is larger than the 1,000-byte cap")
    assert read == [1]  # the small member was copied; the big one never opened


def test_a_wheel_symlink_member_is_refused(empty_home: Path, tmp_path: Path) -> None:
    source = wheel(tmp_path / "w.whl", {"BFCL_v4_irrelevance.json": QUESTION}, link="passwd")
    refused(source, "bfcl_eval/data/passwd is a symlink")


def test_a_member_longer_than_its_directory_says_is_cut_while_streaming(tmp_path: Path) -> None:
    """The directory can lie: the bytes are counted as they come too."""
    budget = intake.Budget("w.whl", member_cap=10 * intake.CHUNK)
    out = tmp_path / "out"
    with pytest.raises(DataError, match="larger than the 10,485,760-byte cap"):
        intake.copy_stream(lambda n: b"\0" * n, out, "endless.json", budget)
    assert out.stat().st_size <= 10 * intake.CHUNK


def test_the_command_says_it_in_one_line(empty_home: Path, tmp_path: Path) -> None:
    folder = data_folder(tmp_path / "data")
    (folder / "etc_link").symlink_to("/etc")
    result = CliRunner().invoke(data, ["fetch", "--from", str(folder)])
    assert result.exit_code == 1 and result.exception is not None
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "etc_link is a symlink leaving the source" in lines[0]


# --------------------------------------------------------------------------- --data-dir


def test_a_data_dir_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    from fcbench.dataset.source import source

    folder = data_folder(tmp_path / "data")
    os.mkfifo(folder / "BFCL_v4_simple_python.json")
    started = time.monotonic()
    with pytest.raises(DataError, match=r"BFCL_v4_simple_python\.json is not a regular file"):
        source(DEFAULT_RELEASE, folder).lines("BFCL_v4_simple_python.json")
    assert time.monotonic() - started < 5


def test_a_data_dir_file_past_the_cap_is_refused(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from fcbench.dataset.source import source

    monkeypatch.setattr(intake, "MEMBER_CAP", 1000)
    folder = data_folder(tmp_path / "data")
    (folder / "BFCL_v4_simple_python.json").write_bytes(QUESTION * 100)
    with pytest.raises(DataError, match="larger than the 1,000-byte cap"):
        source(DEFAULT_RELEASE, folder).read("BFCL_v4_simple_python.json")
    assert source(DEFAULT_RELEASE, folder).read("BFCL_v4_irrelevance.json") == QUESTION


# --------------------------------------------------------------------------- any tree

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NAMES = st.sampled_from(["a", "b", "c", "loop"])
TARGETS = st.one_of(st.sampled_from([".", "..", "../..", "../../..", "/etc", "/etc/passwd",
                                     "/dev/zero", "nowhere"]),
                    st.lists(NAMES, min_size=1, max_size=3).map("/".join))
ENTRIES = st.lists(st.tuples(st.lists(NAMES, min_size=1, max_size=3),
                             st.sampled_from(["file", "dir", "link"]), TARGETS),
                   max_size=12)


def planted_tree(root: Path, entries: list[tuple[list[str], str, str]]) -> None:
    """Files (their content names them as inside), folders and links, in the given order;
    a name already taken (a link included: it could lead to /etc/passwd), or below a link,
    is skipped."""
    for parts, kind, target in entries:
        path = root.joinpath(*parts)
        prefixes = [root.joinpath(*parts[:n]) for n in range(1, len(parts))]
        if any(p.is_symlink() for p in prefixes):
            continue  # never plant through a link (it could lead out of the test's folder)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "file":  # O_EXCL|O_NOFOLLOW: never written through a planted link
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW)
                with os.fdopen(fd, "w") as file:
                    file.write(f"inside:{'/'.join(parts)}")
            elif kind == "dir":
                path.mkdir()
            else:
                path.symlink_to(target)
        except OSError:  # a parent is a file or a link, the name is taken
            continue


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=ENTRIES)
def test_any_tree_copies_only_regular_files_from_inside(
    entries: list[tuple[list[str], str, str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Whatever folders, files and links (in, out, up, loops, broken, devices) a source
    holds: the copy ends within seconds, never opens a file outside the source (however it
    ends), and either refuses in one line or holds only regular files whose bytes come from
    files inside the source."""
    work = tmp_path_factory.mktemp("tree")
    source = work / "source"
    source.mkdir()
    planted_tree(source, entries)
    dest = work / "dest"
    read: list[str] = []
    copy_file = intake._copy_file

    def recorded(path: str, *args: object) -> None:
        read.append(path)
        copy_file(path, *args)  # type: ignore[arg-type]

    started = time.monotonic()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(intake, "_copy_file", recorded)
            intake.copy_folder(source, dest, intake.Budget(str(source)))
    except DataError as exc:
        assert "\n" not in str(exc)
    else:
        for path in dest.rglob("*"):
            assert not path.is_symlink()
            if path.is_file():
                assert path.read_text().startswith("inside:"), path
    assert time.monotonic() - started < 5
    real = os.path.realpath(source)
    assert all(os.path.realpath(path).startswith(real + os.sep) for path in read), read


def test_a_package_folder_linked_out_is_refused(empty_home: Path, tmp_path: Path) -> None:
    """`--from FOLDER` holding `bfcl_eval/` as a link elsewhere: its data and its constant
    modules would come from outside the source."""
    elsewhere = tmp_path / "elsewhere" / "bfcl_eval"
    elsewhere.mkdir(parents=True)
    data_folder(elsewhere / "data")
    source = tmp_path / "source"
    source.mkdir()
    (source / "bfcl_eval").symlink_to(elsewhere)
    refused(source, "is a symlink leaving the source")
