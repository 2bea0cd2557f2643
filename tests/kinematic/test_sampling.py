import numpy as np
import pytest
import scipy.sparse as sp

from kinematic.families import combination_lock, random_exact_mdp, random_sparse_mdp
from kinematic.sampling import LatentSampler, categorical

MDPS = [random_sparse_mdp(4, 30, 3, 4, seed=1), random_exact_mdp(4, 5, 2, 2, seed=2),
        combination_lock(4, 3, 0)]


def test_the_sampler_of_a_float_mode_mdp_holds_no_dense_table():
    # A dense copy of every layer up front is (layers x states x actions x states) floats.
    latent = LatentSampler(random_sparse_mdp(5, 40, 3, 2, seed=0))
    assert all(sp.issparse(table) for table in latent.transitions)
    assert all(probabilities.ndim == 1 for probabilities in latent.emission_probabilities)


@pytest.mark.parametrize("mdp", MDPS, ids=["sparse", "exact", "lock"])
def test_the_sampler_draws_what_the_dense_tables_draw(mdp):
    latent, rng, reference = LatentSampler(mdp), np.random.default_rng(4), np.random.default_rng(4)
    states = latent.start(50, rng)
    assert np.array_equal(states, categorical(
        np.tile(np.asarray(mdp.start, dtype=float), (50, 1)), reference))
    for h in range(mdp.horizon - 1):
        emission = np.asarray(mdp.emission_matrix(h), dtype=float)
        assert np.array_equal(latent.emit(h, states, rng), categorical(emission[states], reference))
        actions = rng.integers(mdp.number_of_actions, size=50)
        reference.integers(mdp.number_of_actions, size=50)
        transitions = mdp.transitions[h]
        dense = np.asarray(transitions.toarray() if sp.issparse(transitions) else transitions,
                           dtype=float)
        following = latent.step(h, states, actions, rng)
        assert np.array_equal(following, categorical(
            dense[states * mdp.number_of_actions + actions], reference))
        states = following
