"""``python -m proofs_checks``: see :mod:`proofs_checks.cli`."""

import sys

from proofs_checks.cli import main

sys.exit(main())
