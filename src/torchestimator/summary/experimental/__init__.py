"""`tf.summary.experimental`: the default step (`set_step` / `get_step`), `summary_scope`,
`write_raw_pb`."""

from torchestimator.summary._summary import get_step, set_step, summary_scope, write_raw_pb

__all__ = ["get_step", "set_step", "summary_scope", "write_raw_pb"]
