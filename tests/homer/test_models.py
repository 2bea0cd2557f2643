"""The contrastive models: training recovers the kinematic abstractions of a layer whose exact
answer is known, quantisation keeps the pre-trained model, and ensemble members train exactly
as they would alone."""

import copy
import warnings

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from homer.config import HomerConfig
from homer.encoders import HadamardNoise
from homer.evaluate import compare_classes
from homer.models import ContrastiveEnsemble, train_contrastive
from kinematic.families import combination_lock, combination_lock_good_actions
from kinematic.inseparability import backward_ki_partition, forward_ki_partition
from kinematic.sampling import categorical

ACTIONS = 10


def lock_transitions(mdp, layer, n, rng):
    """``n`` transitions from ``layer`` rolled in as HOMER's cover does on the lock (the
    good-state policy and the bad-state policy, each half of the time), then a uniform action:
    the actions and the encodings of both observations."""
    roll_in = np.array([0.25, 0.25, 0.5]) if mdp.width(layer) == 3 else np.array([0.5, 0.5])
    states = rng.choice(mdp.width(layer), size=n, p=roll_in)
    actions = rng.integers(ACTIONS, size=n)
    rows = np.asarray(mdp.transitions[layer], dtype=float)  # exact: dense Fractions
    following = categorical(rows[states * ACTIONS + actions], rng)
    encoder = HadamardNoise()
    return (actions, encoder.encode(mdp, layer, states, rng),
            encoder.encode(mdp, layer + 1, following, rng))


def wrong_merges(abstraction, partition, mdp, layer, rng) -> int:
    """Pairs of distinct exact blocks of ``layer`` that ``abstraction`` merges
    (:func:`homer.evaluate.compare_classes`, 200 encodings per observation)."""
    ids = np.repeat(np.arange(len(mdp.observations[layer])), 200)
    learned = abstraction.classes(HadamardNoise().encode(mdp, layer, ids, rng))
    return compare_classes(mdp, layer + 1, partition.kind, partition.blocks(layer + 1), ids,
                           learned).wrong_merges


@pytest.mark.parametrize("seed", [0, 1])
def test_training_recovers_both_kinematic_abstractions_of_a_lock_layer(seed):
    # Layer 3 (0-based) of this lock has u != v, so s4a, s4b, s4c are three forward-KI
    # classes; the next layer has two backward-KI classes, {s5a, s5b} and {s5c}. About 2.5%
    # of the transitions tell s4a from s4b going forward.
    mdp, layer = combination_lock(6, ACTIONS, seed=seed), 3
    u, v = combination_lock_good_actions(6, ACTIONS, seed=seed)
    assert u[layer] != v[layer]
    rng = np.random.default_rng(seed)
    actions, x, x_next = lock_transitions(mdp, layer, 2000, rng)
    backward, forward = train_contrastive(x, actions, x_next, ACTIONS, [True, False],
                                          HomerConfig(), torch.Generator().manual_seed(seed))
    forward_ki, backward_ki = forward_ki_partition(mdp), backward_ki_partition(mdp)
    assert len(forward_ki.blocks(layer + 1)) == 3
    assert len(backward_ki.blocks(layer + 2)) == 2
    assert wrong_merges(forward.abstraction, forward_ki, mdp, layer, rng) == 0
    assert wrong_merges(backward.abstraction, backward_ki, mdp, layer + 1, rng) == 0


def small_ensemble(backward, seed=0, **fields):
    config = HomerConfig(pretraining_width=4, hidden=8, **fields)
    return ContrastiveEnsemble(6, 3, backward, config, torch.Generator().manual_seed(seed))


def clustered_inputs(seed=0, n=300):
    """Observations around three well separated points of R^6, actions and next observations."""
    generator = torch.Generator().manual_seed(seed)
    centres = torch.eye(6)[:3] * 4
    x = centres[torch.randint(3, (n,), generator=generator)] + 0.1 * torch.randn(
        n, 6, generator=generator)
    x_next = centres[torch.randint(3, (n,), generator=generator)] + 0.1 * torch.randn(
        n, 6, generator=generator)
    actions = F.one_hot(torch.randint(3, (n,), generator=generator), 3).float()
    return x, actions, x_next


