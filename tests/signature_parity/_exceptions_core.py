"""Signature differences from TF 2.15 kept on purpose (core area): key -> why."""

EXCEPTIONS: dict[str, str] = {
    "compat.v1.nn.quantized_conv2d": (
        "The default is TF's, tf.qint32 (torchestimator's ExtraDType, stored as int32), which the "
        "fixture's 'dtype:<name>' comparison reads only for torch dtypes."),
    "compat.v1.nn.quantized_relu_x": (
        "The default is TF's, tf.quint8 (torchestimator's ExtraDType, stored as uint8), which the "
        "fixture's 'dtype:<name>' comparison reads only for torch dtypes."),
}
