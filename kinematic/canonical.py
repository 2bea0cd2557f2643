"""The canonical form of a Block MDP (paper, Section 3, Figure ``fig:mdp-canonical``).

A Block MDP is in canonical form when two observations share a latent state iff they are
kinematically inseparable. :func:`canonical_form` merges every KI class (``def:ki``) into one
state: the quotient by the KI partition (:func:`kinematic.quotient.quotient`, which is always
defined for it: members of a KI class are forward KI, so they have the same rows, and backward
KI, so each one's share of the class is the same under every policy, ``lem:bki-policy-ratio``).

The result emits the same observation process as the original under every observation policy,
and is its own canonical form.
"""

from __future__ import annotations

from kinematic.errors import InvalidPartition
from kinematic.inseparability import ki_partition
from kinematic.model import BlockMDP
from kinematic.partition import Partition, check_partition_of
from kinematic.quotient import Quotient, quotient

__all__ = ["canonical_form"]


def canonical_form(mdp: BlockMDP, partition: Partition | None = None) -> Quotient:
    """Merge the KI classes of ``mdp`` (``def:ki``) into single states.

    Parameters
    ----------
    partition : Partition, optional
        ``ki_partition(mdp)`` if already computed, for this very ``mdp`` object (its ``mdp`` is
        ``mdp``): it is trusted to be the KI partition. :func:`kinematic.quotient.quotient`
        merges the blocks of any other partition.

    Raises
    ------
    InvalidPartition
        When ``partition`` is not the KI partition computed for ``mdp``.

    >>> from kinematic import canonical_form, figure2_split
    >>> canonical_form(figure2_split()).state_map
    {'s1': 's1', 's2a': 's2a+s2b', 's2b': 's2a+s2b', 's3': 's3'}
    """
    if partition is None:
        return quotient(mdp, ki_partition(mdp))
    check_partition_of(mdp, partition)
    if partition.kind != "ki":
        given = f"a {partition.kind!r} partition"
    elif partition.mdp is None:
        given = "a 'ki' partition without its MDP"
    elif partition.mdp is not mdp:
        given = (f"the KI partition of another BlockMDP object with the same states (named "
                 f"{partition.mdp.name!r})")
    else:
        return quotient(mdp, partition)
    raise InvalidPartition(
        f"partition: canonical_form needs the KI partition of this very MDP (ki_partition(mdp)), "
        f"got {given} (quotient(mdp, partition) merges the blocks of any partition)")