def test_quantisation_starts_the_discrete_model_where_pretraining_ended():
    ensemble = small_ensemble([True, False])
    x, actions, x_next = clustered_inputs()
    before = copy.deepcopy(ensemble)
    ensemble.quantise(x, actions, x_next, torch.Generator().manual_seed(1))
    for member, (side, data) in enumerate([("next", x_next), ("x", x)]):
        # The abstraction is the nearest-centre rule of the pre-trained embedding: each class
        # is the set of points closest to its mean, and the three input clusters stay apart.
        weight = getattr(before, f"{side}_weight")[member]
        bias = getattr(before, f"{side}_bias")[member]
        embedding = (data @ weight + bias).detach()
        classes = torch.from_numpy(ensemble.abstraction(member).classes(data.numpy()))
        assert len(classes.unique()) == ensemble.classes[member]
        means = torch.stack([embedding[classes == k].mean(0)
                             for k in range(ensemble.classes[member])])
        assert torch.equal(torch.cdist(embedding, means).argmin(dim=1), classes)
    # The discretised model equals the pre-trained one with each embedding replaced by the
    # centre of its class.
    with torch.no_grad():
        hard = ensemble(x, actions, x_next, "hard")
        for member, (side, data) in enumerate([("next", x_next), ("x", x)]):
            weight = getattr(before, f"{side}_weight")[member]
            bias = getattr(before, f"{side}_bias")[member]
            embedding = data @ weight + bias
            classes = torch.from_numpy(ensemble.abstraction(member).classes(data.numpy()))
            centres = torch.stack([embedding[classes == k].mean(0) for k in range(
                ensemble.classes[member])])
            u = before.x_bias[member] + x @ before.x_weight[member]
            v = before.next_bias[member] + x_next @ before.next_weight[member]
            if side == "next":
                v = centres[classes]
            else:
                u = centres[classes]
            hidden = F.leaky_relu(torch.cat([u, actions, v], dim=1) @ before.hidden_weight[
                member] + before.hidden_bias[member])
            expected = hidden @ before.output_weight[member] + before.output_bias[member]
            assert torch.allclose(hard[member], expected, atol=1e-4)


def test_ensemble_members_train_exactly_as_they_would_alone():
    # Pre-training (no bottleneck noise): a member of a three-member ensemble and a one-member
    # copy of it, given the same mini-batches, end with the same parameters.
    ensemble = small_ensemble([True, False, False])
    alone = small_ensemble([False], seed=5)
    with torch.no_grad():
        for together, single in zip(ensemble.parameters(), alone.parameters(), strict=True):
            single.copy_(together[1:2])
    x, actions, x_next = clustered_inputs()
    labels = torch.randint(2, (len(x),), generator=torch.Generator().manual_seed(2))
    optimisers = [torch.optim.Adam(model.parameters(), lr=1e-2, fused=True)
                  for model in (ensemble, alone)]
    for step in range(20):
        batch = slice(15 * step, 15 * step + 15)
        for model, optimiser in zip((ensemble, alone), optimisers, strict=True):
            logits = model(x[batch], actions[batch], x_next[batch], "continuous")
            members = logits.shape[0]
            loss = F.cross_entropy(logits.reshape(-1, 2), labels[batch].repeat(members),
                                   reduction="none").view(members, -1).mean(dim=1).sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    for (name, together), (_, single) in zip(ensemble.named_parameters(),
                                             alone.named_parameters(), strict=True):
        assert torch.allclose(together[1:2], single, atol=1e-5), name


def test_quantisation_of_fewer_distinct_observations_than_classes_is_quiet_and_consistent():
    # A noiseless encoder on a layer with two observations and M = 3 classes.
    ensemble = small_ensemble([False])
    x = torch.eye(6)[torch.tensor([0, 1] * 50)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ensemble.quantise(x, None, x, torch.Generator().manual_seed(0))
    classes = ensemble.abstraction(0).classes(x.numpy())
    assert len(set(classes[::2])) == len(set(classes[1::2])) == 1
    assert classes[0] != classes[1]
