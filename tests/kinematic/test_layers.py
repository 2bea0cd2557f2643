"""One layer convention: layer numbers count from 1 (the paper's ``h``), array accessors take a
0-based position named ``index``; anything out of range names the valid range."""

import pytest

from kinematic import UnknownLayer, combination_lock

LOCK = combination_lock(horizon=3, actions=2, seed=0)


@pytest.mark.parametrize("accessor", ["width", "transition_tensor", "emission_matrix",
                                      "observation_transition_tensor"])
def test_a_negative_position_is_refused_naming_the_range(accessor):
    with pytest.raises(UnknownLayer) as error:
        getattr(LOCK, accessor)(-1)
    assert str(error.value) == ("index -1 is out of range: positions run 0..2 (layer h of the "
                                "paper is position h - 1)")


@pytest.mark.parametrize("accessor", ["width", "emission_matrix"])
def test_the_horizon_is_one_past_the_last_position(accessor):
    with pytest.raises(UnknownLayer, match=r"^index 3 is out of range: positions run 0\.\.2 "):
        getattr(LOCK, accessor)(3)


@pytest.mark.parametrize("accessor", ["transition_tensor", "observation_transition_tensor"])
def test_the_last_position_has_no_transitions(accessor):
    with pytest.raises(UnknownLayer) as error:
        getattr(LOCK, accessor)(2)
    assert str(error.value) == ("index 2 is the last layer (layer 3): it has no transitions; "
                                "positions with transitions run 0..1")


@pytest.mark.parametrize("index", [1.0, True, "1"])
def test_a_position_must_be_an_int(index):
    with pytest.raises(UnknownLayer, match=r"^index must be an int, got "):
        LOCK.width(index)


def test_accessors_take_their_position_as_index():
    assert LOCK.width(index=2) == 3
    assert LOCK.transition_tensor(index=1).shape == (3, 2, 3)
    assert LOCK.emission_matrix(index=0).shape == (2, 2)
    assert LOCK.observation_transition_tensor(index=1).shape == (3, 2, 3)
