"""Makes this Python behave as if some packages were not installed: importing a top-level module
named in `$TORCHESTIMATOR_TEST_WITHOUT` (space-separated) raises `ModuleNotFoundError`.

    TORCHESTIMATOR_TEST_WITHOUT="moto s3fs pydot mkdocs" PYTHONPATH=tools/without_packages:src ...

`tools/torch_release_check.sh` puts it on `PYTHONPATH` when `WITHOUT` is set, to run the suite
with the package set of a machine that lacks some (the GPU image of issue 28 has no `s3fs`,
`moto`, `pydot` or `mkdocs`): the tests that need one must skip, not fail. Processes started
with the same environment inherit it.
"""

import os
import sys

_WITHOUT = frozenset(os.environ.get("TORCHESTIMATOR_TEST_WITHOUT", "").split())


class _Refuse:
    """A meta path finder that refuses the modules of `_WITHOUT` (and their submodules)."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in _WITHOUT:
            raise ModuleNotFoundError(f"No module named {name!r} (TORCHESTIMATOR_TEST_WITHOUT)", name=name)
        return None


if _WITHOUT:
    sys.meta_path.insert(0, _Refuse())
