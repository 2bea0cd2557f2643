"""HOMER (``alg:learn_homing_policy``) on rich observations, in PyTorch.

Importing the package registers ``kinematic/DiabolicalCombinationLock-v0`` with gymnasium.
"""

import gymnasium

if "kinematic/DiabolicalCombinationLock-v0" not in gymnasium.registry:
    gymnasium.register(
        id="kinematic/DiabolicalCombinationLock-v0",
        entry_point="homer.envs:lock_environment",
    )
