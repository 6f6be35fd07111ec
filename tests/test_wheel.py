"""The first run works anywhere (issue 34): the wheel is built from the checkout, installed
with ``--no-deps`` in a fresh venv (its dependencies are those of the test run's venv, put
on its path, so nothing is downloaded), and run by ``wheel_user.py`` in an empty folder
with no ``../shared``, no database and, where ``unshare`` gives the run a network namespace
of its own, no network: the README's first command, ``open``, ``pool``, ``odds``,
``validate``, ``serve`` and a pytest suite using the plugin all work on the bundled sample."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

from boosterkit.pipeline import sample

#: What the wheel is built from (``boosterkit/`` links to the other folders).
SOURCES = ("pyproject.toml", "README.md", "boosterkit", "cli", "data", "generator", "minigames",
           "pipeline", "service")  # fmt: skip
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.cache", "*.duckdb*")


def _pip(*args: str) -> None:
    """pip, blind to a ``PYTHONPATH`` naming a checkout: there, a build's ``*.egg-info``
    would tell it the wheel is installed already (it would install nothing)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "pip", *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def build_wheel(where: Path) -> Path:
    """The wheel of a copy of the checkout (the build leaves ``build/`` in its source)."""
    src = where / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, symlinks=True, ignore=IGNORED)
        else:
            shutil.copy(path, src / name)
    _pip(
        "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(where), str(src)
    )
    (wheel,) = where.glob("boosterkit-*.whl")
    return wheel


def install(wheel: Path, venv: Path) -> Path:
    """A fresh venv holding the wheel, reading its dependencies from this run's venv."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    _pip("--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel))
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    ours = {sysconfig.get_paths()["purelib"], *site.getsitepackages()}
    (Path(purelib) / "_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    return python


def _offline() -> list[str]:
    """A network namespace with only loopback, where the machine allows one; else nothing
    (the commands then reach no host anyway: the sample is all they read)."""
    probe = (
        subprocess.run(["unshare", "-rn", "true"], capture_output=True)
        if shutil.which("unshare")
        else None
    )
    if probe is None or probe.returncode != 0 or not shutil.which("ip"):
        return []
    return ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$@"', "offline"]


@pytest.mark.slow
def test_the_built_wheel_works_anywhere(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as z:
        sizes = {Path(i.filename).name: i.file_size for i in z.infolist()
                 if i.filename.startswith("boosterkit/data/sample/")
                 and i.filename.endswith(".json.gz")}  # fmt: skip
    assert sizes == {p.name: p.stat().st_size for p in (sample.MTGJSON_FILE, sample.SEALED_FILE)}
    python = install(wheel, tmp_path / "venv")
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = {
        "PATH": f"{python.parent}:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "SCRYFALL_API_URL": "http://127.0.0.1:9/",
        "MTGJSON_API_URL": "http://127.0.0.1:9/",
    }
    script = Path(__file__).with_name("wheel_user.py")
    done = subprocess.run(
        [*_offline(), str(python), str(script)],
        cwd=work, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["package"].startswith(str(tmp_path / "venv"))
    assert report["serve"] and report["plugin"] and report["open"]
    print(f"deal: first run {report['deal_first_s']:.2f} s, next runs {report['deal_next_s']} s")
