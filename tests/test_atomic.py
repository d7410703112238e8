"""qbank/atomic.py: the one way qbank writes into the user's repository.

The writers' own tests (test_fix, test_new, test_cli's schema tests, gpu/test_evidence) kill each of
them mid-write with tests/crash.py; these test the pieces directly.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from qbank import atomic


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    (tmp_path / "questions" / "cloud").mkdir(parents=True)
    (tmp_path / "schema").mkdir()
    return tmp_path


def names(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def test_the_data_is_synced_before_the_rename_and_the_folder_after_it(
    bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename can reach the disk before the data it names: without the first fsync a power cut
    could leave the new name on an empty file (ext4 data=writeback, XFS)."""
    events: list[tuple[str, int]] = []
    real_fsync, real_replace, real_link = os.fsync, os.replace, os.link

    def fsync(fd: int) -> None:
        events.append(("fsync", os.fstat(fd).st_ino))
        real_fsync(fd)

    def rename(source: str, target: Path) -> None:
        events.append(("rename", os.lstat(source).st_ino))
        real_replace(source, target)

    def link(source: str, target: Path) -> None:
        events.append(("link", os.lstat(source).st_ino))
        real_link(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", rename)
    monkeypatch.setattr(os, "link", link)
    folder = bank / "questions" / "cloud"
    for step, write in (("rename", atomic.replace), ("link", atomic.create)):
        events.clear()
        target = folder / f"{step}.yaml"
        write(target, b"a: 1\n")
        new = target.stat().st_ino
        assert events == [("fsync", new), (step, new), ("fsync", folder.stat().st_ino)]
    assert names(folder) == ["link.yaml", "rename.yaml"]


def test_replace_keeps_the_permission_bits_and_a_new_file_gets_the_usual_ones(bank: Path) -> None:
    old = bank / "schema" / "old.json"
    old.write_bytes(b"{}")
    old.chmod(0o640)
    atomic.replace(old, b"[]")
    assert old.read_bytes() == b"[]" and stat.S_IMODE(old.stat().st_mode) == 0o640
    fresh = bank / "schema" / "fresh.json"
    atomic.replace(fresh, b"[]")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~mask


def test_a_file_changed_since_it_was_read_is_left_to_the_other_edit(bank: Path) -> None:
    target = bank / "questions" / "cloud" / "a.yaml"
    target.write_bytes(b"a: 1\n")
    before = os.lstat(target)
    target.write_bytes(b"a: 22\n")  # an editor saved it meanwhile
    with pytest.raises(atomic.Changed):
        atomic.replace(target, b"a: 3\n", expect=before)
    assert target.read_bytes() == b"a: 22\n" and names(target.parent) == ["a.yaml"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = bank / "questions" / "cloud" / "a.yaml"
    target.write_bytes(b"a: 1\n")

    def full(fd: int, data: bytes) -> None:
        os.write(fd, data[:2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "_write_all", full)
    with pytest.raises(OSError, match="No space left"):
        atomic.replace(target, b"a: 2\n")
    with pytest.raises(OSError, match="No space left"):
        atomic.create(target.with_name("b.yaml"), b"b: 2\n")
    assert target.read_bytes() == b"a: 1\n" and names(target.parent) == ["a.yaml"]


def test_create_never_replaces_a_file(bank: Path) -> None:
    target = bank / "questions" / "cloud" / "a.yaml"
    target.write_bytes(b"a: 1\n")
    assert atomic.create(target, b"a: 2\n") is False
    assert target.read_bytes() == b"a: 1\n" and names(target.parent) == ["a.yaml"]


def test_links_and_odd_files_are_refused(bank: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    folder = bank / "questions" / "cloud"
    (folder / "link.yaml").symlink_to(outside / "x.yaml")
    (folder / "dir.yaml").mkdir()
    os.mkfifo(folder / "fifo.yaml")
    (folder / "linked").symlink_to(outside, target_is_directory=True)
    assert (
        atomic.refusal(folder / "link.yaml") == "a symbolic link: not followed (change the file it points to)"
    )
    assert atomic.refusal(folder / "dir.yaml") == "not a regular file"
    assert atomic.refusal(folder / "fifo.yaml") == "not a regular file"
    assert atomic.refusal(folder / "linked" / "x.yaml") == (
        "folder questions/cloud/linked is a symbolic link: qbank never writes through one"
    )
    for write in (atomic.replace, atomic.create):
        with pytest.raises(atomic.WriteError, match="symbolic link"):
            write(folder / "linked" / "x.yaml", b"x")
        with pytest.raises(atomic.WriteError, match="symbolic link"):
            write(folder / "link.yaml", b"x")
    with pytest.raises(atomic.WriteError, match="folder questions/cloud/linked is a symbolic link"):
        atomic.make_folder(folder / "linked" / "deeper")
    with pytest.raises(atomic.WriteError, match="a symbolic link: not followed"):
        atomic.read(folder / "link.yaml")
    assert list(outside.iterdir()) == []


def test_a_link_above_the_bank_root_is_the_users_own(tmp_path: Path) -> None:
    """A bank kept under a linked folder (~/work -> /data/work) is written as usual."""
    real = tmp_path / "real"
    (real / "bank" / "questions").mkdir(parents=True)
    (real / "bank" / "schema").mkdir()
    (tmp_path / "via").symlink_to(real, target_is_directory=True)
    bank = tmp_path / "via" / "bank"
    atomic.make_folder(bank / "questions" / "cloud")
    assert atomic.create(bank / "questions" / "cloud" / "a.yaml", b"a: 1\n")
    atomic.replace(bank / "schema" / "s.json", b"{}")
    assert (real / "bank" / "questions" / "cloud" / "a.yaml").read_bytes() == b"a: 1\n"
    assert (real / "bank" / "schema" / "s.json").read_bytes() == b"{}"


def test_read_gives_the_bytes_and_the_stat_or_nothing(bank: Path) -> None:
    target = bank / "schema" / "a.jsonl"
    assert atomic.read(target) == (b"", None)
    target.write_bytes(b"{}\n")
    data, info = atomic.read(target)
    assert data == b"{}\n" and info is not None and info.st_ino == target.stat().st_ino
