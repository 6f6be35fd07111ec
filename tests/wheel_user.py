"""A new user's first hour, run by ``test_wheel.py`` with the Python of a fresh venv holding
the built wheel, in an empty folder, with no ``../shared``, no database and (where the
machine allows a network namespace) no network. Prints one JSON report on stdout; any
failure is an ``AssertionError`` (exit 1) naming the step."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

BIN = Path(sys.executable).parent
NOTICE = "boosterkit: using the bundled sample (AFR): `boosterkit sync SET` loads real data\n"

SUITE = """
from hypothesis import given, settings
from boosterkit.testing import pack


def test_set_booster(booster_pack):
    pack_ = booster_pack("afr", product="set", seed=1)
    assert pack_.product == "afr-set" and len(pack_.items) == 14
    assert pack_.items[0].kind == "art_card" and not pack_.items[0].magic_back


def test_draft_boosters(booster_packs):
    packs = booster_packs("afr", count=3, seed=2)
    assert all(sum(i.magic_back for i in p.items) == 15 for p in packs)


@settings(max_examples=10, deadline=None)
@given(pack("afr", "set"))
def test_every_set_booster(p):
    assert len(p.items) == 14
"""


def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(BIN / "boosterkit"), *args], capture_output=True, text=True)
    assert (done.returncode == 0) == ok, f"boosterkit {' '.join(args)}: {done.stderr}"
    return done


def timed(*args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    done = run(*args)
    return time.perf_counter() - t0, done


def first_command(report: dict) -> None:
    """The README's: the table is dealt from the sample, which says so once."""
    args = ("deal", "roll-for-initiative", "--players", "5", "--seed", "2")
    report["deal_first_s"], first = timed(*args)
    report["deal_next_s"] = [round(timed(*args)[0], 3) for _ in range(3)]
    assert "ROLL FOR INITIATIVE [table]" in first.stdout and "AFR (set)" in first.stdout
    assert first.stderr == NOTICE, first.stderr
    assert run(*args).stdout == first.stdout


def commands(report: dict) -> None:
    packs = json.loads(
        run("open", "afr", "--product", "set", "-n", "3", "--seed", "7", "--json").stdout
    )
    assert [len(p["items"]) for p in packs] == [14, 14, 14]
    pools = json.loads(
        run("pool", "afr", "--players", "2", "--packs", "3", "--seed", "1", "--json").stdout
    )
    assert len(pools["pools"]) == 2
    odds = json.loads(run("odds", "afr", "-p", "set", "--json").stdout)
    assert odds["product"] == "afr-set"
    run("deal", "mimic-match", "--players", "3", "--seed", "2", "-f", "json", "-o", "setup.json")
    assert "valid mimic-match setup" in run("validate", "setup.json").stdout
    bare = run("open", "afr")  # bare, after the main job: packs, not "no database here yet"
    report["open"] = bare.stderr.startswith(NOTICE) and "afr-draft" in bare.stdout
    assert report["open"]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read().decode("utf-8")


def serve(report: dict) -> None:
    port = _port()
    cmd = [str(BIN / "boosterkit"), "serve", "--port", str(port), "--workers", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                health = json.loads(_get(f"{url}/health"))
                break
            except OSError:
                assert time.monotonic() < deadline, "serve did not answer within 60 s"
                time.sleep(0.2)
        assert health["sample"] == "afr", health
        assert 'id="sample-note"' in _get(f"{url}/")
        sheet = _get(f"{url}/sheet?minigame=roll-for-initiative&players=5&seed=2")
        assert "Roll for Initiative" in sheet and "ORGANIZER ONLY" in sheet
        report["serve"] = True
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def plugin(report: dict) -> None:
    """A test suite of the user's: plain ``pytest``, no option, no database."""
    Path("suite").mkdir()
    Path("suite/test_packs.py").write_text(SUITE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "suite"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout + done.stderr
    assert "booster fixtures read the bundled sample (AFR)" in done.stdout
    report["plugin"] = True


def main() -> None:
    import boosterkit

    report: dict = {"package": boosterkit.__file__, "cwd": os.getcwd()}
    assert Path(boosterkit.__file__).is_relative_to(Path(sys.prefix)), boosterkit.__file__
    for step in (first_command, commands, serve, plugin):
        step(report)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
