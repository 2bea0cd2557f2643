"""The paper's counterexample MDPs, rebuilt from its text (the figures are not in the source):

- :func:`figure1_noncompositional`: homing policies are not compositional (Figure
  ``fig:mdp-example-left``, ``prop:comp-homing``);
- :func:`curiosity_counterexample`: curiosity / inverse dynamics, PCID's target and
  bisimulation miss a state (Figure ``fig:simon-deepak-counterexample``, Section 5);
- :func:`pcid_chain`: PCID's model-based cover (Figure ``fig:simon-alg-counterexample``);
- :func:`autoencoder_counterexample` and, inside HOMER's loop,
  :func:`autoencoder_exploration_counterexample`: an autoencoder's abstraction (Figure
  ``fig:autoencoder-counterexample``).

The claims they serve are checked by :mod:`kinematic.counterexamples` (and ``prop:comp-homing`` by
``proofs_checks``).

>>> from kinematic import eta
>>> [str(value) for value in eta(curiosity_counterexample())[2]]
['1', '1/2', '1']
"""

from __future__ import annotations

from fractions import Fraction

from kinematic.model import BlockMDP
from kinematic.numbers import parse_number
from kinematic.spec import from_spec

__all__ = [
    "autoencoder_counterexample",
    "autoencoder_exploration_counterexample",
    "curiosity_counterexample",
    "figure1_noncompositional",
    "pcid_chain",
]


def figure1_noncompositional() -> BlockMDP:
    """A Block MDP in which homing policies are not compositional (``prop:comp-homing``), rebuilt
    from the text of Figure ``fig:mdp-example-left``: the agent starts in ``s1`` with actions
    ``a1, a2, a3``; the homing policy of ``s5`` takes ``a1`` in ``s1`` and reaches ``s5`` with
    probability 1, while the homing policies of ``s2, s3, s4`` do not take ``a1``.

    ``a1`` leads to ``s2`` or ``s3`` (1/2 each), ``a2`` to ``s2`` (3/5) or ``s4`` (2/5), ``a3`` to
    ``s3`` (3/5) or ``s4`` (2/5); ``s2`` and ``s3`` always lead to ``s5``, ``s4`` always to
    ``s6``. So ``eta(s2) = eta(s3) = 3/5``, ``eta(s4) = 2/5`` (never through ``a1``), and
    ``eta(s5) = 1`` only through ``a1``: any mixture of the layer-2 homing policies followed by
    any action reaches ``s5`` with probability at most 3/5. (The figure itself is not in the
    source; ``s6`` and the numbers are ours.)
    """
    go: dict[str, dict[str, str]] = {"a1": {}, "a2": {}, "a3": {}}
    return from_spec(
        {
            "name": "figure1",
            "horizon": 3,
            "actions": list(go),
            "layers": [["s1"], ["s2", "s3", "s4"], ["s5", "s6"]],
            "start": {"s1": "1"},
            "transitions": {
                "s1": {
                    "a1": {"s2": "1/2", "s3": "1/2"},
                    "a2": {"s2": "3/5", "s4": "2/5"},
                    "a3": {"s3": "3/5", "s4": "2/5"},
                },
                "s2": {a: {"s5": "1"} for a in go},
                "s3": {a: {"s5": "1"} for a in go},
                "s4": {a: {"s6": "1"} for a in go},
            },
        }
    )


def curiosity_counterexample() -> BlockMDP:
    """The Block MDP of Figure ``fig:simon-deepak-counterexample`` (left), rebuilt from the text
    of Section 5 (the figure is not in the source; the layout is ours, chosen so that every
    sentence of the text holds).

    Start uniform over ``{s1, s2}``; actions ``a1, a2``. Only ``a1`` leads into ``{s3, s4}``
    (``s1 -> s3``, ``s2 -> s4``) and only ``a2`` into ``{s5, s6}`` (``s1 -> s5``,
    ``s2 -> s6``). Layer 3: ``s3 --a1--> s7`` and ``s6 --a2--> s7``; ``s4 --a1-->`` and
    ``s5 --a2-->`` reach ``s8`` with probability 1/2 (else ``s9``); every other move goes to
    ``s9``. So from each observation of layer 2 the previous action is perfectly predictable
    from ``{s7, s8}`` (the two are never reachable from the same state), the policy taking
    ``a1`` in ``s1`` and ``s3`` and ``a2`` in ``s2`` and ``s6`` reaches ``s7`` surely, and - the
    halved moves into ``s8`` - it is the *only* optimal policy for the class ``{s7, s8}``: the
    cover built from that class misses ``s8`` whatever tie-breaking PSDP uses.
    """
    half = {"s8": "1/2", "s9": "1/2"}
    return from_spec({
        "name": "curiosity-counterexample",
        "horizon": 3,
        "actions": ["a1", "a2"],
        "layers": [["s1", "s2"], ["s3", "s4", "s5", "s6"], ["s7", "s8", "s9"]],
        "start": {"s1": "1/2", "s2": "1/2"},
        "transitions": {
            "s1": {"a1": {"s3": "1"}, "a2": {"s5": "1"}},
            "s2": {"a1": {"s4": "1"}, "a2": {"s6": "1"}},
            "s3": {"a1": {"s7": "1"}, "a2": {"s9": "1"}},
            "s4": {"a1": half, "a2": {"s9": "1"}},
            "s5": {"a1": {"s9": "1"}, "a2": half},
            "s6": {"a1": {"s9": "1"}, "a2": {"s7": "1"}},
        },
    })


