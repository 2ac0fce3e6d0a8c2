"""`tf.lite`: TensorFlow Lite's converter and interpreter, refused by name: a model here is a
PyTorch model, which TFLite cannot run. Export it with `tf.saved_model.save` (served by
torchestimator's model server) or `torch.onnx.export` (for ONNX runtimes, and from ONNX to
mobile formats). Calling any name raises `GraphMachineryError` saying so."""

from __future__ import annotations

from torchestimator._refused import refuse, refused_module

_LITE = ("TensorFlow Lite converts and runs TF graphs, and a model here is a PyTorch model: export it "
         "with tf.saved_model.save, or with torch.onnx.export for ONNX runtimes and mobile")

Interpreter = refuse("tf.lite.Interpreter", _LITE)
OpsSet = refuse("tf.lite.OpsSet", _LITE)
Optimize = refuse("tf.lite.Optimize", _LITE)
RepresentativeDataset = refuse("tf.lite.RepresentativeDataset", _LITE)
TFLiteConverter = refuse("tf.lite.TFLiteConverter", _LITE)
TargetSpec = refuse("tf.lite.TargetSpec", _LITE)
experimental = refused_module("tf.lite.experimental", "TFLite's experimental API (refused).", {
    name: _LITE for name in ("Analyzer", "OpResolverType", "QuantizationDebugOptions",
                             "QuantizationDebugger", "authoring", "load_delegate")})

__all__ = ["Interpreter", "OpsSet", "Optimize", "RepresentativeDataset", "TFLiteConverter",
           "TargetSpec", "experimental"]
