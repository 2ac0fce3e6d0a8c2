"""TF1's global-step functions (`get_global_step`, `create_global_step`,
`get_or_create_global_step`, `global_step`, `assert_global_step`). They live with `tf.train`
(`train._tf1_global_step`, over TF1's variable store, `train._variable_store`); this module
re-exports them for `tf.compat.v1.train`."""

from torchestimator.train._tf1_global_step import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)

__all__ = ["assert_global_step", "create_global_step", "get_global_step", "get_or_create_global_step",
           "global_step"]
