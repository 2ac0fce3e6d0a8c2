"""`tf.keras.preprocessing.sequence`: `pad_sequences` (the same function as
`tf.keras.utils.pad_sequences`), `TimeseriesGenerator`, `make_sampling_table` and `skipgrams`
(Keras 2.15's)."""

from torchestimator.keras.preprocessing._sequence_extras import (
    TimeseriesGenerator,
    make_sampling_table,
    skipgrams,
)
from torchestimator.keras.utils._sequence_utils import pad_sequences

__all__ = ["TimeseriesGenerator", "make_sampling_table", "pad_sequences", "skipgrams"]
