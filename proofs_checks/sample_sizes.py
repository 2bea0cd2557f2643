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
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

__all__ = ["SampleSizes", "exp_oracle_sample_sizes", "homer_sample_sizes"]


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
    for name, value in values.items():
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value}")
    for name in ("epsilon", "delta"):
        if name in values and not values[name] < 1:
            raise ValueError(f"{name} must lie in (0, 1), got {values[name]}")
    if "eta" in values and not values["eta"] <= 1:  # eta = eta_min = 1 is allowed
        raise ValueError(f"eta must lie in (0, 1], got {values['eta']}")


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
    n_reg = n**6 * a**3 / eta**3 * (n**2 * a + log_abstractions + math.log(h / delta))
    n_psdp = n**4 * h**2 * a / eta**2 * (log_policies + math.log(1 / delta))
    n_eval = n**2 * h**2 * a / epsilon**2 * (log_policies + math.log(1 / delta))
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
    log_term = math.log(2) + log_policies + math.log(2 * n * h**2 / delta)
    n_psdp = 256 * n**4 * h**2 * a * log_term / eta**2
    n_eval = 64 * n**2 * h**2 * a * log_term / epsilon**2
    return SampleSizes("ExpOracle (alg:oracle-exp)", None, math.ceil(n_psdp), math.ceil(n_eval),
                       "explicit constants of the proof of thm:exp-oracle, "
                       "delta' = delta / (2 N H^2)")
