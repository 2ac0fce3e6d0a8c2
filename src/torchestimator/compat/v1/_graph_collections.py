"""TF1's graph collections (`tf.compat.v1.global_variables`, `trainable_variables`,
`GraphKeys`, `get_collection`, `add_to_collection`, ...). They live with TF1's variable store in
`tf.train` (`train._graph_collections`, issue 27); this module re-exports them (the same objects).
"""

from torchestimator.train._graph_collections import (  # noqa: F401 (re-exported)
    GraphKeys,
    _filtered,
    _is_trainable,
    add_to_collection,
    add_to_collections,
    get_collection,
    get_collection_ref,
    global_variables,
    regularization_losses,
    trainable_variables,
)

