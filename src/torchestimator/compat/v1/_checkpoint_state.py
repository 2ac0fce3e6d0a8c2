"""TF1's checkpoint-state functions (`get_checkpoint_state`, `generate_checkpoint_state_proto`,
`update_checkpoint_state`) and `CheckpointState`. They live with `tf.train`
(`train._checkpoint_state`); this module re-exports them for `tf.compat.v1.train`."""

from torchestimator.train._checkpoint_state import (
    CheckpointState,
    generate_checkpoint_state_proto,
    get_checkpoint_state,
    update_checkpoint_state,
)

__all__ = ["CheckpointState", "generate_checkpoint_state_proto", "get_checkpoint_state",
           "update_checkpoint_state"]
