"""`tf.summary`: TensorBoard summaries into the default writer (`create_file_writer(logdir)`
then `with writer.as_default():`), or, inside a `model_fn`, into the step the Estimator's
SummarySaverHook writes every `save_summary_steps`. The event files are TensorBoard's."""

from torchestimator.summary import experimental
from torchestimator.summary._summary import (
    SummaryWriter,
    audio,
    create_file_writer,
    create_noop_writer,
    flush,
    graph,
    histogram,
    image,
    record_if,
    scalar,
    should_record_summaries,
    text,
    trace_export,
    trace_off,
    trace_on,
    write,
)

__all__ = [
    "SummaryWriter", "audio", "create_file_writer", "create_noop_writer", "experimental", "flush",
    "graph", "histogram", "image", "record_if", "scalar", "should_record_summaries", "text",
    "trace_export", "trace_off", "trace_on", "write",
]
