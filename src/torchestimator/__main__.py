"""`python -m torchestimator`: the `torchestimator` command."""

import sys

from torchestimator.cli import main

sys.exit(main())
