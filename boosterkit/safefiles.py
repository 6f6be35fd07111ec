"""Files boosterkit writes beside the database, written and read so that nobody else's file
can stand in for them.

- ``create_exclusive``: a new file, never through a symlink (``O_CREAT|O_EXCL|O_NOFOLLOW``);
  a leftover or planted name is removed first (a symlink itself, never what it points to).
- ``private_folder``: a folder made ``0700``, refused (``UnsafeFolder``, one line) when it
  is owned by another user or writable by group or others, or is a symlink.
- ``Sealer``: kept values are pickles sealed with HMAC-SHA256 under a per-database secret
  (``<db>.cache/secret``, ``0600``): a file whose seal does not match is never unpickled.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import threading
from pathlib import Path
from typing import BinaryIO

from boosterkit.errors import BoosterkitError

_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
#: What a sealed file starts with, then the 32-byte seal.
MAGIC = b"BKS1"
SECRET_BYTES = 32


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


class Sealer:
    """Seals and opens the kept files of one cache folder with its secret."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._key: bytes | None = None

    def _secret(self, create: bool) -> bytes | None:
        if self._key is not None:
            return self._key
        path = self.root / "secret"
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC)
        except FileNotFoundError:
            if not create:
                return None
            private_folder(self.root)
            key = secrets.token_bytes(SECRET_BYTES)
            tmp = self.root / f".secret.{os.getpid()}.{threading.get_ident()}"
            try:
                with create_exclusive(tmp) as f:
                    f.write(key)
                os.link(tmp, path)  # whole or not at all, and never over another's
            except FileExistsError:  # another process made it first: use theirs
                return self._secret(create=False)
            finally:
                tmp.unlink(missing_ok=True)
            self._key = key
            return key
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            key = f.read(SECRET_BYTES + 1)
        if st.st_uid != os.geteuid() or st.st_mode & 0o077 or len(key) != SECRET_BYTES:
            raise UnsafeFolder(
                f"{path}: the cache's secret is not this user's alone (or not one); "
                f"boosterkit does not trust the files beside it: remove {self.root} "
                "(it is rebuilt)"
            )
        self._key = key
        return key

    def seal(self, payload: bytes) -> bytes:
        key = self._secret(create=True)
        assert key is not None
        return MAGIC + hmac.new(key, payload, hashlib.sha256).digest() + payload

    def open(self, data: bytes) -> memoryview | None:
        """The payload of a sealed file, or None when its seal is not this cache's."""
        key = self._secret(create=False)
        if key is None or not data.startswith(MAGIC):
            return None
        view = memoryview(data)
        want = hmac.new(key, view[36:], hashlib.sha256).digest()
        return view[36:] if hmac.compare_digest(view[4:36], want) else None
