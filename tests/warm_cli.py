"""``boosterkit`` for the docs' examples (``test_examples.py``) without a Python start per
command: the ~100 commands of the pages spent 0.15-0.3 s of CPU each importing Python and
the libraries before their work.

``serve(path)`` runs in a process of its own: it imports the command line and the libraries
its commands load (it opens no database and runs no other thread), then forks one child per
command. The child takes the caller's arguments, folder, environment and standard streams
(passed over the Unix socket ``path``), runs ``main()`` as the console script does, runs
the exit handlers and sends back its exit code: what a new process does after its imports.

``client(path)`` is the ``boosterkit`` put first on the examples' PATH: Python without its
site packages (``-IS``, ~15 ms), which hands its command to the server, or runs the real
``boosterkit`` where the server cannot stand in: no server, or a setting Python reads only
when it starts (``PYTHON*``, the locale) that differs from the server's.
"""

from __future__ import annotations

import ast
import atexit
import os
import signal
import socket
import sys
import threading
import traceback
from pathlib import Path

#: What Python reads when it starts (stdio encoding, hash seed, flags): the client runs
#: the real command unless these are as they were when the server started.
STARTUP = ("LANG", "LC_ALL", "LC_CTYPE")


def _startup(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k in STARTUP or k.startswith("PYTHON")}


def client(path: Path, real: Path, server_env: dict[str, str]) -> str:
    """The source of the ``boosterkit`` script that asks the server at ``path`` (started
    with ``server_env``), else runs ``real``."""
    return f"""#!{sys.executable} -IS
import os, socket, sys
def startup(env):
    return {{k: v for k, v in env.items() if k in {STARTUP!r} or k.startswith("PYTHON")}}
s = None
if startup(os.environ) == {_startup(server_env)!r}:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect({str(path)!r})
    except OSError:
        s = None
if s is None:
    os.execv({str(real)!r}, [{str(real)!r}, *sys.argv[1:]])
data = repr((sys.argv[1:], os.getcwd(), dict(os.environ))).encode()
socket.send_fds(s, [len(data).to_bytes(8, "big") + data], [0, 1, 2])
code = b""
while chunk := s.recv(64):
    code += chunk
if not code:
    sys.stderr.write("warm boosterkit: the command's process ended without an exit code\\n")
sys.exit(int(code) if code else 70)
"""


def _preload() -> None:
    """What the commands import, imported once here: not polars, which starts its threads
    when imported (a command needing it imports it in its own process); numpy through
    ``boosterkit.generator``, which gives it one BLAS thread."""
    import duckdb  # noqa: F401

    import boosterkit.generator.engine  # noqa: F401
    import boosterkit.minigames  # noqa: F401
    import boosterkit.pipeline.db  # noqa: F401
    from boosterkit.cli import app

    app.full_app()


def _receive(conn: socket.socket) -> tuple[bytes, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    size = int.from_bytes(data[:8], "big")
    data = data[8:]
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError("the client went away")
        data += chunk
    return data, fds


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None or isinstance(exc.code, int):
        return exc.code or 0
    print(exc.code, file=sys.stderr)  # as Python does with sys.exit("message")
    return 1


def _command(conn: socket.socket, data: bytes, fds: list[int], added: dict[str, str]) -> None:
    """In the forked child: be the command's process; never returns. ``added``: what the
    imports set in the environment (``OPENBLAS_NUM_THREADS``), as a new process has it."""
    argv, cwd, env = ast.literal_eval(data.decode())
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update({**added, **env})
    sys.argv = ["boosterkit", *argv]
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    code = 0
    try:
        from boosterkit.cli.app import main

        main()
    except SystemExit as exc:
        code = _exit_code(exc)
    except BaseException:  # noqa: BLE001 - as the interpreter does: traceback, exit 1
        traceback.print_exc()
        code = 1
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            code = code or 120  # as the interpreter does when the last flush fails
    conn.sendall(str(code).encode())
    os._exit(code)


def _reap(block: bool = False) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(path: str) -> None:
    """Answer commands on the Unix socket ``path`` until SIGTERM; then wait for the
    commands still running (so their CPU is counted in this process's children)."""
    before = dict(os.environ)
    _preload()
    added = {k: v for k, v in os.environ.items() if k not in before}
    tasks = Path("/proc/self/task")  # the threads of any library, not only Python's
    if threading.active_count() != 1 or (tasks.is_dir() and len(os.listdir(tasks)) != 1):
        raise SystemExit("warm_cli: a thread started while importing: forking would be unsafe")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(16)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            conn, _ = server.accept()
            _reap()
            try:
                data, fds = _receive(conn)
            except (OSError, EOFError):
                conn.close()
                continue
            if os.fork() == 0:
                server.close()
                _command(conn, data, fds, added)
            conn.close()
            for fd in fds:
                os.close(fd)
    finally:
        server.close()
        _reap(block=True)


if __name__ == "__main__":
    serve(sys.argv[1])
