"""The combination lock with exogenous noise bits (``exogenous_combination_lock``), checked
against the rules of the authors' later library written out here (microsoft/Intrepid,
``temporal_diabcombolock.py``: ``start`` draws each bit as a fair coin, ``transition`` XORs the
bits with ``Ber(exo_flip_prob)`` draws at every step whatever the action, ``make_obs`` writes
the bits into every observation, ``reward`` reads the endogenous state only), not against the
family; and ``python -m kinematic family combolock --exogenous-bits``."""

import json
from fractions import Fraction
from itertools import product

import pytest

from kinematic import TooLarge, endogenous_partition, eta, eta_min, load_exogenous_spec
from kinematic.cli import main
from kinematic.exogenous import SEPARATOR
from kinematic.families import combination_lock, exogenous_combination_lock
from kinematic.inseparability import ki_partition
from kinematic.planning import optimal_values
from kinematic.spec import dumps_spec

LOCKS = [(1, 2, 0, 1, "1/10"), (3, 2, 0, 1, "1/10"), (3, 3, 1, 2, "1/10"),
         (4, 2, 2, 2, "1/2"), (3, 2, 0, 3, "1/3"), (3, 2, 0, 2, "0"), (2, 3, 0, 2, "1")]
"""(H, K, seed, bits, flip) of the locks checked: Intrepid's 1/10, i.i.d. bits (1/2), bits that
never flip (0) and always flip (1)."""


def split(name: str) -> tuple[str, str]:
    """A product name ``"s2a|0101"`` as ``("s2a", "0101")``."""
    state, separator, bits = name.rpartition(SEPARATOR)
    assert separator and bits and set(bits) <= {"0", "1"}, name
    return state, bits


def fair_bits(bits: str) -> Fraction:
    """Intrepid's ``start``: ``rng.binomial(1, 0.5, (exo_dim,))``, each bit a fair coin."""
    return Fraction(1, 2) ** len(bits)


def independent_flips(before: str, after: str, flip: Fraction) -> Fraction:
    """Intrepid's ``transition``: ``x[2] ^ rng.binomial(1, exo_flip_prob, (exo_dim,))``, each
    bit flipped on its own with probability ``flip``."""
    chance = Fraction(1)
    for b, a in zip(before, after, strict=True):
        chance *= flip if a != b else 1 - flip
    return chance


@pytest.mark.parametrize(("horizon", "actions", "seed", "bits", "flip"), LOCKS)
def test_the_start_is_the_lock_s_times_fair_bits(horizon, actions, seed, bits, flip):
    noisy = exogenous_combination_lock(horizon, actions, seed, bits, flip).mdp
    lock = combination_lock(horizon, actions, seed)
    start = dict(zip(lock.layers[0], lock.start, strict=True))
    assert len(noisy.layers[0]) == len(lock.layers[0]) * 2 ** bits
    for z, p in zip(noisy.layers[0], noisy.start, strict=True):
        state, value = split(z)
        assert p == start[state] * fair_bits(value), z


@pytest.mark.parametrize(("horizon", "actions", "seed", "bits", "flip"), LOCKS)
def test_every_step_is_the_lock_s_step_times_independent_flips(horizon, actions, seed, bits,
                                                               flip):
    noisy = exogenous_combination_lock(horizon, actions, seed, bits, flip).mdp
    lock = combination_lock(horizon, actions, seed)
    for h in range(horizon - 1):
        tensor, endogenous = noisy.transition_tensor(h), lock.transition_tensor(h)
        for i, z in enumerate(noisy.layers[h]):
            state, value = split(z)
            s = lock.layers[h].index(state)
            for a in range(actions):
                for j, z2 in enumerate(noisy.layers[h + 1]):
                    state2, value2 = split(z2)
                    s2 = lock.layers[h + 1].index(state2)
                    assert tensor[i, a, j] == endogenous[s, a, s2] * independent_flips(
                        value, value2, Fraction(flip)), (z, a, z2)


@pytest.mark.parametrize("flip", ["1/10", "1/3"])
def test_each_bit_flips_with_probability_flip_whatever_the_state_and_action(flip):
    noisy = exogenous_combination_lock(3, 3, 0, 3, flip).mdp
    tensor = noisy.transition_tensor(1)
    for i, z in enumerate(noisy.layers[1]):
        for a in range(3):
            for bit in range(3):
                flipped = sum(tensor[i, a, j] for j, z2 in enumerate(noisy.layers[2])
                              if split(z2)[1][bit] != split(z)[1][bit])
                assert flipped == Fraction(flip), (z, a, bit)


@pytest.mark.parametrize(("horizon", "actions", "seed", "bits", "flip"), LOCKS)
def test_every_observation_carries_the_bits_of_its_state(horizon, actions, seed, bits, flip):
    noisy = exogenous_combination_lock(horizon, actions, seed, bits, flip).mdp
    for state in noisy.states:
        assert noisy.observations_of(state) == {state: 1}
        assert len(split(state)[1]) == bits


@pytest.mark.parametrize("variant", ["paper", "released"])
def test_rewards_read_the_endogenous_state_and_the_action_only(variant):
    noisy = exogenous_combination_lock(3, 3, 1, 2, variant=variant).mdp
    lock = combination_lock(3, 3, 1, variant=variant)
    for h, observations in enumerate(noisy.observations):
        for x, observation in enumerate(observations):
            endogenous = lock.observations[h].index(split(observation)[0])
            assert noisy.rewards[h][x].tolist() == lock.rewards[h][endogenous].tolist()
            for a in range(3):
                assert noisy.reward_distributions.get((h, x, a)) == \
                    lock.reward_distributions.get((h, endogenous, a)), (observation, a)


