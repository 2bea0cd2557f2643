"""The project's own index of the reference paper's results (Misra, Henaff, Krishnamurthy,
Langford, "Kinematic State Abstraction and Provably Efficient Rich-Observation RL").

Every ``\\label`` of kind ``def``, ``lem``, ``prop``, ``thm``, ``corr``, ``fact`` and ``alg`` in the
reference source is listed with a one-line statement in our words, so that a clone with nothing
beside it knows what ``python -m proofs_checks`` has to cover. Results the paper states without a
label are listed under a label of ours (``in_source=False``) or, where the project registered
them earlier, under the label of the section that holds them.

Results beyond the paper (:data:`BEYOND_THE_PAPER`) carry labels whose prefix names their topic
(:data:`BEYOND_THE_PAPER_TOPICS`: ``exo:`` for exogenous Block MDPs), never a prefix of the
paper's, so that no label of ours passes for the paper's; :func:`label_index` holds both.

``tests/proofs_checks/test_registry.py`` checks that every entry is a registered claim, and
compares this index with the paper's LaTeX source when the environment variable
``KINEMATIC_REFERENCE`` names it (a ``.tex`` file or a folder of them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["BEYOND_THE_PAPER", "BEYOND_THE_PAPER_TOPICS", "REFERENCE_LABELS", "RESULT_KINDS",
           "ReferenceLabel", "label_index"]

RESULT_KINDS = ("def", "lem", "prop", "thm", "corr", "fact", "alg")
"""Label prefixes of the statements that must each be a registered claim."""

Kind = Literal["def", "lem", "prop", "thm", "corr", "fact", "alg", "app", "sec", "fig", "exo"]

BEYOND_THE_PAPER_TOPICS = {
    "exo": "exogenous Block MDPs (Efroni, Misra, Krishnamurthy, Agarwal, Langford, ICLR 2022): "
           "kinematic inseparability of the product, proved in docs/concepts/exogenous.md",
}
"""Label prefixes of the results beyond the paper (the ``kind`` of their entries), with what
they cover."""


@dataclass(frozen=True)
class ReferenceLabel:
    """One result of the reference: its label, the kind of statement, and what it says."""

    label: str
    kind: Kind
    statement: str
    in_source: bool = True
    """False for an unlabelled result, listed under a label of ours."""


REFERENCE_LABELS: tuple[ReferenceLabel, ...] = (
    # Section 2: homing policies and policy covers.
    ReferenceLabel("def:homing", "def",
                   "a homing policy of s maximises P_pi(s) over non-stationary policies; "
                   "eta(s) is that maximum"),
    ReferenceLabel("def:policy-cover", "def",
                   "Psi is an alpha-policy cover when max_{pi in Psi} P_pi(s) >= alpha eta(s) "
                   "for every state s"),
    # Section 3: kinematic inseparability.
    ReferenceLabel("def:bki", "def",
                   "x1', x2' are backward KI when P_u(x, a | x1') = P_u(x, a | x2') for every "
                   "full-support prior u over X x A"),
    ReferenceLabel("def:fki", "def",
                   "x1, x2 are forward KI when T(x' | x1, a) = T(x' | x2, a) for every x', a"),
    ReferenceLabel("def:ki", "def", "x1, x2 are KI when they are both backward and forward KI"),
    ReferenceLabel("def:canonical-form", "def",
                   "a Block MDP is in canonical form when two observations share a state iff "
                   "they are KI (unlabelled definition of Section 3)", in_source=False),
    ReferenceLabel("sec:kinematic-inseparable", "sec",
                   "max(N_FD, N_BD) <= N_KD <= |S| (stated in Section 3)"),
    ReferenceLabel("fig:mdp-canonical", "fig",
                   "splitting a state into KI halves leaves the observation process unchanged"),
    # Section 3.1 and 4: the algorithms.
    ReferenceLabel("alg:oracle-exp", "alg",
                   "ExpOracle: with a backward KI abstraction, PSDP on internal rewards builds "
                   "policy covers layer by layer, then a reward-sensitive policy"),
    ReferenceLabel("alg:rl_via_homing_policies", "alg",
                   "PSDP: dynamic programming backwards over time steps, rolling in with "
                   "policy covers and solving a contextual bandit per step"),
    ReferenceLabel("alg:learn_homing_policy", "alg",
                   "HOMER: learn a bottlenecked contrastive predictor per step, then PSDP on "
                   "the internal rewards of its backward abstraction"),
    ReferenceLabel("thm:oracle-exp-statement", "thm",
                   "ExpOracle returns 1/2-policy covers and an epsilon-optimal policy with "
                   "probability >= 1 - delta (Section 4 statement)"),
    ReferenceLabel("thm:main-theorem", "thm",
                   "HOMER with N >= N_KD and eta <= eta_min returns 1/2-policy covers and an "
                   "epsilon-optimal policy with probability >= 1 - delta"),
    # Appendix: homing policies.
    ReferenceLabel("lem:homing_deterministic", "lem",
                   "for any reward, deterministic non-stationary policies attain the maximum "
                   "value over stochastic ones"),
    ReferenceLabel("prop:comp-homing", "prop",
                   "homing policies are not compositional: some eta(s) exceeds every mixture "
                   "of the previous layer's homing policies composed with a last step"),
    # Appendix: kinematic inseparability.
    ReferenceLabel("app:appendix-kinematic-inseparability", "app",
                   "forward KI, backward KI and KI are equivalence relations (unlabelled Fact)"),
    ReferenceLabel("lem:state-inseparable", "lem",
                   "observations emitted by the same state are KI"),
    ReferenceLabel("fact:time-separable", "fact",
                   "forward or backward KI observations are reachable at the same time step"),
    ReferenceLabel("lem:bki-ratio", "lem",
                   "a set is backward KI iff T(x' | x, a) / u(x') agrees on it for some "
                   "full-support u"),
    ReferenceLabel("lem:bki-policy-ratio", "lem",
                   "backward KI observations have the same ratio P_pi1(x) / P_pi2(x) for all "
                   "policies"),
    ReferenceLabel("lem:abstraction-policy", "lem",
                   "the optimal policy for reaching a backward KI set reaches each member with "
                   "its maximum probability"),
    # Appendix: PSDP and ExpOracle.
    ReferenceLabel("thm:psdp-spread", "thm",
                   "PSDP with alpha-covers of size N is within N h eps_csc / alpha of the best "
                   "policy with probability >= 1 - h delta"),
    ReferenceLabel("prop:csc-call", "prop",
                   "the contextual-bandit oracle with n uniform-logging samples is within "
                   "eps_csc of the best policy with probability >= 1 - delta"),
    ReferenceLabel("thm:exp-oracle", "thm",
                   "ExpOracle's guarantee (appendix statement): 1/2-covers and an "
                   "epsilon-optimal policy with probability >= 1 - delta"),
    # Appendix: HOMER's analysis.
    ReferenceLabel("prop:bki-in-class", "prop",
                   "for N >= N_KD some phi_B in Phi_N only merges backward KI observations"),
    ReferenceLabel("lem:bound-rho-prior", "lem",
                   "with an alpha-cover of size N, the prior satisfies rho(s) >= "
                   "alpha eta(s) / (N |A|)"),
    ReferenceLabel("lem:p-form", "lem",
                   "the Bayes-optimal contrastive predictor is T / (T + rho)"),
    ReferenceLabel("corr:sq-loss", "corr",
                   "the empirical risk minimiser over F_N has excess square loss <= err_reg "
                   "with probability >= 1 - delta"),
    ReferenceLabel("prop:ki-equal-fstar", "prop",
                   "KI observations have equal f* values, in the first and in the third "
                   "argument (unlabelled proposition of the sample-complexity appendix)",
                   in_source=False),
    ReferenceLabel("lem:coupling", "lem",
                   "for any bottlenecked predictor, E_coup[1{both in class i} |V|] <= "
                   "8 sqrt(b_i err_reg)"),
    ReferenceLabel("lem:policy-comparison", "lem",
                   "P[s | pi1] - P[s | pi2] is bounded by the learned class's visitation "
                   "difference plus a term in sqrt(err_reg); the literal 'min over i' (every "
                   "class i) is false, the class of s is what the proof supports"),
    ReferenceLabel("lem:policy-cover-guarantee", "lem",
                   "each state is reached by some learned cover policy with probability >= "
                   "eta(s) minus the PSDP and regression errors"),
    # Appendix: supporting results.
    ReferenceLabel("lem:perf-diff", "lem",
                   "the performance difference lemma, as an exact identity"),
    ReferenceLabel("prop:bernstein", "prop",
                   "Bernstein's inequality for bounded zero-mean independent variables"),
    ReferenceLabel("prop:sq-loss", "prop",
                   "square-loss ERM over a realizable class has excess risk <= "
                   "inf_eps 6 eps + 8 ln(2 N(G, eps) / delta) / n with probability >= "
                   "1 - delta"),
)


BEYOND_THE_PAPER: tuple[ReferenceLabel, ...] = (
    ReferenceLabel("exo:bki-product", "exo",
                   "(s1', xi1'), (s2', xi2') are backward KI iff s1', s2' are backward KI in the "
                   "endogenous Block MDP and the columns T_ex(xi1' | .), T_ex(xi2' | .) are "
                   "proportional",
                   in_source=False),
    ReferenceLabel("exo:fki-product", "exo",
                   "(s1, xi1), (s2, xi2) are forward KI iff s1, s2 are forward KI in the "
                   "endogenous Block MDP and T_ex(. | xi1) = T_ex(. | xi2)", in_source=False),
    ReferenceLabel("exo:ki-product", "exo",
                   "the KI partition of an exogenous Block MDP is the product of its endogenous "
                   "Block MDP's and its exogenous chain's", in_source=False),
    ReferenceLabel("exo:iid-noise", "exo",
                   "the three KI partitions are the endogenous Block MDP's, lifted to every "
                   "exogenous value, iff the exogenous noise is i.i.d.", in_source=False),
)
"""Results of this project beyond the paper, each a registered claim like the paper's."""


def label_index() -> dict[str, ReferenceLabel]:
    """The index keyed by label: the paper's results, then those beyond it."""
    return {entry.label: entry for entry in (*REFERENCE_LABELS, *BEYOND_THE_PAPER)}
