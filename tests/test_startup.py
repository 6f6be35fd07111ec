"""Start-up and call path (issue 13): a command imports only what it uses, YAML is parsed once,
checks run once, and a kept product opens packs without the database. No timings here:
``bench/speed.py`` measures; these tests check what is imported and called."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

#: (pydantic is not listed: checking a minigame file uses it, and ``minigames``' help. ``open``
#: of a kept product and ``deal`` of an unchanged catalogue file do not: typer >= 0.2x coerces
#: option values with it, ``cli.coerce`` without it; the game comes from ``minigames.compiled``.)
HEAVY = ("duckdb", "requests", "numpy", "rich", "fastapi", "uvicorn")

#: Runs the CLI in-process as the console script does (``cli.app.main``, which builds only
#: the command it runs) with the given argv, then prints the heavy modules it imported.
PROBE = """
import json, sys
from boosterkit.cli.app import main
sys.argv = ["boosterkit", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
heavy = %r
print(json.dumps(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
"""


def imported(*argv: str, heavy: tuple[str, ...] = HEAVY) -> tuple[list[str], str]:
    """(``heavy`` modules imported by ``boosterkit ARGV``, its stdout)."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE % (heavy,), *argv], capture_output=True, text=True, check=True
    )
    return json.loads(proc.stderr.strip().splitlines()[-1]), proc.stdout


def test_help_and_the_catalogue_import_no_database_http_or_numpy() -> None:
    for argv in (
        ["--help"],
        ["minigames"],
        ["minigames", "--json"],
        ["open", "--help"],
        ["deal", "--help"],
        ["sync", "--help"],
    ):
        heavy, out = imported(*argv)
        assert heavy == [], (argv, heavy)
        assert out
    assert "roll-for-initiative" in imported("minigames")[1]


def test_sync_help_lists_the_bulk_types_of_the_pipeline() -> None:
    from boosterkit.cli.sync import BULK_TYPES
    from boosterkit.pipeline.sync import BULK_TYPES as PIPELINE_BULK_TYPES

    assert BULK_TYPES == PIPELINE_BULK_TYPES
    assert ", ".join(BULK_TYPES) in " ".join(imported("sync", "--help")[1].split())


def test_a_kept_product_opens_and_deals_without_duckdb(built_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "kept.duckdb"
    shutil.copy(built_db, db)
    open_args = ["--db", str(db), "open", "afr", "-n", "2", "--seed", "7", "--format", "json"]
    deal_args = [
        "--db",
        str(db),
        "deal",
        "roll-for-initiative",
        "--players",
        "4",
        "--set",
        "afr",
        "--seed",
        "3",
        "--format",
        "json",
    ]
    seed = _dealable(built_db, "base-race", 2)["seed"]
    sheet_args = [
        "--db",
        str(db),
        "deal",
        "base-race",
        "--players",
        "2",
        "--set",
        "afr",
        "--seed",
        str(seed),
        "--format",
        "text",
    ]
    first_heavy, first = imported(*open_args)
    assert "duckdb" in first_heavy  # compiled from the database, then kept beside it
    assert list((tmp_path / "kept.cache" / "values").glob("product.afr.default.*.json"))
    heavy, again = imported(*open_args, heavy=(*HEAVY, "pydantic"))
    assert heavy == [] and again == first  # not even pydantic: options by cli.coerce
    first_heavy, dealt = imported(*deal_args)
    assert "duckdb" in first_heavy  # the rules text and the cards' rows: read once, then kept
    heavy, dealt_again = imported(*deal_args, heavy=(*HEAVY, "pydantic", "yaml"))
    # the packs, the game's rules text from its card and each card's facts come from what is
    # kept beside the database
    assert heavy == [] and dealt_again == dealt
    heavy, sheet = imported(*sheet_args, heavy=(*HEAVY, "pydantic"))  # kept too
    assert heavy == [] and imported(*sheet_args) == ([], sheet)
    assert "toughness" in sheet  # Base Race's facts (from the kept rows) on the sheet
    setup = json.loads(imported(*deal_args)[1])
    assert setup["packs"][0]["set"] == "afr"
    assert setup["rules"]["source"].startswith("the card MAFR")
    assert len(list((tmp_path / "kept.cache" / "values").glob("cards.afr.afr-set.*.json"))) == 1
    assert len(list((tmp_path / "kept.cache" / "values").glob("minigames.*.json"))) == 1


def test_the_sample_draws_a_kept_product_without_duckdb(sample_db: Path, monkeypatch) -> None:
    """Reading the bundled sample for want of a database costs no import: once its product
    is kept, `open` and `deal` import neither DuckDB nor numpy, as on a database of one's own."""
    monkeypatch.delenv("BOOSTERKIT_DB", raising=False)
    for args in (
        ["open", "afr", "-n", "2", "--seed", "7", "--format", "json"],
        ["deal", "roll-for-initiative", "--players", "5", "--seed", "2", "--format", "json"],
    ):
        first_heavy, first = imported(*args)
        heavy, again = imported(*args)
        assert heavy == [] and again == first, args


class _Unreadable:
    """A connection stand-in that fails every query: proves a call reads no database."""

    def execute(self, sql: str, *args: object) -> None:
        raise AssertionError(f"read the database: {' '.join(sql.split())[:80]}")


def _dealable(db, game: str, players: int) -> dict:
    """The setup of the first seed whose AFR packs make ``game``'s setup (a List card the
    shared data lacks is refused by design)."""
    from boosterkit.minigames import SetupError, deal

    for seed in range(1, 60):
        try:
            return deal(db, game, players, "afr", seed=seed).to_dict()
        except SetupError:
            continue
    raise AssertionError(f"no dealable seed for {game}")


def test_deal_and_validate_of_kept_products_read_no_card_rows(
    built_db: Path, tmp_path: Path
) -> None:
    import copy

    from boosterkit.cache import Cache
    from boosterkit.database import Database
    from boosterkit.minigames import deal, validate_setup
    from boosterkit.minigames.lookup import FACTS, card_rows
    from boosterkit.pipeline import db as pdb

    db = tmp_path / "own.duckdb"
    shutil.copy(built_db, db)
    for game, players in (("roll-for-initiative", 4), ("mimic-match", 4), ("mini-master", 2)):
        cache = Cache()  # as the service keeps products: by the file
        setup = _dealable(Database(db, cache=cache), game, players)  # read once: then kept
        validate_setup(Database(db, cache=cache), setup)
        unreadable = Database.borrowing(_Unreadable(), path=db, cache=cache)  # type: ignore[arg-type]
        again = deal(unreadable, game, players, "afr", seed=setup["seed"])
        assert again.to_dict() == setup
        assert again.facts and again.rules_text  # in the setup compared above
        with pdb.connect(db, read_only=True) as con:  # the kept facts are the database's
            rows = card_rows(
                con, {c["card_id"] for z in setup["zones"] for c in z["cards"] if c.get("card_id")}
            )
        assert again.facts == {i: {k: getattr(r, k) for k in FACTS} for i, r in rows.items()}
        assert validate_setup(unreadable, setup).valid, game
        # every named violation still found from the kept rows, card-data included
        forged = copy.deepcopy(setup)
        next(i for i in forged["packs"][0]["items"] if i.get("card_id"))["name"] = "Black Lotus"
        next(c for z in forged["zones"] for c in z["cards"])["rarity"] = "mythic"
        rules = {v.rule for v in validate_setup(unreadable, forged).violations}
        assert {"card-data", "pack-contents", "card-mismatch"} <= rules, (game, rules)


def test_public_entry_points_live_in_their_own_modules() -> None:
    from boosterkit.generator import iter_packs, load_product, new_seed, open_packs
    from boosterkit.minigames import deal, list_minigames, validate_setup

    assert (
        open_packs.__module__
        == iter_packs.__module__
        == new_seed.__module__
        == "boosterkit.generator.packs"
    )
    assert load_product.__module__ == "boosterkit.generator.cache"
    assert callable(deal) and deal.__module__ == "boosterkit.minigames.dealer"
    assert list_minigames.__module__ == "boosterkit.minigames.catalog"
    assert validate_setup.__module__ == "boosterkit.minigames.validate"
    with pytest.raises(AttributeError):
        import boosterkit.generator as g

        g.no_such_name  # noqa: B018


def test_the_cache_module_does_not_import_the_entry_points() -> None:
    code = (
        "import sys, boosterkit.generator.cache; print('boosterkit.generator.packs' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_booster_yaml_is_parsed_once_per_file_version(tmp_path: Path) -> None:
    from boosterkit.generator import extras as ex
    from boosterkit.generator import generic

    assert generic.load_generic() is generic.load_generic()
    assert ex.load_nonmagic() is ex.load_nonmagic()
    copy = tmp_path / "nonmagic.yaml"
    text = (ex.BOOSTERS_DIR / "nonmagic.yaml").read_text(encoding="utf-8")
    copy.write_text(text, encoding="utf-8")
    first = ex.load_nonmagic(copy)
    assert ex.load_nonmagic(copy) is first
    copy.write_text(
        text.replace("minigame_share: all_packs", "minigame_share: token_ad_slot"), encoding="utf-8"
    )
    assert ex.load_nonmagic(copy).minigame_share == "token_ad_slot"  # a new version is re-read


def test_the_catalogue_uses_the_c_loader_when_available() -> None:
    from boosterkit.minigames import catalog

    assert catalog._loader() is getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def test_deal_checks_players_and_seed_once(built_db: Path, monkeypatch) -> None:
    from boosterkit.generator import rng
    from boosterkit.minigames import dealer
    from boosterkit.minigames import engine as mengine

    calls = {"players": 0, "seed": 0}

    def counted(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(dealer, "check_players", counted("players", mengine.check_players))
    monkeypatch.setattr(mengine, "check_players", counted("players", mengine.check_players))
    check_seed = rng.check_seed
    monkeypatch.setattr(rng, "check_seed", counted("seed", check_seed))
    monkeypatch.setattr(dealer, "check_seed", counted("seed", check_seed))
    setup = dealer.deal(built_db, "roll-for-initiative", 4, "afr", seed=11)
    assert calls == {"players": 1, "seed": 1}
    assert len(setup.packs) == dealer.get_minigame("roll-for-initiative").pack_count(4)


def test_the_service_deals_and_validates_kept_products_without_the_database(
    built_db: Path, tmp_path: Path
) -> None:
    from fastapi.testclient import TestClient

    from boosterkit.service.app import create_app

    db = tmp_path / "served.duckdb"
    shutil.copy(built_db, db)
    body = {
        "minigame": "mimic-match",
        "players": 4,
        "set": "afr",
        "seed": _dealable(built_db, "mimic-match", 4)["seed"],
    }
    with TestClient(create_app(db), base_url="http://127.0.0.1") as client:
        dealt = client.post("/deal", json=body)  # reads the database once: then kept
        assert dealt.status_code == 200, dealt.text
        assert client.post("/validate", json=dealt.json()).json()["valid"]
        database = client.app.state.database

        def unreadable():
            raise AssertionError("the request read the database")

        database.cursor = unreadable
        again = client.post("/deal", json=body)
        assert again.status_code == 200 and again.json() == dealt.json()
        checked = client.post("/validate", json=dealt.json())
        assert checked.status_code == 200 and checked.json() == {"valid": True, "violations": []}
        forged = dealt.json()
        next(i for i in forged["packs"][0]["items"] if i.get("card_id"))["type_line"] = "Land"
        rules = {v["rule"] for v in client.post("/validate", json=forged).json()["violations"]}
        assert {"card-data", "pack-contents"} <= rules


#: Imports the engine (numpy through ``generator._np``); prints the BLAS setting and threads.
BLAS_PROBE = (
    "import os, boosterkit.generator._np\n"
    "print(os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))\n"
)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_numpy_is_imported_with_one_blas_thread_unless_the_user_set_one() -> None:
    from boosterkit.generator._np import THREAD_VARIABLES

    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}

    def probe(**extra: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", BLAS_PROBE],
            env={**env, **extra},
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.split()

    assert probe() == ["1", "1"]  # no OpenBLAS thread besides the main one
    assert probe(OMP_NUM_THREADS="2")[0] == "None"  # the user's setting is theirs
    assert probe(OPENBLAS_NUM_THREADS="2")[0] == "2"
