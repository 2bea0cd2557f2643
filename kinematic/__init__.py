"""Exact ground truth of Block MDPs (Misra et al., Sections 2-3 and 5).

The public API, re-exported from the modules that define it: the model and its JSON spec, the
paper's quantities (visitation, eta and homing policies, kinematic-inseparability partitions,
quotients and canonical forms, policy covers, the contrastive problem, planning), the named
families, finite MDPs from gymnasium's tables (``from_gymnasium``), and drawings
(``draw_block_mdp``, ``draw_partitions``; in Jupyter an MDP or a partition shows itself as its
layered graph). Importing ``kinematic`` needs only numpy, scipy, networkx and hypothesis (never
torch or gymnasium; matplotlib only to draw).

Layers count from 1, as in the paper: a function that takes a layer number means ``h`` of
``S_1 .. S_H`` and refuses anything else with :class:`UnknownLayer` naming the range. Python
sequences stay 0-based (``mdp.layers[0]`` is layer 1), and the array accessors of
:class:`BlockMDP` (``width``, ``transition_tensor``, ``emission_matrix``,
``observation_transition_tensor``) take a 0-based position named ``index``. A state,
observation or action name the MDP does not have raises :class:`UnknownName` naming the
argument and the closest names.

>>> from kinematic import combination_lock, eta_min, ki_partition
>>> lock = combination_lock(horizon=3, actions=2, seed=0)
>>> eta_min(lock)
Fraction(1, 2)
>>> ki_partition(lock).blocks_per_layer
(2, 3, 2)
"""

from kinematic.analysis import SlowExactAnalysis, analyze, eta_min_states, format_report
from kinematic.canonical import canonical_form
from kinematic.contrastive import (
    ContrastiveDistribution,
    bayes_optimal_predictor,
    contrastive_distribution,
    f_rho,
    level_sets,
)
from kinematic.cover import CoverReport, is_policy_cover, policy_cover_alpha
from kinematic.errors import (
    AmbiguousTolerance,
    InvalidBlockMDP,
    InvalidPartition,
    InvalidPolicy,
    TooLarge,
    UndefinedQuotient,
    UnknownLayer,
    UnknownName,
)
from kinematic.exogenous import (
    ExogenousBlockMDP,
    ExogenousChain,
    endogenous_partition,
    exogenous_block_mdp,
    exogenous_chain,
)
from kinematic.exogenous_check import NotFactorised, check_factorisation
from kinematic.exogenous_ki import (
    KIPartitions,
    chain_partitions,
    predicted_ki_partitions,
    product_partition,
)
from kinematic.exogenous_search import EndogenousFactorisations, endogenous_factorisations
from kinematic.exogenous_spec import (
    dumps_exogenous_spec,
    from_exogenous_spec,
    load_exogenous_spec,
    to_exogenous_spec,
)
from kinematic.families import (
    LOCK_VARIANTS,
    combination_lock,
    deterministic_combination_lock,
    exogenous_combination_lock,
    figure2_canonical,
    figure2_split,
    random_sparse_mdp,
)
from kinematic.figures import draw_partitions
from kinematic.finite_envs import InexactTable, from_gymnasium
from kinematic.graph import draw_block_mdp, to_networkx
from kinematic.homing import eta, eta_min, homing_policies, homing_policy, homing_policy_choices
from kinematic.inseparability import (
    backward_ki_partition,
    forward_ki_partition,
    ki_partition,
    n_bd,
    n_fd,
    n_kd,
)
from kinematic.model import BlockMDP, block_mdp, relabel_states, with_float_numbers
from kinematic.named_values import ObservationValues, StateValues
from kinematic.numbers import DEFAULT_ATOL, NumberMode
from kinematic.partition import Partition, PartitionComparison, compare_with
from kinematic.planning import exp_oracle_exact, optimal_values, psdp_exact
from kinematic.policies import Policy, observation_policy, state_policy, uniform_policy
from kinematic.quotient import Quotient, quotient
from kinematic.spec import dumps_spec, from_spec, load_spec, to_spec
from kinematic.visitation import observation_visitation, policy_value, state_visitation

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_ATOL",
    "LOCK_VARIANTS",
    "AmbiguousTolerance",
    "BlockMDP",
    "ContrastiveDistribution",
    "CoverReport",
    "EndogenousFactorisations",
    "ExogenousBlockMDP",
    "ExogenousChain",
    "InexactTable",
    "InvalidBlockMDP",
    "InvalidPartition",
    "InvalidPolicy",
    "KIPartitions",
    "NotFactorised",
    "NumberMode",
    "ObservationValues",
    "Partition",
    "PartitionComparison",
    "Policy",
    "Quotient",
    "SlowExactAnalysis",
    "StateValues",
    "TooLarge",
    "UndefinedQuotient",
    "UnknownLayer",
    "UnknownName",
    "__version__",
    "analyze",
    "backward_ki_partition",
    "bayes_optimal_predictor",
    "block_mdp",
    "canonical_form",
    "chain_partitions",
    "check_factorisation",
    "combination_lock",
    "compare_with",
    "contrastive_distribution",
    "deterministic_combination_lock",
    "draw_block_mdp",
    "draw_partitions",
    "dumps_exogenous_spec",
    "dumps_spec",
    "endogenous_factorisations",
    "endogenous_partition",
    "eta",
    "eta_min",
    "eta_min_states",
    "exogenous_block_mdp",
    "exogenous_chain",
    "exogenous_combination_lock",
    "exp_oracle_exact",
    "f_rho",
    "figure2_canonical",
    "figure2_split",
    "format_report",
    "forward_ki_partition",
    "from_exogenous_spec",
    "from_gymnasium",
    "from_spec",
    "homing_policies",
    "homing_policy",
    "homing_policy_choices",
    "is_policy_cover",
    "ki_partition",
    "level_sets",
    "load_exogenous_spec",
    "load_spec",
    "n_bd",
    "n_fd",
    "n_kd",
    "observation_policy",
    "observation_visitation",
    "optimal_values",
    "policy_cover_alpha",
    "policy_value",
    "predicted_ki_partitions",
    "product_partition",
    "psdp_exact",
    "quotient",
    "random_sparse_mdp",
    "relabel_states",
    "state_policy",
    "state_visitation",
    "to_exogenous_spec",
    "to_networkx",
    "to_spec",
    "uniform_policy",
    "with_float_numbers",
]
