"""Sample sizes of ``alg:learn_homing_policy`` (HOMER) and ``alg:oracle-exp`` (ExpOracle).

HOMER's sizes are stated with ``O-tilde`` (line ``line:homer-initialization`` and
``line:homer-neval``); here every hidden constant and logarithmic factor is set to 1:

- ``n_reg  = N^6 |A|^3 / eta^3 * (N^2 |A| + ln(|Phi_N| H / delta))``
- ``n_psdp = N^4 H^2 |A| / eta^2 * ln(|Pi| / delta)``
- ``n_eval = N^2 H^2 |A| / epsilon^2 * ln(|Pi| / delta)``

ExpOracle's proof of ``thm:exp-oracle`` gives explicit constants, with ``delta`` rebound to
``delta / (2 N H^2)``:

- ``n_psdp = 256 N^4 H^2 |A| ln(2 |Pi| / delta') / eta^2``
- ``n_eval = 64 N^2 H^2 |A| ln(2 |Pi| / delta') / epsilon^2``

Logarithms of class sizes are inputs (``ln |Pi|``, ``ln |Phi_N|``), since the classes are
usually too large to count.

Every parameter has a range (:data:`PARAMETERS`) wide enough for any Block MDP this project can
build and narrow enough that every size is a finite float: at the ends, ``n_reg`` is about
``1e244`` (``N = |A| = 10^6``, ``eta = 1e-30``, ``ln |Phi_N| = 1e100``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from kinematic.arguments import NumberRange

__all__ = ["PARAMETERS", "SampleSizes", "exp_oracle_sample_sizes", "homer_sample_sizes"]

MAX_COUNT = 10**6
"""Largest N, H and |A|."""
MIN_ACCURACY = 1e-30
"""Smallest eta and epsilon (``eta^-3`` stays below ``1e90``)."""
MAX_LOG_CLASS = 1e100
"""Largest ``ln |Pi|`` and ``ln |Phi_N|``."""

PARAMETERS: dict[str, NumberRange[int] | NumberRange[float]] = {
    "abstract_states": NumberRange(int, low=1, high=MAX_COUNT),
    "horizon": NumberRange(int, low=1, high=MAX_COUNT),
    "actions": NumberRange(int, low=1, high=MAX_COUNT),
    "eta": NumberRange(float, low=MIN_ACCURACY, high=1),  # eta = eta_min = 1 is allowed
    "epsilon": NumberRange(float, low=MIN_ACCURACY, high=1, open_high=True),
    "delta": NumberRange(float, low=0, high=1, open_low=True, open_high=True),
    "log_policies": NumberRange(float, low=0, high=MAX_LOG_CLASS, open_low=True),
    "log_abstractions": NumberRange(float, low=0, high=MAX_LOG_CLASS, open_low=True),
}
"""The range of each parameter (the command line's flags use them too)."""


@dataclass(frozen=True)
class SampleSizes:
    """Episodes per call: regression (HOMER only), PSDP for the cover, PSDP for the reward."""

    algorithm: str
    n_reg: int | None
    n_psdp: int
    n_eval: int
    constants: str

    def as_json(self) -> dict:
        return asdict(self)


def _check(**values: float) -> None:
    """``ValueError`` naming the first parameter outside its range (:data:`PARAMETERS`)."""
    for name, value in values.items():
        PARAMETERS[name].check(value, name)


def homer_sample_sizes(
    abstract_states: int, horizon: int, actions: int, eta: float, epsilon: float, delta: float,
    log_policies: float, log_abstractions: float,
) -> SampleSizes:
    """``alg:learn_homing_policy``'s n_reg, n_psdp, n_eval with the O-tilde constants set to 1.

    ``abstract_states`` is N (at least N_KD), ``log_policies = ln |Pi|``,
    ``log_abstractions = ln |Phi_N|``.
    """
    _check(abstract_states=abstract_states, horizon=horizon, actions=actions, eta=eta,
           epsilon=epsilon, delta=delta, log_policies=log_policies,
           log_abstractions=log_abstractions)
    n, h, a = abstract_states, horizon, actions
    n_reg = n**6 * a**3 / eta**3 * (n**2 * a + log_abstractions + math.log(h) - math.log(delta))
    n_psdp = n**4 * h**2 * a / eta**2 * (log_policies - math.log(delta))
    n_eval = n**2 * h**2 * a / epsilon**2 * (log_policies - math.log(delta))
    return SampleSizes("HOMER (alg:learn_homing_policy)", math.ceil(n_reg), math.ceil(n_psdp),
                       math.ceil(n_eval), "O-tilde constants and log factors set to 1")


def exp_oracle_sample_sizes(
    abstract_states: int, horizon: int, actions: int, eta: float, epsilon: float, delta: float,
    log_policies: float,
) -> SampleSizes:
    """``alg:oracle-exp``'s n_psdp and n_eval with the constants of the proof of
    ``thm:exp-oracle`` (256 and 64) and ``delta' = delta / (2 N H^2)``."""
    _check(abstract_states=abstract_states, horizon=horizon, actions=actions, eta=eta,
           epsilon=epsilon, delta=delta, log_policies=log_policies)
    n, h, a = abstract_states, horizon, actions
    log_term = math.log(2) + log_policies + math.log(2 * n * h**2) - math.log(delta)
    n_psdp = 256 * n**4 * h**2 * a * log_term / eta**2
    n_eval = 64 * n**2 * h**2 * a * log_term / epsilon**2
    return SampleSizes("ExpOracle (alg:oracle-exp)", None, math.ceil(n_psdp), math.ceil(n_eval),
                       "explicit constants of the proof of thm:exp-oracle, "
                       "delta' = delta / (2 N H^2)")
