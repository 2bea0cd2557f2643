"""PPE, Predictive Path Elimination (Efroni, Misra, Krishnamurthy, Agarwal, Langford, ICLR 2022,
"Provably Filtering Exogenous Distractors using Multistep Inverse Dynamics", Section "Predictive
Path Elimination", algorithm PPE), run with exact population oracles, and its path-prediction
objective as an abstraction of one layer.

The algorithm, as the authors' code runs it (microsoft/Intrepid, ``src/learning/core_learner/
ppe.py``, class ``PPE``, method ``train``; layers 0-based here, step ``h`` of the code reaches
layer ``h``):

1. Candidate paths. Step ``h = 1 .. H - 1`` extends every open-loop path kept at step ``h - 1``
   (step 1: the empty path) by every action: the path of kept index ``p`` and action index ``a``
   gets id ``p K + a`` (``K`` actions), so there are ``N = K N_prev`` candidates, ``N_prev`` the
   number of paths kept at step ``h - 1`` (1 at step 1).
2. Data. Each candidate is rolled out ``num_samples // N`` times (an equal share, ``OpenLoopPolicy``
   of ``src/model/policy/open_loop.py``), and its observation ``x_h`` is labelled with its id.
3. Path prediction. A classifier ``f(j | x)`` of the path id is trained by the log loss;
   ``prob`` (``GenericTrainClassifier.get_class_mean_prob``) is the (dataset x N) matrix
   ``f(j | x_i) / n``.
4. Elimination. For ``i < j`` in id order, skipping ids already eliminated, ``j`` is eliminated
   into ``i`` when ``sum_i |prob[:, i] - prob[:, j]| < elim_param = 5 / (8 K N_prev)``: the
   comparison always uses the two paths' own columns, so the merging is greedy and not
   transitive. The kept ids, in increasing order, are the cover of step ``h`` and the previous
   paths of step ``h + 1``. (The code's log line reports ``N = len(path_map)``, which is
   ``K N_prev``; the value is computed from ``len(prev_paths) = N_prev``: ``elim_param = 5 /
   (8 K N_prev) = 5 / (8 N)``, the same number.)

**The exact merge rule.** With infinitely many samples, the dataset is the mixture ``M = (1/N)
sum_l P_l`` of the candidates' observation distributions ``P_l``, and the Bayes-optimal
classifier is ``f(j | x) = P_j(x) / sum_l P_l(x)`` (equal priors). The code's statistic tends to

    gap(i, j) = E_{x ~ M} |f(i | x) - f(j | x)|
              = sum_x (1/N) sum_l P_l(x) |P_i(x) - P_j(x)| / sum_l P_l(x)
              = (1/N) ||P_i - P_j||_1,

the ``L1`` distance of the two paths' observation distributions over ``N``. In a Block MDP
``P_j(x) = q(x | s) P_j(s)`` for the one state ``s`` that emits ``x``, so the distance is the one
of the state distributions: ``||P_i - P_j||_1 = sum_s |P_i(s) - P_j(s)|``. The rule ``gap < 5 /
(8 K N_prev)`` is therefore, as ``N = K N_prev``,

    j is eliminated into i  iff  ||P_i - P_j||_1 < 5/8   (total variation < 5/16),

the same constant at every step, independent of ``K`` and of how many paths were kept.
:func:`exact_ppe` computes ``gap`` from the exact posteriors on observations, as the definition
reads (not from the identity), and tests check the identity.

**Exogenous noise.** In an exogenous Block MDP (:mod:`kinematic.exogenous`: ``T((s', xi') | (s,
xi), a) = T_en(s' | s, a) T_ex(xi' | xi)``, ``mu = mu_en x mu_ex``) an open-loop path fixes its
actions in advance, so they depend on nothing exogenous: by induction over the steps, ``P_j(s_h,
xi_h) = P^en_j(s_h) P_ex(xi_h)``, every path giving the exogenous value the same marginal
``P_ex(xi_h)``. Hence ``||P_i - P_j||_1 = sum_{s, xi} |P^en_i(s) - P^en_j(s)| P_ex(xi) =
||P^en_i - P^en_j||_1``: every gap, hence every merge and every kept path, is the endogenous
MDP's. (A closed-loop roll-in would break this: its actions may read ``xi``.)

**What the theory assumes.** PPE's guarantee is for near-deterministic endogenous dynamics: there
a path reaches one state, distances are 0 or 2, and the rule keeps one path per reachable state.
With stochastic dynamics (the paper's combination lock, whose good actions move uniformly to
``s_{h+1}a`` or ``s_{h+1}b``) paths are mixtures; the rule can merge paths that reach different
states, and, not being transitive, its result depends on the order of the actions
(``docs/concepts/ppe.md`` gives a witness). :func:`open_loop_alpha`, the best alpha of any set
of open-loop paths, tells the two losses apart: what PPE's cover lacks below it, the elimination
lost; what it lacks of 1, no open-loop cover reaches.

**The objective.** PPE's path prediction, as an abstraction of layer ``h``'s observations, is the
level sets of the Bayes-optimal classifier's posterior over *all* ``N`` candidate paths: the
classifier is trained over every candidate, and Intrepid's ``PPEDecoder`` reads that posterior
(it returns ``argmax`` over the kept ids of ``f(i | x)``, not a sum over a kept path's group).
:func:`ppe_solution` returns the coarsest Bayes-optimal abstraction (its
:class:`~kinematic.counterexamples.objectives.ObjectiveSolution`), :attr:`PPEStep.decoder_labels`
the decoder's. Its data distribution is PPE's own (the candidates of :func:`exact_ppe`, equal
shares), not HOMER's roll-in: :func:`ppe_objective`, the :data:`~kinematic.counterexamples.
exploration.Objective` form, ignores the cover it is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from kinematic.counterexamples.objectives import ObjectiveSolution
from kinematic.counterexamples.predictive import predictive_solution
from kinematic.cover import policy_cover_alpha
from kinematic.display import name_text
from kinematic.homing import eta
from kinematic.model import BlockMDP
from kinematic.numbers import number_text
from kinematic.policies import Policy

__all__ = [
    "ELIMINATION_CONSTANT",
    "PPEResult",
    "PPEStep",
    "decoder_choice",
    "eliminate_paths",
    "exact_ppe",
    "open_loop_alpha",
    "open_loop_policy",
    "path_gaps",
    "path_groups",
    "ppe_objective",
    "ppe_solution",
]

ELIMINATION_CONSTANT = Fraction(5, 8)
"""The ``5/8`` of Intrepid's ``elim_param = 5 / (8 K N_prev)``: paths ``i < j`` merge when
``||P_i - P_j||_1`` is below it."""


@dataclass(frozen=True, eq=False)
class PPEStep:
    """One step of :func:`exact_ppe`: the candidate paths reaching ``layer`` and what PPE does
    with them.

    Attributes
    ----------
    layer : int
        The layer (0-based) the candidates reach; step ``layer`` of the algorithm.
    candidates : tuple of tuple of str
        The candidate paths in id order (id ``p K + a`` for kept path ``p`` of the previous step
        and action ``a``), as action names.
    distributions : ndarray
        ``(N, n_layer)`` exact state distribution ``P_j(s)`` of each candidate.
    observation_distributions : ndarray
        ``(N, m_layer)`` exact observation distribution ``P_j(x)`` of each candidate.
    gaps : ndarray
        ``(N, N)`` exact population value of the code's statistic, ``E_{x ~ M} |f(i|x) -
        f(j|x)|`` under the Bayes-optimal classifier ``f`` (symmetric, zero diagonal), for every
        pair, also those the greedy rule never compares.
    threshold : Fraction
        ``elim_param = c / (K N_prev)`` (``c = 5/8`` by default).
    merges : tuple of (int, int)
        ``(i, j)``: ``j`` eliminated into ``i``, in the order the code eliminates.
    kept : tuple of int
        The ids kept, increasing: the cover of this step.
    decoder_labels : ndarray of int
        Intrepid's ``PPEDecoder`` at the population optimum: each observation of ``layer`` ->
        the position in ``kept`` of the kept id with the largest ``f(i | x)`` (ties: the lowest
        id, as its strict ``>``); observations no candidate reaches -> 0.
    """

    layer: int
    candidates: tuple[tuple[str, ...], ...]
    distributions: np.ndarray
    observation_distributions: np.ndarray
    gaps: np.ndarray
    threshold: Fraction
    merges: tuple[tuple[int, int], ...]
    kept: tuple[int, ...]
    decoder_labels: np.ndarray

    def __repr__(self) -> str:
        merged = ", ".join(f"{j} into {i}" for i, j in self.merges) or "none"
        return (f"<PPEStep layer {self.layer + 1}: {len(self.candidates)} candidates, kept "
                f"{', '.join(map(str, self.kept))}; eliminated {merged}>")

    @property
    def distances(self) -> np.ndarray:
        """``(N, N)`` ``||P_i - P_j||_1 = N gap(i, j)``, compared with ``N threshold`` (5/8)."""
        return self.gaps * len(self.candidates)

    @property
    def groups(self) -> dict[int, tuple[int, ...]]:
        """Kept id -> the ids eliminated into it, itself first (the code's ``path_common``)."""
        return path_groups(self.merges, self.kept)

    @property
    def kept_paths(self) -> tuple[tuple[str, ...], ...]:
        """The kept candidates as action names."""
        return tuple(self.candidates[i] for i in self.kept)


@dataclass(frozen=True, eq=False)
class PPEResult:
    """Result of :func:`exact_ppe`.

    Attributes
    ----------
    mdp : BlockMDP
        The MDP PPE ran on.
    steps : tuple of PPEStep
        Steps ``1 .. H - 1``: ``steps[h - 1]`` reaches layer ``h`` (0-based).
    covers : tuple of tuple of Policy
        ``covers[h]``: one open-loop policy per kept path of layer ``h`` (:func:`open_loop_policy`);
        ``covers[0]`` is empty (layer 1 needs no policy, as ``Psi_1`` in the paper).
    alpha : tuple of Fraction
        The cover quality of ``covers[h]`` on layer ``h`` (``def:policy-cover``, exact); 1 on
        layer 1.
    """

    mdp: BlockMDP = field(repr=False)
    steps: tuple[PPEStep, ...]
    covers: tuple[tuple[Policy, ...], ...]
    alpha: tuple[Fraction, ...]

    def step(self, layer: int) -> PPEStep:
        """The step whose candidates reach ``layer`` (0-based, ``1 .. H - 1``)."""
        if not 1 <= layer < self.mdp.horizon:
            raise ValueError(f"layer must lie in 1..{self.mdp.horizon - 1}, got {layer}")
        return self.steps[layer - 1]

    def __str__(self) -> str:
        """Each step: the candidates (kept ones marked) with their state distributions, the
        distances ``||P_i - P_j||_1`` (a matrix up to 12 candidates, else the pairs below the
        threshold), the eliminations, and the cover's alpha on the layer."""
        mdp = self.mdp
        constant = self._constant()
        lines = [f"PPE with exact oracles on {mdp.name!r} (K = {mdp.number_of_actions}): path j "
                 f"is eliminated into a kept i < j when ||P_i - P_j||_1 < "
                 f"{number_text(constant)}"]
        for step in self.steps:
            n = len(step.candidates)
            lines.append(f"layer {step.layer + 1}: {n} candidate paths; Intrepid's elim_param "
                         f"= {number_text(step.threshold)} on gap = ||P_i - P_j||_1 / {n}")
            texts = [_path_text(path) for path in step.candidates]
            width = max(map(len, texts))
            for j, text in enumerate(texts):
                mass = ", ".join(f"{name_text(s)} {number_text(p)}" for s, p in
                                 zip(mdp.layers[step.layer], step.distributions[j], strict=True)
                                 if p)
                mark = "kept" if j in step.kept else "    "
                lines.append(f"  {mark} {j:>3} {text:<{width}}  {mass}")
            lines += _distance_lines(step.distances, constant)
            merged = [f"{j} into {i}" for i, j in step.merges]
            lines.append("  eliminated: " + (", ".join(merged) or "none"))
            lines.append(f"  cover alpha on layer {step.layer + 1}: "
                         f"{number_text(self.alpha[step.layer])}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        """One line: paths kept per layer and alpha (``print`` gives the whole report)."""
        kept = ", ".join(str(len(step.kept)) for step in self.steps)
        alpha = ", ".join(number_text(a) for a in self.alpha)
        return (f"<PPEResult on {self.mdp.name!r}: paths kept on layers 2..{self.mdp.horizon}: "
                f"{kept}; alpha per layer: {alpha}>")

    def _constant(self) -> Fraction:
        step = self.steps[0]
        return step.threshold * len(step.candidates)

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        """IPython shows a result as :meth:`__str__`."""
        printer.text(str(self))  # type: ignore[attr-defined]


def _path_text(path: tuple[str, ...]) -> str:
    return "(" + ", ".join(path) + ")"


MATRIX_LIMIT = 12
"""Up to this many candidates, :meth:`PPEResult.__str__` prints every distance as a matrix."""


def _distance_lines(distances: np.ndarray, constant: Fraction) -> list[str]:
    """The distances as an upper-triangular matrix (``*`` below ``constant``), or, for many
    candidates, the pairs below ``constant``."""
    n = distances.shape[0]
    if n > MATRIX_LIMIT:
        close = [f"{i}-{j}: {number_text(distances[i, j])}" for i in range(n)
                 for j in range(i + 1, n) if distances[i, j] < constant]
        return ["  pairs with ||P_i - P_j||_1 below the threshold: " + (", ".join(close) or
                                                                         "none")]
    cells = [[number_text(distances[i, j]) + ("*" if distances[i, j] < constant else "")
              if j > i else "" for j in range(n)] for i in range(n)]
    width = max(3, *(len(cell) for row in cells for cell in row))
    lines = ["  ||P_i - P_j||_1 (* below the threshold):",
             "      " + " ".join(f"{j:>{width}}" for j in range(1, n))]
    lines += ["  " + f"{i:>3} " + " ".join(f"{cell:>{width}}" for cell in cells[i][1:])
              for i in range(n - 1)]
    return lines


def open_loop_policy(mdp: BlockMDP, path: Sequence[str]) -> Policy:
    """The open-loop policy taking ``path[t]`` at every observation of layer ``t`` (0-based) and
    acting uniformly at random after the path (which does not change where it arrives).

    >>> from kinematic import combination_lock, state_visitation
    >>> lock = combination_lock(horizon=3, actions=2, seed=0)
    >>> state_visitation(lock, open_loop_policy(lock, ["a2", "a1"]))[2]
    array([Fraction(1, 8), Fraction(1, 8), Fraction(3, 4)], dtype=object)
    """
    if len(path) >= mdp.horizon:
        raise ValueError(f"path has {len(path)} actions; the MDP {mdp.name!r} has "
                         f"{mdp.horizon} layers, so at most {mdp.horizon - 1}")
    one, zero = mdp.mode.scalar(1), mdp.mode.scalar(0)
    share = one / mdp.number_of_actions
    tables = []
    for t, observations in enumerate(mdp.observations):
        table: np.ndarray = np.full((len(observations), mdp.number_of_actions), share,
                                    dtype=mdp.mode.dtype)
        if t < len(path):
            if path[t] not in mdp.action_index:
                raise ValueError(f"path[{t}] = {path[t]!r} is not an action of {mdp.name!r} "
                                 f"({', '.join(mdp.actions)})")
            table[:] = zero
            table[:, mdp.action_index[path[t]]] = one
        tables.append(table)
    return Policy(tuple(tables), mdp)


def _posteriors(observation_distributions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(f, seen)``: ``f[x, j] = P_j(x) / sum_l P_l(x)`` on the observations some candidate
    reaches (``seen``), rows of zeros elsewhere."""
    totals = observation_distributions.sum(axis=0)
    seen = totals != 0
    posterior = np.zeros(observation_distributions.T.shape, dtype=object)
    posterior[:] = Fraction(0)
    posterior[seen] = observation_distributions.T[seen] / totals[seen, None]
    return posterior, seen


def path_gaps(weighted: np.ndarray) -> np.ndarray:
    """The ``(N, N)`` gaps ``sum_x |W[x, i] - W[x, j]|`` of a matrix ``W[x, j] = w(x) f(j | x)``:
    Intrepid's ``sim`` on its ``(n x N)`` matrix ``f(j | x_i) / n`` (``w = 1/n`` per sample), or
    the population statistic ``E_{x ~ M} |f(i | x) - f(j | x)|`` with ``w = M`` the equal
    mixture. Floats or exact Fractions.

    >>> path_gaps(np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 0.5]])).tolist()
    [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """
    return np.abs(weighted[:, :, None] - weighted[:, None, :]).sum(axis=0)


def _gaps(observation_distributions: np.ndarray) -> np.ndarray:
    """``gap[i, j] = E_{x ~ M} |f(i | x) - f(j | x)|``, ``M`` the equal mixture, from the
    posteriors (the code's statistic at the population optimum)."""
    n = observation_distributions.shape[0]
    posterior, seen = _posteriors(observation_distributions)
    mixture = observation_distributions.sum(axis=0)[seen] / n
    return path_gaps(mixture[:, None] * posterior[seen])


def eliminate_paths(gaps: np.ndarray, threshold: object
                    ) -> tuple[list[tuple[int, int]], list[int]]:
    """Intrepid's greedy elimination: for ``i`` in id order (if not eliminated), every later
    ``j`` not yet eliminated with ``gaps[i, j] < threshold`` is eliminated into ``i``. Returns
    the merges ``(i, j)`` in that order and the ids kept, increasing. Not transitive: ``j``
    eliminated into ``i`` is never compared again.

    >>> eliminate_paths(np.array([[0, 0.1, 0.5], [0.1, 0, 0.1], [0.5, 0.1, 0]]), 0.2)
    ([(0, 1)], [0, 2])
    """
    n = gaps.shape[0]
    alive = [True] * n
    merges = []
    for i in range(n):
        if not alive[i]:
            continue
        for j in range(i + 1, n):
            if alive[j] and gaps[i, j] < threshold:
                alive[j] = False
                merges.append((i, j))
    return merges, [i for i in range(n) if alive[i]]


def path_groups(merges: Sequence[tuple[int, int]], kept: Sequence[int]
                ) -> dict[int, tuple[int, ...]]:
    """Kept id -> the ids eliminated into it, itself first (Intrepid's ``path_common``).

    >>> path_groups([(0, 1)], [0, 2])
    {0: (0, 1), 2: (2,)}
    """
    groups = {i: [i] for i in kept}
    for i, j in merges:
        groups[i].append(j)
    return {i: tuple(members) for i, members in groups.items()}


def decoder_choice(posteriors: np.ndarray, kept: Sequence[int]) -> np.ndarray:
    """Intrepid's ``PPEDecoder`` on rows of posteriors ``f(. | x)``: the position in ``kept``
    (increasing ids) of the kept id with the largest posterior, the first on a tie.

    >>> decoder_choice(np.array([[0.1, 0.5, 0.4], [0.4, 0.2, 0.4]]), [0, 2]).tolist()
    [1, 0]
    """
    return np.argmax(np.asarray(posteriors)[:, list(kept)], axis=1).astype(np.intp)


def _decoder_labels(observation_distributions: np.ndarray, kept: Sequence[int]) -> np.ndarray:
    """``PPEDecoder`` at the population optimum: :func:`decoder_choice` of the posteriors."""
    return decoder_choice(_posteriors(observation_distributions)[0], kept)


def exact_ppe(mdp: BlockMDP, elimination_constant: Fraction = ELIMINATION_CONSTANT) -> PPEResult:
    """PPE (module docstring) with exact population oracles: at every step the candidate paths,
    their exact state distributions, the code's elimination statistic for every pair (exact
    ``Fraction``), the greedy eliminations in the code's order, the kept paths, and the cover
    of open-loop policies with its exact alpha per layer.

    ``elimination_constant`` is the ``c`` of ``elim_param = c / (K N_prev)`` (the code's 5/8);
    another value explores the rule. The MDP must be in exact mode.

    >>> from kinematic.families import combination_lock, deterministic_combination_lock
    >>> result = exact_ppe(deterministic_combination_lock(horizon=3, actions=2, seed=0))
    >>> [step.kept_paths for step in result.steps]    # one path per reachable state
    [(('a1',), ('a2',)), (('a1', 'a1'), ('a2', 'a2'))]
    >>> result.alpha
    (Fraction(1, 1), Fraction(1, 1), Fraction(1, 1))
    >>> exact_ppe(combination_lock(horizon=3, actions=2, seed=0)).alpha   # stochastic moves
    (Fraction(1, 1), Fraction(1, 2), Fraction(1, 4))
    """
    if not mdp.mode.exact:
        raise ValueError(f"exact_ppe needs an exact-mode MDP; {mdp.name!r} is in float mode")
    constant = Fraction(elimination_constant)
    actions = mdp.actions
    previous_paths: list[tuple[str, ...]] = [()]
    previous_distributions = [np.asarray(mdp.start, dtype=object)]
    steps = []
    for h in range(1, mdp.horizon):
        tensor = mdp.transition_tensor(h - 1)
        candidates = [(*path, action) for path in previous_paths for action in actions]
        distributions = np.array([d @ tensor[:, a, :] for d in previous_distributions
                                  for a in range(len(actions))], dtype=object)
        observed = (distributions[:, mdp.emission_state[h]]
                    * mdp.emission_probability[h][None, :])
        gaps = _gaps(observed)
        threshold = constant / (len(actions) * len(previous_paths))
        merges, kept = eliminate_paths(gaps, threshold)
        steps.append(PPEStep(h, tuple(candidates), distributions, observed, gaps, threshold,
                             tuple(merges), tuple(kept), _decoder_labels(observed, kept)))
        previous_paths = [candidates[i] for i in kept]
        previous_distributions = [distributions[i] for i in kept]
    covers = ((), *(tuple(open_loop_policy(mdp, path) for path in step.kept_paths)
                    for step in steps))
    eta_layers = eta(mdp)
    alpha = (Fraction(1), *(Fraction(policy_cover_alpha(mdp, covers[h], eta_layers)
                                     .alpha_per_layer[h]) for h in range(1, mdp.horizon)))
    return PPEResult(mdp, tuple(steps), covers, alpha)


def open_loop_alpha(mdp: BlockMDP) -> tuple[Fraction, ...]:
    """The best cover quality any set of open-loop paths reaches on each layer: the alpha of
    the cover of all ``K^h`` action sequences of layer ``h`` (``max`` over sequences of ``P(s)``,
    over ``eta(s)``, minimised over the states), exactly; 1 on layer 1. What :func:`exact_ppe`'s
    cover gets below it, elimination lost; what it lacks of 1, open-loop paths cannot reach.
    Enumerates every sequence: ``K^(H-1)`` distributions.

    >>> from kinematic import combination_lock
    >>> open_loop_alpha(combination_lock(horizon=4, actions=2, seed=0))
    (Fraction(1, 1), Fraction(1, 2), Fraction(1, 4), Fraction(1, 8))
    """
    if not mdp.mode.exact:
        raise ValueError(f"open_loop_alpha needs an exact-mode MDP; {mdp.name!r} is in float "
                         f"mode")
    eta_layers = eta(mdp)
    distributions = np.asarray(mdp.start, dtype=object)[None, :]
    alpha = [Fraction(1)]
    for h in range(1, mdp.horizon):
        tensor = mdp.transition_tensor(h - 1)
        distributions = np.concatenate([distributions @ tensor[:, a, :]
                                        for a in range(mdp.number_of_actions)])
        alpha.append(min(distributions.max(axis=0) / eta_layers[h]))
    return tuple(alpha)


def ppe_solution(mdp: BlockMDP, layer: int,
                 elimination_constant: Fraction = ELIMINATION_CONSTANT) -> ObjectiveSolution:
    """PPE's path prediction on ``layer`` (0-based, ``>= 1``), solved exactly: the coarsest
    abstraction of ``mdp.observations[layer]`` that attains the Bayes-optimal population loss of
    predicting the candidate path's id from ``x`` under PPE's data (the candidates of
    :func:`exact_ppe` reaching ``layer``, equal shares).

    It groups the observations by their posterior ``f(. | x)`` over all candidates (equal
    posteriors is the optimality condition of every strictly proper loss, so the grouping is the
    only coarsest one among the observations some candidate reaches). Observations no candidate
    reaches cost nothing anywhere; as for every objective of this package
    (:mod:`kinematic.counterexamples.predictive`), they stay in classes of their own, and
    ``unique`` speaks of the observations reached. ``loss`` is the exact Brier loss of the
    Bayes-optimal predictor.

    >>> from kinematic import combination_lock
    >>> solution = ppe_solution(combination_lock(horizon=3, actions=3, seed=1), layer=1)
    >>> solution.labels, solution.unique, solution.loss    # s2a, s2b | s2c
    (array([0, 0, 1]), True, Fraction(7, 12))
    """
    step = exact_ppe(mdp, elimination_constant).step(layer)
    joint = step.observation_distributions.T / len(step.candidates)  # rows: x, columns: path id
    return predictive_solution("ppe_path_prediction", layer, joint[None])  # no context


def ppe_objective(mdp: BlockMDP, cover: Sequence[Policy], layer: int,
                  previous_labels: np.ndarray) -> np.ndarray:
    """:func:`ppe_solution`'s labels in the :data:`~kinematic.counterexamples.exploration.
    Objective` form, for :func:`~kinematic.counterexamples.exploration.explore_with_objective`.
    PPE prescribes its own data (its candidate paths, equal shares), so ``cover`` and
    ``previous_labels`` are not used."""
    return ppe_solution(mdp, layer).labels
