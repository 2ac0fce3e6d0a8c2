"""Started in every Python subprocess of a lazy-backend test run (`lazy_suite.install` puts
this folder on `PYTHONPATH`): the subprocess gets the same harness as the test process -- the
routing around the backend's bugs and a graph cut after each step -- so its results mean what
the test process's mean."""

import os
import sys

if os.environ.get("TORCHESTIMATOR_DEVICE", "").startswith("lazy"):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from _harness import lazy_suite

    lazy_suite.install()
