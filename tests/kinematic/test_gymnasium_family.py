"""``python -m kinematic family gymnasium`` on hostile input: every malformed or unusable
``--env-arg``, a ``module:id`` environment id, a random map with and without ``--seed``, a
horizon too large for memory; each refused in one line naming the flag and what was typed."""

from __future__ import annotations

import json
import sys

import pytest

from kinematic import from_gymnasium
from kinematic.cli import main
from kinematic.spec import load_spec, to_spec

gymnasium = pytest.importorskip("gymnasium")
generate_random_map = pytest.importorskip(
    "gymnasium.envs.toy_text.frozen_lake").generate_random_map


def refused(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line ``family gymnasium`` prints when it refuses ``arguments`` (exit status 2)."""
    assert main(["family", "gymnasium", *arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    return captured.err


@pytest.mark.parametrize("env_arg, message", [
    ("map_name=9x9", "map_name must be one of 4x4, 8x8 or null (a random 8x8 map, with --seed)"),
    ("map_name=4", "map_name must be one of 4x4, 8x8 or null"),
    ("desc=5", "desc must be a list of rows of equal length of the letters S, F, H, G"),
    ('desc=["SF","H"]', "desc must be a list of rows of equal length"),
    ('desc=["FF","HG"]', "with at least one S"),
    ('desc=["SX","HG"]', "of the letters S, F, H, G"),
    ("desc=[]", "desc must be a list of rows"),
    # text, not JSON's false: gymnasium would take the non-empty string as true, a slippery lake
    ("is_slippery=False", "is_slippery must be true or false (JSON: lower case)"),
    ("is_slippery=0", "is_slippery must be true or false (JSON: lower case)"),
    ("success_rate=1.5", "success_rate must be a number in [0, 1]"),
    ("success_rate=NaN", "success_rate must be a number in [0, 1]"),
    ("success_rate=true", "success_rate must be a number in [0, 1]"),
    ("reward_schedule=[1,0]", "reward_schedule must be 3 finite numbers"),
    ("slippery=1", "FrozenLake-v1 takes map_name, desc, is_slippery, success_rate, "
                   "reward_schedule, not slippery"),
    ("render_mode=human", "not render_mode"),
])
def test_an_env_arg_frozen_lake_cannot_use_is_named_with_what_it_must_be(env_arg, message,
                                                                          capsys):
    err = refused(["--env", "FrozenLake-v1", "--env-arg", env_arg], capsys)
    assert err.startswith(f"error: --env-arg {env_arg}: ") and message in err


@pytest.mark.parametrize("env_id, env_arg, message", [
    ("CliffWalking-v1", "is_slippery=yes", "is_slippery must be true or false (JSON: lower case)"),
    ("Taxi-v4", "is_rainy=1", "is_rainy must be true or false (JSON: lower case)"),
    ("Taxi-v4", "rainy_probability=-0.5", "rainy_probability must be a number in [0, 1]"),
    ("Taxi-v4", "map_name=4x4", "Taxi-v4 takes is_rainy, fickle_passenger, "),
    # the table does not change: the MDP would be the steady passenger's under this name
    ("Taxi-v4", "fickle_passenger=true", "fickle_passenger must be false: a fickle passenger "
                                         "changes destination in step, outside the table"),
    ("Taxi-v4", "fickle_probability=0.5", "not fickle_probability"),
])
def test_the_other_toy_text_environments_check_their_env_args(env_id, env_arg, message, capsys):
    err = refused(["--env", env_id, "--env-arg", env_arg], capsys)
    assert err.startswith(f"error: --env-arg {env_arg}: ") and message in err


def test_an_error_of_gymnasium_make_is_named_with_the_env_args(capsys):
    err = refused(["--env", "CartPole-v1", "--env-arg", "foo=1", "--env-arg", "bar=x"], capsys)
    assert err.startswith("error: --env CartPole-v1 --env-arg foo=1 --env-arg bar=x: "
                          "gymnasium.make raised TypeError: ")


def test_an_env_arg_given_twice_is_refused_naming_both(capsys):
    err = refused(["--env", "FrozenLake-v1", "--env-arg", "map_name=4x4",
                   "--env-arg", "map_name=8x8"], capsys)
    assert err == "error: --env-arg map_name given twice: map_name=4x4, map_name=8x8\n"


@pytest.mark.parametrize("pair", ["is_slippery", "=true", " =true"])
def test_an_env_arg_that_is_no_key_value_pair_is_refused_by_the_parser(pair, capsys):
    with pytest.raises(SystemExit) as exit_status:
        main(["family", "gymnasium", "--env", "FrozenLake-v1", "--env-arg", pair])
    assert exit_status.value.code == 2
    assert (f"error: argument --env-arg: must be KEY=VALUE with a non-empty KEY, got {pair!r}"
            in capsys.readouterr().err)


@pytest.fixture
def module_in_path(tmp_path, monkeypatch):
    """A module ``kinematic_test_plugin`` on ``sys.path`` that, when imported, writes
    ``imported`` next to itself and registers ``KinematicTestLake-v0`` (a FrozenLake)."""
    (tmp_path / "kinematic_test_plugin.py").write_text(
        "import pathlib, gymnasium\n"
        "pathlib.Path(__file__).with_name('imported').write_text('yes')\n"
        "gymnasium.register('KinematicTestLake-v0', "
        "entry_point='gymnasium.envs.toy_text.frozen_lake:FrozenLakeEnv')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "kinematic_test_plugin", raising=False)
    yield tmp_path
    gymnasium.registry.pop("KinematicTestLake-v0", None)


def test_a_module_env_id_is_refused_without_importing_the_module(module_in_path, capsys):
    err = refused(["--env", "kinematic_test_plugin:KinematicTestLake-v0"], capsys)
    assert err == ("error: --env kinematic_test_plugin:KinematicTestLake-v0: gymnasium would "
                   "import the module 'kinematic_test_plugin' (from the working directory "
                   "first) and run its code to make this environment; pass --allow-import if "
                   "you mean to\n")
    assert not (module_in_path / "imported").exists()


def test_allow_import_imports_the_module_and_makes_its_environment(module_in_path, capsys):
    assert main(["family", "gymnasium", "--env", "kinematic_test_plugin:KinematicTestLake-v0",
                 "--allow-import", "--horizon", "2"]) == 0
    assert (module_in_path / "imported").read_text() == "yes"
    assert json.loads(capsys.readouterr().out)["layers"] == [["s1_0"], ["s2_0", "s2_1", "s2_4"]]


def test_a_module_that_cannot_be_imported_is_named(capsys):
    err = refused(["--env", "no_such_module_here:Foo-v0", "--allow-import"], capsys)
    assert err.startswith("error: --env no_such_module_here:Foo-v0: ModuleNotFoundError: ")


def test_help_documents_allow_import(capsys):
    with pytest.raises(SystemExit):
        main(["family", "--help"])
    assert "--allow-import" in capsys.readouterr().out


def test_a_random_map_is_refused_without_a_seed(capsys):
    err = refused(["--env", "FrozenLake-v1", "--env-arg", "map_name=null"], capsys)
    assert err.startswith("error: --env FrozenLake-v1 --env-arg map_name=null: a random map "
                          "differs from run to run; --seed N fixes it")


def test_a_seeded_random_map_is_gymnasiums_map_of_that_seed_named_with_it(tmp_path):
    written = []
    for run in range(2):
        out = tmp_path / f"{run}.json"
        assert main(["family", "gymnasium", "--env", "FrozenLake-v1", "--env-arg",
                     "map_name=null", "--env-arg", "is_slippery=false", "--seed", "3",
                     "--horizon", "14", "--out", str(out)]) == 0
        written.append(out.read_text())
    assert written[0] == written[1]
    name = "FrozenLake-v1(map_name=None, is_slippery=False, seed=3)-H14"
    assert json.loads(written[0])["name"] == name
    lake = gymnasium.make("FrozenLake-v1", map_name=None, is_slippery=False,
                          desc=generate_random_map(seed=3))
    assert to_spec(load_spec(tmp_path / "0.json")) == to_spec(
        from_gymnasium(lake, horizon=14, name=name))
    # another seed, another map (and the deterministic lake shows it within 14 steps)
    other = gymnasium.make("FrozenLake-v1", map_name=None, is_slippery=False,
                           desc=generate_random_map(seed=4))
    assert to_spec(from_gymnasium(other, horizon=14, name=name)) != to_spec(
        load_spec(tmp_path / "0.json"))


@pytest.mark.parametrize("arguments", [
    ["--env", "FrozenLake-v1"], ["--env", "Taxi-v4"],
    ["--env", "FrozenLake-v1", "--env-arg", "map_name=null", "--env-arg", 'desc=["SG"]']])
def test_a_seed_where_nothing_is_random_is_refused(arguments, capsys):
    err = refused([*arguments, "--seed", "3"], capsys)
    assert err.startswith("error: --seed 3: ") and "draws nothing at random" in err


def test_a_horizon_too_large_for_memory_is_refused_at_once(capsys):
    err = refused(["--env", "FrozenLake-v1", "--horizon", "100000000"], capsys)
    assert err.startswith("error: FrozenLake-v1(map_name='4x4')-H100000000 (horizon=100000000: "
                          "about 21,199,999,424 states, rewards and transitions) would need "
                          "about 46.3 TiB of memory; this machine has ")
