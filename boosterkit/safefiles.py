"""Files boosterkit writes beside the database, written and read so that nobody else's file
can stand in for them.

- ``create_exclusive``: a new file, never through a symlink (``O_CREAT|O_EXCL|O_NOFOLLOW``);
  a leftover or planted name is removed first (a symlink itself, never what it points to).
- ``private_folder``: a folder made ``0700``, refused (``UnsafeFolder``, one line) when it
  is owned by another user or writable by group or others, or is a symlink.

And the files a user names (``-o FILE``, ``pool -o DIR``), written whole or not at all:

- ``WholeFile``: a file written beside its target under a temporary name, flushed to disk,
  then renamed over it, so the old file stays until the new one is whole (a failure, Ctrl-C
  or a full disk remove the temporary file and nothing else);
- ``write_all``: files written into a folder together or not at all, each renamed into
  place (a symlink planted under one of their names is replaced, never followed).
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import tempfile
from pathlib import Path
from typing import IO, Any, BinaryIO

from boosterkit.errors import BoosterkitError

_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC


class UnsafeFolder(BoosterkitError):
    """A cache folder another user could write to: nothing is read from it or written to it."""


def create_exclusive(path: Path) -> BinaryIO:
    """``path`` opened for writing as a new file of this user only (mode ``0600``); an entry
    already there (a leftover, or a planted symlink) is removed first, not followed."""
    try:
        fd = os.open(path, _NEW, 0o600)
    except FileExistsError:
        os.unlink(path)  # removes a symlink itself
        fd = os.open(path, _NEW, 0o600)
    return os.fdopen(fd, "wb")


def check_folder(path: Path) -> None:
    """``UnsafeFolder`` unless ``path`` is a real folder of this user that nobody else may
    write to (a missing one passes: it is made private when needed)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    why = None
    if stat.S_ISLNK(st.st_mode):
        why = "is a symlink"
    elif not stat.S_ISDIR(st.st_mode):
        why = "is not a folder"
    elif st.st_uid != os.geteuid():
        why = f"is owned by another user (uid {st.st_uid})"
    elif st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        why = f"is writable by {'others' if st.st_mode & stat.S_IWOTH else 'its group'}"
    if why:
        raise UnsafeFolder(
            f"{path}: the cache folder {why}, so another user could plant files there; "
            "boosterkit neither reads nor writes it: remove it (it is rebuilt) or make it "
            f"yours alone (chown, chmod go-w {path})"
        )


def make_folders(path: Path) -> Path:
    """``path`` and its missing parents made, each ``0700`` whatever the umask (a cache
    folder boosterkit makes is never group-writable, so ``check_folder`` passes it)."""
    missing = []
    at = path
    while not at.exists() and at != at.parent:
        missing.append(at)
        at = at.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
    return path


def private_folder(path: Path, *checked: Path) -> Path:
    """``path`` made when missing (``make_folders``), then it and the folders ``checked``
    (those above it that it trusts) checked (``check_folder``)."""
    make_folders(path)
    for folder in (*checked, path):
        check_folder(folder)
    return path


def _fsync_folder(folder: Path) -> None:
    """Make the renames in ``folder`` durable (best effort: some systems cannot)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _new_file(path: Path, mode: int | None = None) -> int:
    """A new file at ``path`` (never through a symlink), with the umask's mode or ``mode``."""
    fd = os.open(path, _NEW, 0o666)
    if mode is not None:
        try:
            os.fchmod(fd, mode)
        except OSError:
            pass
    return fd


class WholeFile:
    """A file the user named, replaced only once the new content is whole.

    ``open`` creates ``.<name>.<random>.part`` beside the target (beside the file a symlink
    names: the link stays), with the replaced file's mode; ``commit`` flushes it to disk and
    renames it over the target; ``discard`` removes it. A target that is not a regular file
    (``/dev/stdout``, a pipe) is written directly: it cannot be replaced, and is never removed.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.target = Path(os.path.realpath(self.path))
        self.temp: Path | None = None
        self.file: IO[Any] | None = None

    def open(self, binary: bool = False) -> IO[Any]:
        """The file to write (``binary``: bytes); OSError when it cannot be made."""
        try:
            st: os.stat_result | None = os.stat(self.path)  # what the path names, links followed
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(21, "Is a directory", str(self.path))
            # as named: /dev/stdout's link leads to /proc/self/fd/1's "pipe:[…]", no path
            self.file = open(self.path, "wb" if binary else "w", **_text(binary))
            return self.file
        temp = self.target.with_name(f".{self.target.name}.{secrets.token_hex(4)}.part")
        fd = _new_file(temp, stat.S_IMODE(st.st_mode) if st is not None else None)
        self.temp = temp
        self.file = os.fdopen(fd, "wb" if binary else "w", **_text(binary))
        return self.file

    def commit(self) -> None:
        """Flush the new content to disk and put it in place of the old."""
        assert self.file is not None
        self.file.flush()
        if self.temp is None:
            self.file.close()
            return
        os.fsync(self.file.fileno())
        self.file.close()
        os.replace(self.temp, self.target)
        self.temp = None
        _fsync_folder(self.target.parent)

    def discard(self) -> None:
        """Forget the new content: the temporary file removed, the target as it was."""
        if self.file is not None:
            try:
                self.file.close()
            except OSError:
                pass  # a write that failed before fails again at close: already reported
        if self.temp is not None:
            self.temp.unlink(missing_ok=True)
            self.temp = None


def _text(binary: bool) -> dict[str, Any]:
    return {} if binary else {"encoding": "utf-8", "newline": ""}


def write_all(folder: Path, files: dict[str, bytes]) -> None:
    """Every file of ``files`` (plain names) written into ``folder`` (made if missing), or
    none: all are written and flushed in a private folder inside ``folder`` first, then each
    is renamed into place, the entry it replaces (a file, a symlink: never followed) moved
    aside; a failure puts every replaced entry back and removes what was made. OSError then
    (``filename`` naming the entry that failed)."""
    for name in files:
        if os.path.basename(name) != name or name in ("", ".", ".."):
            raise ValueError(f"not a plain file name: {name!r}")
    folder.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".boosterkit-", suffix=".part", dir=folder))
    placed: list[tuple[str, bool]] = []  # (name, whether an old entry was moved aside)
    try:
        (stage / "new").mkdir()
        (stage / "old").mkdir()
        for name, data in files.items():
            with os.fdopen(_new_file(stage / "new" / name), "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for name in files:
            placed.append((name, _move_aside(folder / name, stage / "old" / name)))
            os.rename(stage / "new" / name, folder / name)
        _fsync_folder(folder)
    except BaseException:
        if _put_back(folder, stage, placed):
            shutil.rmtree(stage, ignore_errors=True)
        raise
    shutil.rmtree(stage, ignore_errors=True)


def _move_aside(entry: Path, aside: Path) -> bool:
    """Move ``entry`` (if any, and not a folder) to ``aside``; whether there was one."""
    if not os.path.lexists(entry):
        return False
    if entry.is_dir() and not entry.is_symlink():
        raise IsADirectoryError(21, "Is a directory", str(entry))
    os.rename(entry, aside)
    return True


def _put_back(folder: Path, stage: Path, placed: list[tuple[str, bool]]) -> bool:
    """Undo ``write_all``'s renames; whether every replaced entry is back in place."""
    ok = True
    for name, had_old in reversed(placed):
        try:
            if not os.path.lexists(stage / "new" / name):  # the new file was put in place
                os.unlink(folder / name)
            if had_old:
                os.rename(stage / "old" / name, folder / name)
        except OSError:
            ok = False
    return ok
