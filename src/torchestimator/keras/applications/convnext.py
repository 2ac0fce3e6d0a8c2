"""`tf.keras.applications.convnext`: ConvNeXtTiny/Small/Base/Large/XLarge and their (identity)
input preprocessing."""

from torchestimator.keras.applications._convnext import (
    ConvNeXtBase,
    ConvNeXtLarge,
    ConvNeXtSmall,
    ConvNeXtTiny,
    ConvNeXtXLarge,
    decode_predictions,
    preprocess_input,
)

__all__ = ["ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny", "ConvNeXtXLarge",
           "decode_predictions", "preprocess_input"]
