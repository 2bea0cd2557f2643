"""``python -m kinematic``: see :mod:`kinematic.cli`."""

import sys

from kinematic.cli import main

sys.exit(main())