def pcid_chain(horizon: int) -> BlockMDP:
    """The Block MDP of Figure ``fig:simon-alg-counterexample`` (middle) for ``horizon = 2``, and
    its chained version, rebuilt from the text of Section 5.

    Layer 1: ``s1a, s1b`` with probability 1/2 each (a stochastic start). From ``s{h}a``, action
    ``a1`` (from ``s{h}b``, action ``a2``) moves uniformly to the good pair
    ``{s{h+1}a, s{h+1}b}``; the other action, and every action in ``s{h}c``, moves to
    ``s{h+1}c``. An observation policy stays in the good pair with probability 1; a policy that
    must act alike in ``s{h}a`` and ``s{h}b`` keeps only half of it at each step.
    """
    if horizon < 2:
        raise ValueError(f"the chain needs a horizon of at least 2, got {horizon}")
    layers = [["s1a", "s1b"]] + [[f"s{h}a", f"s{h}b", f"s{h}c"] for h in range(2, horizon + 1)]
    transitions: dict[str, dict[str, dict[str, str]]] = {}
    for h in range(1, horizon):
        good = {f"s{h + 1}a": "1/2", f"s{h + 1}b": "1/2"}
        bad = {f"s{h + 1}c": "1"}
        transitions[f"s{h}a"] = {"a1": good, "a2": bad}
        transitions[f"s{h}b"] = {"a1": bad, "a2": good}
        if h > 1:
            transitions[f"s{h}c"] = {"a1": bad, "a2": bad}
    return from_spec({
        "name": f"pcid-chain-H{horizon}", "horizon": horizon, "actions": ["a1", "a2"],
        "layers": layers, "start": {"s1a": "1/2", "s1b": "1/2"}, "transitions": transitions,
    })


def autoencoder_counterexample(bits: int, first_state_probability: object) -> BlockMDP:
    """The Block MDP of Figure ``fig:autoencoder-counterexample`` (right), from the text of
    Section 5: two states ``s0``, ``s1`` (probabilities ``p`` and ``1 - p``, one layer, one
    action) whose observations are ``bits``-long binary strings: the first bit is the state, the
    others are independent ``Ber(1/2)`` noise."""
    if bits < 2:
        raise ValueError(f"the observations need at least 2 bits, got {bits}")
    p = Fraction(parse_number(first_state_probability, "first_state_probability"))
    if not 0 < p < 1:
        raise ValueError(f"first_state_probability must lie strictly between 0 and 1, got {p}")
    noise = [format(k, f"0{bits - 1}b") for k in range(2 ** (bits - 1))]
    share = str(Fraction(1, len(noise)))
    return from_spec({
        "name": f"autoencoder-d{bits}", "horizon": 1, "actions": ["a"],
        "layers": [["s0", "s1"]], "start": {"s0": str(p), "s1": str(1 - p)},
        "transitions": {},
        "emissions": {f"s{b}": {f"{b}{rest}": share for rest in noise} for b in (0, 1)},
    })


def autoencoder_exploration_counterexample(bits: int = 2, actions: int = 4) -> BlockMDP:
    """The autoencoder example inside HOMER's loop: one start state ``s``; action ``a1`` leads
    to ``s0``, the other ``actions - 1`` actions to ``s1``, whose observations are those of
    :func:`autoencoder_counterexample` (``bits``-long strings: the state bit, then noise). Data
    rolled in with uniform actions see ``s0`` with probability ``1 / actions``: the states are
    unequally likely, as the text's strict failure needs."""
    if actions < 2:
        raise ValueError(f"the example needs at least 2 actions, got {actions}")
    inner = autoencoder_counterexample(bits, Fraction(1, 2))
    names = [f"a{k}" for k in range(1, actions + 1)]
    return from_spec({
        "name": f"autoencoder-exploration-d{bits}", "horizon": 2, "actions": names,
        "layers": [["s"], ["s0", "s1"]], "start": {"s": "1"},
        "transitions": {"s": {a: {"s0" if a == "a1" else "s1": "1"} for a in names}},
        "emissions": {
            state: {inner.observations[0][x]: str(inner.emission_probability[0][x])
                    for x in range(len(inner.observations[0]))
                    if inner.layers[0][inner.emission_state[0][x]] == state}
            for state in ("s0", "s1")},
    })