@pytest.mark.parametrize(("horizon", "actions", "seed", "bits", "flip"), LOCKS)
def test_the_bits_stay_uniform_so_eta_is_the_lock_s_over_two_to_the_k(horizon, actions, seed,
                                                                      bits, flip):
    model = exogenous_combination_lock(horizon, actions, seed, bits, flip)
    lock_eta = eta(model.endogenous).by_state
    for z, value in eta(model.mdp).by_state.items():
        assert value == lock_eta[split(z)[0]] / 2 ** bits, z
    assert eta_min(model.mdp) == Fraction(1, 2 ** (bits + 1))


def test_the_endogenous_part_is_the_lock_and_the_value_is_its_value():
    model = exogenous_combination_lock(4, 3, 2, 2, variant="released")
    assert dumps_spec(model.endogenous) == dumps_spec(combination_lock(4, 3, 2, "released"))
    assert optimal_values(model.mdp).value == Fraction(4)
    assert [len(endogenous_partition(model).blocks(h)) for h in (1, 2, 3, 4)] == [2, 3, 3, 3]


@pytest.mark.parametrize("bits", [1, 2])
def test_noise_with_memory_separates_every_bit_string_and_iid_noise_none(bits):
    lock_classes = [len(ki_partition(combination_lock(3, 2, 0)).blocks(h)) for h in (1, 2, 3)]
    remembered = exogenous_combination_lock(3, 2, 0, bits, "1/10").mdp
    iid = exogenous_combination_lock(3, 2, 0, bits, "1/2").mdp
    assert [len(ki_partition(remembered).blocks(h)) for h in (1, 2, 3)] == [
        n * 2 ** bits for n in lock_classes]
    assert [len(ki_partition(iid).blocks(h)) for h in (1, 2, 3)] == lock_classes


def test_names_say_bits_and_flip():
    assert exogenous_combination_lock(3, 2, 0, 2).mdp.name == "combolock-H3-K2-seed0-exo2-flip1/10"
    assert exogenous_combination_lock(3, 2, 0, 1, Fraction(1, 2), "released").mdp.name == (
        "combolock-released-H3-K2-seed0-exo1-flip1/2")
    assert [z for z in exogenous_combination_lock(2, 2, 0, 2).mdp.layers[0][:4]] == [
        f"s1a|{''.join(b)}" for b in product("01", repeat=2)]


@pytest.mark.parametrize(("arguments", "message"), [
    ({"bits": 0}, "bits must be an int >= 1 (the number of exogenous bits), got 0"),
    ({"bits": True}, "bits must be an int >= 1 (the number of exogenous bits), got True"),
    ({"flip": 0.1}, "flip must be exact ('1/10', Fraction(1, 10)), not the float 0.1"),
    ({"flip": "11/10"}, "flip must lie in [0, 1], got 11/10"),
    ({"flip": "a"}, "flip: 'a' is not a number"),
    ({"variant": "text"}, "variant must be one of paper, released, got 'text'"),
])
def test_bad_arguments_are_refused_naming_them(arguments, message):
    with pytest.raises(ValueError) as error:
        exogenous_combination_lock(**{"horizon": 3, "actions": 2, "seed": 0, "bits": 1,
                                      **arguments})
    assert str(error.value).startswith(message)


def test_a_lock_too_large_for_memory_is_refused_before_any_work():
    with pytest.raises(TooLarge, match=r"exogenous_combination_lock\(horizon=10, actions=10, "
                                       r"bits=30\) would need about"):
        exogenous_combination_lock(10, 10, 0, 30)


def test_family_combolock_writes_the_exogenous_lock(tmp_path, capsys):
    out = tmp_path / "exo.json"
    assert main(["family", "combolock", "--horizon", "3", "--actions", "2", "--seed", "1",
                 "--exogenous-bits", "2", "--flip", "0.25", "--lock-variant", "released",
                 "--out", str(out)]) == 0
    expected = exogenous_combination_lock(3, 2, 1, 2, "1/4", "released")
    written = load_exogenous_spec(out)  # the compact form: the lock and the chain
    assert dumps_spec(written.mdp) == dumps_spec(expected.mdp)
    assert written.chain == expected.chain and written.parts == expected.parts
    assert set(json.loads(out.read_text())) == {"name", "endogenous", "exogenous"}
    assert main(["family", "combolock", "--horizon", "2", "--exogenous-bits", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "combolock-H2-K10-seed0-exo1-flip1/10"


@pytest.mark.parametrize(("argv", "message"), [
    (["combolock", "--exogenous-bits", "0"],
     "argument --exogenous-bits: must be an int >= 1, got '0'"),
    (["combolock", "--exogenous-bits", "1", "--flip", "2"],
     "argument --flip: must be a probability in [0, 1], got '2'"),
    (["combolock", "--exogenous-bits", "1", "--flip", "x"], "argument --flip: 'x' is not a number"),
    (["combolock", "--flip", "1/3"], "error: --flip applies with --exogenous-bits only"),
    (["figure2", "--exogenous-bits", "1"],
     "error: --exogenous-bits applies to family combolock only, not to family figure2"),
    (["gymnasium", "--env", "FrozenLake-v1", "--exogenous-bits", "1", "--flip", "0"],
     "error: --exogenous-bits applies to family combolock only, not to family gymnasium"),
])
def test_family_flags_are_refused_naming_the_flag(argv, message, capsys):
    try:
        status = main(["family", *argv])
    except SystemExit as stop:
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()[-1]) < 200, err
