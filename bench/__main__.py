"""`python -m bench`: runs the peer suite and writes docs/performance.md (see bench/run.py)."""

from bench.run import main

raise SystemExit(main())
