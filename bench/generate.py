"""Pack generation speed for AFR draft and set boosters, against a naive baseline.

Builds a database from the shared MTGJSON AFR files and the magic-sealed-data export in a
temporary folder, then, for each product, in the same run:

- in-process: ``open_packs(…, db=con)`` (product resolution included) returning ``Pack``
  objects; also the same packs turned into JSON-ready dicts (``to_dict``) and with every
  ``Item`` dataclass materialised, so the cost of each layer is visible;
- the baseline: a naive generator drawing the same variants, sheets and extra slots with
  ``random.choices`` (precomputed cumulative weights, redraw on in-sheet duplicates) per
  pack, producing one tuple per card;
- the command: ``boosterkit open afr -p KIND -n N --format jsonl > /dev/null`` (process
  start-up included).

Targets (issue 4): >= 50,000 packs/s in-process on one core and >= 3x the baseline.
Issue 36: the CPU of ``open afr -p draft -n 1000000 -f jsonl > /dev/null`` against the C
floor in ``../shared/bench/limit.c`` (built with ``cc -O2``; its output checked byte-identical
to the command's first), A/B alternated; target <= 3x.
First (issue 22): the CPU of ``boosterkit open afr -p draft -n 200000 -f jsonl > /dev/null``
against its floor measured in the same run, interleaved: the engine's draws of the same packs
and the write of prebuilt bytes of the same size; target <= 6x.
Exit status 1 when a target is missed.

    .venv/bin/python bench/generate.py [--packs 200000] [--cli-packs 200000]
    .venv/bin/python bench/generate.py --only-jsonl [--jsonl-packs 200000] [--runs 3]
    .venv/bin/python bench/generate.py --only-json [--jsonl-packs 200000]  # open -f json's writer, A/B
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import accumulate
from pathlib import Path

from common import ROOT, build_db  # bench/common.py: the script folder is on sys.path

BIN = Path(sys.executable).with_name("boosterkit")
TARGET_PPS, TARGET_RATIO = 50_000, 3.0


def naive_packs(product, n: int, seed: int) -> list[list[tuple]]:
    """The baseline: ``random.choices`` per slot per pack, same structure as the engine."""
    rnd = random.Random(seed)
    variants = list(product.variants)
    vcum = list(accumulate(v.weight for v in variants))
    sheets = {
        name: (s.cards, list(accumulate(s.weights)), s.foil, s.allow_duplicates)
        for name, s in product.sheets.items()
    }
    extras = [
        (e, list(accumulate(o.weight for o in e.options)), set(e.unless_sheets))
        for e in product.extras
    ]
    packs = []
    for _ in range(n):
        v = rnd.choices(variants, cum_weights=vcum)[0]
        drawn = {s for s, c in v.slots if c}
        pack: list[tuple] = []
        for e, cum, unless in extras:
            if e.position == "first" and not drawn & unless:
                opt = rnd.choices(e.options, cum_weights=cum)[0]
                pack.append((rnd.choice(opt.cards) if opt.cards else None, False, e.name))
        for name, count in v.slots:
            cards, cum, foil, dup = sheets[name]
            got: list = []
            while len(got) < count:
                c = rnd.choices(cards, cum_weights=cum)[0]
                if dup or c not in got or len(got) >= len(cards):
                    got.append(c)
            pack += [(c, foil, name) for c in got]
        for e, cum, unless in extras:
            if e.position == "last" and not drawn & unless:
                opt = rnd.choices(e.options, cum_weights=cum)[0]
                pack.append((rnd.choice(opt.cards) if opt.cards else None, False, e.name))
        packs.append(pack)
    return packs


def _drain(it) -> None:
    for _ in it:
        pass


def rate(n: int, fn) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return n / (time.perf_counter() - t), out


def bench_product(db_path: Path, kind: str, n: int, cli_n: int) -> dict[str, float]:
    from boosterkit.generator import iter_packs, load_product, open_packs
    from boosterkit.pipeline import db

    con = db.connect(db_path, read_only=True)
    product = load_product("afr", kind, con)
    open_packs("afr", kind, 1000, 1, db=con)  # warm-up (imports, caches)
    lib, _ = rate(n, lambda: open_packs("afr", kind, n, 1, db=con))
    # Dicts and Items are consumed as they stream (keeping millions alive measures the GC).
    dicts, _ = rate(n, lambda: _drain(p.to_dict() for p in iter_packs("afr", kind, n, 2, db=con)))
    items, _ = rate(n, lambda: _drain(p.items for p in iter_packs("afr", kind, n, 3, db=con)))
    base, _ = rate(n // 4, lambda: naive_packs(product, n // 4, 1))
    con.close()
    t = time.perf_counter()
    with open(os.devnull, "w") as null:
        subprocess.run(
            [str(BIN), "--db", str(db_path), "open", "afr", "-p", kind, "-n", str(cli_n),
             "--seed", "1", "--format", "jsonl"],
            stdout=null, check=True,
        )  # fmt: skip
    cli = cli_n / (time.perf_counter() - t)
    return {"library": lib, "to_dict": dicts, "items": items, "baseline": base, "cli": cli}


def child_cpu(cmd: list[str]) -> float:
    """CPU seconds (user + system) of running ``cmd``, its output to /dev/null (the C floor
    says its own CPU on stderr: dropped too)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.devnull, "wb") as null:
        subprocess.run(cmd, stdout=null, stderr=null, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def jsonl_floor(db_path: Path, n: int, sample: bytes, sample_packs: int) -> float:
    """CPU seconds of the floor of ``open afr -p draft -n N -f jsonl``: the engine's draws
    of the N packs (prototype ids, no pack object) and the write of prebuilt bytes of the
    same size (``sample``, the command's own first ``sample_packs`` lines, written again
    in 64 KiB chunks)."""
    from boosterkit.generator.cache import load_product
    from boosterkit.generator.engine import compile_product, draw_batch
    from boosterkit.pipeline import db

    con = db.connect(db_path, read_only=True)
    cp = compile_product(load_product("afr", "draft", con))
    con.close()
    t = time.process_time()
    for start in range(1, n + 1, 8192):
        draw_batch(cp, 1, start, min(8192, n + 1 - start))
    chunks = [sample[k : k + 65536] for k in range(0, len(sample), 65536)]
    with open(os.devnull, "wb") as null:
        for _ in range(n // sample_packs):
            for chunk in chunks:
                null.write(chunk)
    return time.process_time() - t


LIMIT = ROOT.parent / "shared" / "bench"


def c_floor(tmp: Path, db_path: Path, check: int) -> list[str] | None:
    """``../shared/bench/limit.c`` built (``cc -O2``) as the command that writes the same
    JSON lines of AFR draft boosters in C, once its output for ``check`` packs is found
    byte-identical to ``open``'s (else the dump is stale: None, said why)."""
    if not (LIMIT / "limit.c").exists():
        print("no ../shared/bench/limit.c: the C floor is not measured")
        return None
    exe = tmp / "limit"
    subprocess.run(["cc", "-O2", "-o", str(exe), str(LIMIT / "limit.c")], check=True)
    os.environ["LIMIT_PRODUCT"] = str(LIMIT / "product.txt")
    os.environ["LIMIT_FRAGMENTS"] = str(LIMIT / "fragments.txt")
    ours = subprocess.run([str(BIN), "--db", str(db_path), "open", "afr", "-p", "draft", "-n",
                           str(check), "--seed", "1", "-f", "jsonl"], capture_output=True).stdout  # fmt: skip
    theirs = subprocess.run([str(exe), "jsonl", str(check), "1"], capture_output=True).stdout
    if hashlib.md5(ours).digest() != hashlib.md5(theirs).digest():
        print(f"the C floor's {check:,} packs differ from open's: its dump is stale, not measured")
        return None
    return [str(exe), "jsonl"]


def bench_jsonl_c(db_path: Path, n: int, runs: int, tmp: Path) -> float | None:
    """CPU of ``open afr -p draft -n N -f jsonl > /dev/null`` over the C floor's for the same
    packs and bytes (medians of ``runs``, A/B alternated)."""
    floor = c_floor(tmp, db_path, min(n, 20_000))
    if floor is None:
        return None
    cmd = [str(BIN), "--db", str(db_path), "open", "afr", "-p", "draft", "--seed", "1",
           "--format", "jsonl", "-n", str(n)]  # fmt: skip
    ours, theirs = [], []
    for r in range(runs):
        for which in ("ours", "c") if r % 2 == 0 else ("c", "ours"):
            if which == "ours":
                ours.append(child_cpu(cmd))
            else:
                theirs.append(child_cpu([*floor, str(n), "1"]))
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    ratio = statistics.median(ratios)
    print(
        f"open afr -p draft -n {n:,} -f jsonl > /dev/null: CPU {statistics.median(ours):.2f} s "
        f"(runs {min(ours):.2f}-{max(ours):.2f}); the C floor (../shared/bench/limit.c, the same "
        f"bytes: md5 checked) {statistics.median(theirs):.2f} s (runs {min(theirs):.2f}-"
        f"{max(theirs):.2f}): {ratio:.2f}x (rounds {min(ratios):.2f}-{max(ratios):.2f}; "
        f"target <= 3x)"
    )
    return ratio


def bench_jsonl(db_path: Path, n: int, runs: int) -> float:
    """CPU of the command over its floor (medians of ``runs``, interleaved); prints both."""
    cmd = [str(BIN), "--db", str(db_path), "open", "afr", "-p", "draft", "--seed", "1",
           "--format", "jsonl"]  # fmt: skip
    subprocess.run([*cmd, "-n", "1"], stdout=subprocess.DEVNULL, check=True)  # keep the product
    sample_packs = min(n, 10_000)
    sample = subprocess.run([*cmd, "-n", str(sample_packs)], capture_output=True).stdout
    command, floor = [], []
    for _ in range(runs):
        command.append(child_cpu([*cmd, "-n", str(n)]))
        floor.append(jsonl_floor(db_path, n, sample, sample_packs))
    c, f = statistics.median(command), statistics.median(floor)
    print(
        f"open afr -p draft -n {n:,} -f jsonl > /dev/null: CPU {c:.2f} s (runs "
        f"{min(command):.2f}-{max(command):.2f}); floor (draws + writing prebuilt bytes) "
        f"{f:.2f} s (runs {min(floor):.2f}-{max(floor):.2f}): {c / f:.2f}x (target <= 6x)"
    )
    return c / f


def bench_json(db_path: Path, n: int, runs: int) -> float:
    """CPU of ``open -f json``'s writer on a whole run (laid out from the drawn arrays,
    ``PrettyPacks.layout``) over the same packs written one ``Pack`` at a time (the path of
    packs that are not a whole run), in-process, to /dev/null, A/B alternated; prints both."""
    from boosterkit.database import Database
    from boosterkit.generator import iter_packs
    from boosterkit.generator.output import write_json

    db = Database(db_path)
    laid, per_pack = [], []
    with open(os.devnull, "w", encoding="utf-8") as out:
        write_json(iter_packs("afr", "draft", 1000, 1, db), out)  # the product compiled
        for _ in range(runs):
            t = time.process_time()
            write_json(iter_packs("afr", "draft", n, 1, db), out)
            laid.append(time.process_time() - t)
            t = time.process_time()
            write_json((p for p in iter_packs("afr", "draft", n, 1, db)), out)  # not a run
            per_pack.append(time.process_time() - t)
    a, b = statistics.median(laid), statistics.median(per_pack)
    print(f"open afr -p draft -n {n:,} -f json, in-process: laid out {a:.2f} s of CPU, "
          f"pack by pack {b:.2f} s: {a / b:.2f}x")  # fmt: skip
    return a / b


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--packs", type=int, default=100_000)
    ap.add_argument("--cli-packs", type=int, default=100_000)
    ap.add_argument("--jsonl-packs", type=int, default=200_000, help="packs of the jsonl figure")
    ap.add_argument("--runs", type=int, default=3, help="runs of the jsonl figure (median)")
    ap.add_argument("--only-jsonl", action="store_true", help="only the jsonl CPU figures")
    ap.add_argument("--only-json", action="store_true", help="only open -f json's writer, A/B")
    ap.add_argument("--c-packs", type=int, default=1_000_000, help="packs of the C-floor figure")
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        db_path = build_db(Path(tmp))
        if args.only_json:
            return 0 if bench_json(db_path, args.jsonl_packs, args.runs) < 1.0 else 1
        c_ratio = bench_jsonl_c(db_path, args.c_packs, args.runs, Path(tmp))
        ok &= c_ratio is None or c_ratio <= 3.0
        ok &= bench_jsonl(db_path, args.jsonl_packs, args.runs) <= 6.0
        if args.only_jsonl:
            return 0 if ok else 1
        print(
            f"AFR, {args.packs:,} packs in-process, {args.cli_packs:,} through the command; packs/s:"
        )
        print(f"{'product':8} {'open_packs':>11} {'+to_dict':>10} {'+Items':>10} {'baseline':>10} "
              f"{'command':>10} {'lib/base':>9} {'cmd/base':>9}")  # fmt: skip
        for kind in ("draft", "set"):
            r = bench_product(db_path, kind, args.packs, args.cli_packs)
            ratio, cli_ratio = r["library"] / r["baseline"], r["cli"] / r["baseline"]
            print(f"{kind:8} {r['library']:>11,.0f} {r['to_dict']:>10,.0f} {r['items']:>10,.0f} "
                  f"{r['baseline']:>10,.0f} {r['cli']:>10,.0f} {ratio:>8.1f}x {cli_ratio:>8.1f}x")  # fmt: skip
            ok &= r["library"] >= TARGET_PPS and ratio >= TARGET_RATIO
    print(f"targets: >= {TARGET_PPS:,} packs/s in-process and >= {TARGET_RATIO:.0f}x the baseline: "
          f"{'met' if ok else 'MISSED'}")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
