"""`tf.version`: the TensorFlow API level this package follows, and the package's own version.

`VERSION` (and `tf.__version__`) is the TensorFlow release whose API and behaviour the package
reproduces, so programs that branch on `tf.__version__.startswith("2")` take their TF 2 path;
`TORCHESTIMATOR_VERSION` is the package's own release (`torchestimator --version`). There is no
TensorFlow runtime: `GIT_VERSION` and `COMPILER_VERSION` describe this package and the torch
build it runs on, and the GraphDef versions are TF 2.15's.
"""

import torch as _torch

#: The TensorFlow release whose public API the package follows.
VERSION = "2.15.1"
#: The package's own release.
TORCHESTIMATOR_VERSION = "0.1.0"
GIT_VERSION = f"torchestimator-{TORCHESTIMATOR_VERSION}"
COMPILER_VERSION = f"torch {_torch.__version__}"
CXX_VERSION = COMPILER_VERSION
CXX11_ABI_FLAG = int(_torch.compiled_with_cxx11_abi())
MONOLITHIC_BUILD = 0
GRAPH_DEF_VERSION = 1645
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

__all__ = [
    "COMPILER_VERSION", "CXX11_ABI_FLAG", "CXX_VERSION", "GIT_VERSION", "GRAPH_DEF_VERSION",
    "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER", "MONOLITHIC_BUILD",
    "TORCHESTIMATOR_VERSION", "VERSION",
]
