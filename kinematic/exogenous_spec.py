"""JSON specs of exogenous Block MDPs (:mod:`kinematic.exogenous`; the format of
docs/guide/spec-format.md, "Exogenous Block MDPs"), in two forms:

- **compact**, to write one: ``{"name": ..., "endogenous": <a Block MDP spec>, "exogenous":
  {"values": [...], "start": {...}, "transitions": {...}}}``; ``values`` one list of names and
  ``transitions`` one mapping ``xi -> xi' -> p`` for a stationary chain, or one list per layer and
  a list of ``H - 1`` mappings; ``name`` is optional. The product is
  :func:`kinematic.exogenous.exogenous_block_mdp`'s (states ``"s|xi"``);
- **declared**: any Block MDP spec plus ``"factorisation": {"endogenous": {state: label},
  "exogenous": {state: label}}``, every state with a label (a non-empty string) of each part,
  checked exactly on load by :func:`kinematic.exogenous_check.check_factorisation`. This is
  what :func:`to_exogenous_spec` writes, so that any :class:`~kinematic.exogenous.ExogenousBlockMDP`
  round-trips, a checked one included.

:func:`kinematic.spec.from_spec` and :func:`kinematic.spec.load_spec` read both forms as the
product :class:`~kinematic.model.BlockMDP`, so every tool takes an exogenous spec;
:func:`from_exogenous_spec` and :func:`load_exogenous_spec` give the
:class:`~kinematic.exogenous.ExogenousBlockMDP` (and refuse a spec that declares no
factorisation); :func:`load_with_factorisation` gives the Block MDP and, when the spec declares
one, its factorisation (``analyze``, ``homer evaluate --against endogenous``). Errors are one
line naming the entry, and the file when read from one; a product that would not fit in memory
is refused first (:class:`~kinematic.errors.TooLarge`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kinematic.errors import InvalidBlockMDP, UnknownName, require_mapping, short_repr
from kinematic.exogenous import ExogenousBlockMDP, exogenous_block_mdp, exogenous_chain
from kinematic.exogenous_check import NotFactorised, check_factorisation
from kinematic.lookup import unknown_entry
from kinematic.model import BlockMDP, Matrix
from kinematic.numbers import DEFAULT_ATOL, Number
from kinematic.resources import check_memory
from kinematic.spec import EXOGENOUS_KEYS, from_spec, read_spec_file, to_spec

__all__ = ["PRODUCT_BYTES_PER_ENTRY", "declares_factorisation", "dumps_exogenous_spec",
           "from_exogenous_spec", "load_exogenous_spec", "load_with_factorisation",
           "to_compact_exogenous_spec", "to_exogenous_spec"]

PRODUCT_BYTES_PER_ENTRY = 400
"""Bytes of memory per transition entry while the product of a compact spec is built (exact
numbers; measured with ``tracemalloc`` on the lock with 8 and 16 exogenous values: 310-380),
for the refusal of a product that would not fit."""

_COMPACT = ("name", "endogenous", "exogenous")
_CHAIN = ("values", "start", "transitions")
_PARTS = ("endogenous", "exogenous")


def declares_factorisation(spec: object) -> bool:
    """Whether a parsed spec is one of an exogenous Block MDP (a key of
    :data:`kinematic.spec.EXOGENOUS_KEYS`: ``endogenous``, ``exogenous`` or ``factorisation``).

    >>> declares_factorisation({"name": "m", "factorisation": {}}), declares_factorisation([])
    (True, False)
    """
    return isinstance(spec, Mapping) and any(key in spec for key in EXOGENOUS_KEYS)


def from_exogenous_spec(spec: object, atol: float = DEFAULT_ATOL) -> ExogenousBlockMDP:
    """The exogenous Block MDP of a parsed spec of either form (module docstring).

    Raises
    ------
    InvalidBlockMDP
        Naming the entry at fault: ``endogenous: transitions['s1']['a']: ...`` (the Block MDP of
        the compact form), ``exogenous transitions[1]['0']: the probabilities sum to 9/10, not
        1`` (its chain), ``factorisation['exogenous']['s2']: ...`` (a declared label); a spec
        that declares no factorisation.
    NotFactorised
        (an :class:`InvalidBlockMDP`) When the declared factorisation does not hold, naming the
        first state, entry or reward that breaks it.
    TooLarge
        When the product of a compact spec would not fit in memory.

    >>> spec = {"endogenous": {"name": "coin", "horizon": 2, "actions": ["a"],
    ...                        "layers": [["s"], ["t"]], "start": {"s": 1},
    ...                        "transitions": {"s": {"a": {"t": 1}}}},
    ...         "exogenous": {"values": ["0", "1"], "start": {"0": "1/2", "1": "1/2"},
    ...                       "transitions": {"0": {"0": "9/10", "1": "1/10"},
    ...                                       "1": {"0": "1/10", "1": "9/10"}}}}
    >>> model = from_exogenous_spec(spec)
    >>> model.mdp.layers
    (('s|0', 's|1'), ('t|0', 't|1'))
    >>> from_exogenous_spec(to_exogenous_spec(model)).parts == model.parts
    True
    """
    if not isinstance(spec, Mapping):
        raise InvalidBlockMDP(f"spec must be a JSON object, got {type(spec).__name__}")
    compact = [key for key in ("endogenous", "exogenous") if key in spec]
    if compact and "factorisation" in spec:
        raise InvalidBlockMDP(f"spec: {compact[0]!r} beside 'factorisation': give either an "
                              "endogenous Block MDP and an exogenous chain (the compact form) "
                              "or a Block MDP with its factorisation")
    if compact:
        return _compact(spec, atol)
    if "factorisation" in spec:
        return _declared(spec, atol)
    from_spec(spec, atol)  # a misspelt key ('factorization') is named first
    raise InvalidBlockMDP("spec: declares no factorisation: give 'endogenous' and 'exogenous' "
                          "(an endogenous Block MDP and an exogenous chain) or 'factorisation' "
                          "(each state's endogenous and exogenous label)")


def _compact(spec: Mapping, atol: float) -> ExogenousBlockMDP:
    for key in spec:
        if key not in _COMPACT:
            if key in ("layers", "transitions", "start", "horizon", "actions"):
                raise InvalidBlockMDP(
                    f"spec: {key!r} beside 'endogenous' and 'exogenous': the Block MDP goes under "
                    "'endogenous' (or declare each state's labels under 'factorisation')")
            raise unknown_entry("spec", "key", key, _COMPACT)
    for key in ("endogenous", "exogenous"):
        if key not in spec:
            raise InvalidBlockMDP(f"spec: missing key {key!r} (the compact form has "
                                  "'endogenous' and 'exogenous')")
    name = spec.get("name")
    if name is not None and (not isinstance(name, str) or not name):
        raise InvalidBlockMDP(f"spec: name must be a non-empty string, got {short_repr(name)}")
    endogenous_spec = spec["endogenous"]
    if declares_factorisation(endogenous_spec):
        raise InvalidBlockMDP("endogenous: a Block MDP spec, not an exogenous one (one "
                              "factorisation per spec)")
    try:
        endogenous = from_spec(endogenous_spec, atol)
    except InvalidBlockMDP as error:
        raise InvalidBlockMDP(f"endogenous: {error}") from None
    chain_spec = _exactly(spec["exogenous"], _CHAIN, "exogenous")
    _check_product_size(endogenous, chain_spec["values"])
    try:
        chain = exogenous_chain(chain_spec["values"], chain_spec["start"],
                                chain_spec["transitions"], horizon=endogenous.horizon,
                                atol=atol)
    except UnknownName as error:
        raise InvalidBlockMDP(str(error)) from None
    try:
        return exogenous_block_mdp(endogenous, chain, name)
    except InvalidBlockMDP as error:  # numbers that mix, a product name used twice
        raise InvalidBlockMDP(f"the product of endogenous and exogenous: {error}") from None


def _entries(matrix: Matrix) -> int:
    return int(matrix.count_nonzero() if sp.issparse(matrix) else np.count_nonzero(matrix != 0))


def _check_product_size(endogenous: BlockMDP, values: object) -> None:
    """Refuse a product that would not fit in memory (:data:`PRODUCT_BYTES_PER_ENTRY`), before
    the chain's full rows or the product are built; malformed ``values`` are left to
    :func:`kinematic.exogenous.exogenous_chain`."""
    if not isinstance(values, Sequence) or isinstance(values, str) or not values:
        return
    if all(isinstance(value, str) for value in values):
        counts = [len(values)] * endogenous.horizon
    elif all(isinstance(layer, Sequence) and not isinstance(layer, str) for layer in values):
        counts = [len(layer) for layer in values]
    else:
        return
    if len(counts) != endogenous.horizon:
        return
    entries = sum(_entries(matrix) * counts[h] * counts[h + 1]
                  for h, matrix in enumerate(endogenous.transitions))
    states = sum(endogenous.width(h) * counts[h] for h in range(endogenous.horizon))
    check_memory(PRODUCT_BYTES_PER_ENTRY * (entries + states),
                 f"exogenous: the product Block MDP (about {states:,} states and {entries:,} "
                 "transition entries)")


def _label_table(labels: object, part: str) -> dict[str, str]:
    where = f"factorisation[{part!r}]"
    labels = require_mapping(labels, where)
    for state, label in labels.items():
        if not isinstance(label, str) or not label:
            raise InvalidBlockMDP(f"{where}[{state!r}]: a label is a non-empty string, got "
                                  f"{short_repr(label)}")
    return dict(labels)


def _exactly(value: object, keys: Sequence[str], where: str) -> Mapping:
    """``value``, a mapping with exactly ``keys`` (an unknown one named with the closest, a
    missing one named)."""
    mapping = require_mapping(value, where)
    for key in mapping:
        if key not in keys:
            raise unknown_entry(where, "key", key, keys)
    for key in keys:
        if key not in mapping:
            raise InvalidBlockMDP(f"{where}: missing key {key!r}")
    return mapping


def _declared(spec: Mapping, atol: float) -> ExogenousBlockMDP:
    mdp = from_spec({key: value for key, value in spec.items() if key != "factorisation"},
                    atol)
    declared = _exactly(spec["factorisation"], _PARTS, "factorisation")
    endogenous, exogenous = (_label_table(declared[part], part) for part in _PARTS)
    try:
        return check_factorisation(mdp, endogenous, exogenous)
    except NotFactorised as error:
        raise NotFactorised(f"factorisation does not hold: {error}") from None
    except (InvalidBlockMDP, UnknownName) as error:
        raise InvalidBlockMDP(f"factorisation: {error}") from None


def to_exogenous_spec(model: ExogenousBlockMDP) -> dict:
    """The spec of ``model`` in the declared form: :func:`kinematic.spec.to_spec` of its Block
    MDP and ``factorisation``, each state's endogenous and exogenous label (as in
    ``model.parts``), so that :func:`from_exogenous_spec` gives ``model``'s Block MDP, chain and
    parts back (its endogenous part as :func:`kinematic.check_factorisation` recovers it: each
    state emitting itself, the expected rewards)."""
    spec = to_spec(model.mdp)
    spec["factorisation"] = {
        part: {state: model.parts[state][k] for state in model.mdp.states}
        for k, part in enumerate(_PARTS)}
    return spec


def to_compact_exogenous_spec(model: ExogenousBlockMDP) -> dict:
    """The spec of ``model`` in the compact form: its endogenous Block MDP's spec and its chain
    (``values`` and ``transitions`` once when every step is the same, else one per layer and
    step) - a fraction of the declared form's size (the chain's entries instead of the product's),
    for a model that is the product of its parts (:func:`kinematic.exogenous_block_mdp`).

    Raises
    ------
    ValueError
        When the product of ``model``'s parts is not its Block MDP (a model recovered by
        :func:`kinematic.check_factorisation` from an MDP whose observations or stochastic
        rewards its parts do not keep): write it with :func:`to_exogenous_spec`.

    >>> from kinematic import exogenous_combination_lock
    >>> spec = to_compact_exogenous_spec(exogenous_combination_lock(3, 2, 0, bits=1))
    >>> spec["exogenous"]["values"], spec["exogenous"]["transitions"]["0"]
    (['0', '1'], {'0': '9/10', '1': '1/10'})
    >>> lock = exogenous_combination_lock(3, 2, 0, bits=1)
    >>> to_spec(from_exogenous_spec(spec).mdp) == to_spec(lock.mdp)
    True
    """
    chain, number = model.chain, model.mdp.mode.to_json

    def row(distribution: Mapping[str, Number]) -> dict[str, object]:
        return {value: number(p) for value, p in distribution.items() if p}

    steps = [{value: row(distribution) for value, distribution in step.items()}
             for step in chain.transitions]
    stationary = len(set(chain.layers)) == 1 and all(step == steps[0] for step in steps)
    exogenous = {"values": list(chain.layers[0]) if stationary else
                 [list(layer) for layer in chain.layers],
                 "start": row(chain.start),
                 "transitions": (steps[0] if steps else {}) if stationary else steps}
    spec = {"name": model.mdp.name, "endogenous": to_spec(model.endogenous),
            "exogenous": exogenous}
    if to_spec(from_exogenous_spec(spec).mdp) != to_spec(model.mdp):
        raise ValueError(f"{model.mdp.name!r} is not the product of its endogenous part and its "
                         "chain (they do not keep its observations or stochastic rewards): "
                         "write it in the declared form (to_exogenous_spec)")
    return spec


def dumps_exogenous_spec(model: ExogenousBlockMDP, indent: int | None = 1) -> str:
    """:func:`to_exogenous_spec` as JSON text."""
    return json.dumps(to_exogenous_spec(model), indent=indent)


def load_exogenous_spec(path: str | Path, atol: float = DEFAULT_ATOL) -> ExogenousBlockMDP:
    """Read the spec file of an exogenous Block MDP (either form); every error names the file,
    as :func:`kinematic.spec.load_spec`'s do (:func:`kinematic.spec.read_spec_file`)."""
    return read_spec_file(path, lambda spec: from_exogenous_spec(spec, atol))


def load_with_factorisation(path: str | Path, atol: float = DEFAULT_ATOL
                            ) -> tuple[BlockMDP, ExogenousBlockMDP | None]:
    """Read any spec file: its Block MDP and, when the spec declares a factorisation (either
    form), the :class:`~kinematic.exogenous.ExogenousBlockMDP` (else None). The file is read
    once; errors as :func:`kinematic.spec.load_spec`'s."""
    def build(spec: object) -> tuple[BlockMDP, ExogenousBlockMDP | None]:
        if declares_factorisation(spec):
            model = from_exogenous_spec(spec, atol)
            return model.mdp, model
        return from_spec(spec, atol), None

    return read_spec_file(path, build)
