"""The four tabular exogenous MDPs of Levine, Stone and Zhang (2024, "Multistep Inverse Is Not
All You Need", the ACDF paper), rebuilt exactly from their code (``midi-lab/acdf``,
``numerical_experiments/numerical_experiments.py``: ``control_example``, ``periodic_example``,
``single_prime_loop``, ``double_prime_loop``) as layered Block MDPs, each with its declared
factorisation (an :class:`~kinematic.exogenous.ExogenousBlockMDP`).

Each has 10 observations ``o = 0 .. 9`` (the observation is the state), 2 actions, and reads
``o`` as an endogenous state ``o % 5`` and a noise bit ``o // 5``. In the first three the
endogenous state moves deterministically by a table of ``(state, action)`` and the bit flips
with probability 1/4 at every step whatever the action (``(noise + Bernoulli(1/4)) % 2``): 5
endogenous x 2 exogenous states. ``double_prime_loop`` has no noise: two loops of 5 states,
``o -> (o + 1) % 5 + 5 (o // 5)``, joined by action 1 at ``o = 0`` (to 8) and ``o = 5`` (to 3),
so the bit is controlled and the endogenous state is all of ``o`` (the code's ground truth is
the 10 singletons, that of the other three the pairs ``{o, o + 5}``).

The code's environments run for one long trajectory from a uniform start, with uniformly random
actions and no rewards (the paper learns representations, not policies). Here each is unrolled
into ``horizon`` layers of the same 10 states: the start is the code's (uniform over the 10
observations, which is the product of uniform over the 5 endogenous states and over the bit),
every step has the code's transition table, and the rewards are 0. The state of layer ``h`` for
observation ``o`` is named ``f"{o % 5}@{h}|{o // 5}"`` (endogenous ``"{o % 5}@{h}"``, exogenous
value ``"{o // 5}"``); ``double_prime_loop``'s are ``f"{o}@{h}|-"``, with one exogenous value
``"-"``.

What the unrolling changes, as :func:`kinematic.exogenous_search.endogenous_factorisations`
finds exactly (``tests/kinematic/test_exogenous_examples.py``):

- layer 1 has no past. In ``periodic_example`` the states 2 and 4 have the same future (both
  move to 0 whatever the action), and only their past (1 before 2, 3 before 4) tells them
  apart; at layer 1 the bits of 2 and 4 can therefore be paired crosswise (``{2|0, 4|1}``,
  ``{2|1, 4|0}``), a second coarsest endogenous partition beside the declared one, at every
  horizon;
- a short horizon hides ``double_prime_loop``'s obstruction. Its unrolling to ``H <= 5``
  layers factorises as 5 endogenous states ``o % 5`` times a deterministic exogenous bit
  ``o // 5 xor g_h(o % 5)``: action 1 at 0 flips the loop bit, and a layer-dependent relabelling
  ``g_h`` absorbs the flip if ``g_h(0) != g_h(2)`` at every step. As ``g_{h+1}`` is ``g_h``
  moved one place along the loop, these constraints, carried back to layer 1, walk around the
  odd cycle ``0 - 2 - 4 - 1 - 3 - 0`` of ``g_1``'s values, one edge per step, and 5 steps close
  it: no relabelling meets them all. So the default horizon is 6, the smallest at which each
  example's declared endogenous partition is among its coarsest (the only one but in
  ``periodic_example``).

>>> model = acdf_periodic_example(horizon=3)
>>> model  # doctest: +NORMALIZE_WHITESPACE
<ExogenousBlockMDP 'acdf-periodic_example-H3': 30 states = endogenous 5/5/5 x exogenous 2/2/2
 per layer>
>>> model.parts["3@2|1"]
('3@2', '1')
"""

from __future__ import annotations

from collections.abc import Callable

from kinematic.exogenous import ExogenousBlockMDP, exogenous_block_mdp, exogenous_chain
from kinematic.model import block_mdp

__all__ = ["ACDF_EXAMPLES", "acdf_control_example", "acdf_double_prime_loop",
           "acdf_periodic_example", "acdf_single_prime_loop"]

ACTIONS = ("0", "1")
"""ACDF's two actions, named by their index in the code."""

HORIZON = 6
"""The default number of layers (module docstring: the smallest at which the double prime loop
does not factorise)."""

FLIP = "1/4"
"""The probability that the noise bit flips at a step (``torch.bernoulli(... * 0.25)``)."""

_NEXT = dict[tuple[int, str], int]


def _table(rule: Callable[[int, int], int], states: int) -> _NEXT:
    return {(s, action): rule(s, int(action)) for s in range(states) for action in ACTIONS}


