"""``python -m homer``: see :mod:`homer.cli`."""

import sys

from homer.cli import main

sys.exit(main())
