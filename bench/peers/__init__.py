"""One module per peer: the same workloads written for each implementation.

* `tf_api`: torchestimator (`import torchestimator as tf`) and TensorFlow 2.15 (same code);
* `torch_loop`: hand-written PyTorch loops;
* `lightning_peer`: Lightning 2.x;
* `keras3_peer`: Keras 3 on the torch backend;
* `arrow_pandas`: PyArrow and pandas readers for the input-pipeline rows/s.

`_worker` runs jobs for one implementation in one process (JSON lines on stdin/stdout).
"""