def _control(s: int, a: int) -> int:
    # control_example: next_state[actions == a, states_denoised == s]
    return ((4, 0), (1, 4), (0, 1), (2, 1), (4, 3))[s][a]


def _periodic(s: int, a: int) -> int:
    # periodic_example: 0 -> 1 or 3 by the action; 1 -> 2, 2 -> 0, 3 -> 4, 4 -> 0
    return (1, 3)[a] if s == 0 else {1: 2, 2: 0, 3: 4, 4: 0}[s]


def _single_prime(s: int, a: int) -> int:
    # single_prime_loop: (s + 1) % 5, but action 1 at 0 leads to 3
    return 3 if (s, a) == (0, 1) else (s + 1) % 5


def _double_prime(o: int, a: int) -> int:
    # double_prime_loop: (o + 1) % 5 + 5 (o // 5), but action 1 at 0 leads to 8 and at 5 to 3
    return {(0, 1): 8, (5, 1): 3}.get((o, a), (o + 1) % 5 + 5 * (o // 5))


def _unrolled(name: str, table: _NEXT, states: int, horizon: int, noise: bool
              ) -> ExogenousBlockMDP:
    """``table`` (deterministic moves of the endogenous state) unrolled to ``horizon`` layers,
    times the flipping bit (``noise``) or a single exogenous value."""
    layers = [[f"{s}@{h}" for s in range(states)] for h in range(1, horizon + 1)]
    transitions = {f"{s}@{h}": {action: {f"{table[s, action]}@{h + 1}": 1}
                                for action in ACTIONS}
                   for h in range(1, horizon) for s in range(states)}
    endogenous = block_mdp(f"acdf-{name}-H{horizon}", layers, ACTIONS,
                           {state: f"1/{states}" for state in layers[0]}, transitions)
    if noise:
        stay = "3/4"
        chain = exogenous_chain(["0", "1"], {"0": "1/2", "1": "1/2"},
                                {"0": {"0": stay, "1": FLIP}, "1": {"0": FLIP, "1": stay}},
                                horizon=horizon)
    else:
        chain = exogenous_chain(["-"], {"-": 1}, {"-": {"-": 1}}, horizon=horizon)
    return exogenous_block_mdp(endogenous, chain, name=f"acdf-{name}-H{horizon}")


def acdf_control_example(horizon: int = HORIZON) -> ExogenousBlockMDP:
    """ACDF's ``control_example``: endogenous moves ``0 -> 4 | 0``, ``1 -> 1 | 4``,
    ``2 -> 0 | 1``, ``3 -> 2 | 1``, ``4 -> 4 | 3`` (action 0 | action 1), the noise bit flipping
    with probability 1/4 (module docstring)."""
    return _unrolled("control_example", _table(_control, 5), 5, horizon, noise=True)


def acdf_periodic_example(horizon: int = HORIZON) -> ExogenousBlockMDP:
    """ACDF's ``periodic_example``: ``0 -> 1 | 3`` (action 0 | action 1), then ``1 -> 2 -> 0``
    and ``3 -> 4 -> 0`` whatever the action, the noise bit flipping with probability 1/4."""
    return _unrolled("periodic_example", _table(_periodic, 5), 5, horizon, noise=True)


def acdf_single_prime_loop(horizon: int = HORIZON) -> ExogenousBlockMDP:
    """ACDF's ``single_prime_loop``: ``s -> (s + 1) % 5`` except action 1 at 0, which leads
    to 3 (loops of 5 and of 3), the noise bit flipping with probability 1/4."""
    return _unrolled("single_prime_loop", _table(_single_prime, 5), 5, horizon, noise=True)


def acdf_double_prime_loop(horizon: int = HORIZON) -> ExogenousBlockMDP:
    """ACDF's ``double_prime_loop``: two loops ``o -> (o + 1) % 5 + 5 (o // 5)`` over
    ``0 .. 4`` and ``5 .. 9``, action 1 at 0 leading to 8 and at 5 to 3; no noise, so the
    declared factorisation is the trivial one (10 endogenous states, one exogenous value ``"-"``),
    as the code's ground truth (ten singletons)."""
    return _unrolled("double_prime_loop", _table(_double_prime, 10), 10, horizon, noise=False)


ACDF_EXAMPLES: dict[str, Callable[[int], ExogenousBlockMDP]] = {
    "control_example": acdf_control_example,
    "periodic_example": acdf_periodic_example,
    "single_prime_loop": acdf_single_prime_loop,
    "double_prime_loop": acdf_double_prime_loop,
}
"""The four, by the name of their function in ACDF's code."""
