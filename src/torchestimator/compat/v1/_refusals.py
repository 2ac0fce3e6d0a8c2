"""The `tf.compat.v1` names of TF 1.x graph machinery, which has no meaning when every op runs
eagerly on PyTorch: using one raises `GraphMachineryError` naming it and what to write instead.
`docs/refusals.md` lists them with the reason (a test keeps the two in step)."""

from __future__ import annotations

from typing import Any

from torchestimator._refused import GraphMachineryError

_SESSION = ("there is no graph to run: ops run eagerly, so read a value with `.numpy()`, and "
            "train with an Estimator or Keras' fit")
_QUEUE = "input queues are replaced by tf.data: build the input with tf.data.Dataset"
_READER = ("file readers are replaced by tf.data: use tf.data.TFRecordDataset, TextLineDataset, "
           "FixedLengthRecordDataset or tf.io.read_file")
_GRADIENT = "gradients are registered for graph ops; use tf.custom_gradient for your own gradient"

#: name -> what to write instead
REFUSED: dict[str, str] = {
    "Session": _SESSION,
    "InteractiveSession": _SESSION,
    "get_default_session": _SESSION,
    "get_session_handle": _SESSION,
    "get_session_tensor": _SESSION,
    "delete_session_tensor": _SESSION,
    "Graph": "there is no graph: ops run eagerly (model code goes in a model_fn or a Keras model)",
    "get_default_graph": "there is no graph: ops run eagerly (model code goes in a model_fn or a Keras model)",
    "import_graph_def": "GraphDefs are not executed: load a SavedModel export with tf.saved_model.load",
    "Operation": "there are no graph operations: ops return tensors directly",
    "make_template": "templates share graph variables: use a Keras layer or tf.Module, which own their variables",
    "wrap_function": "functions run eagerly: call the Python function itself (tf.function is accepted)",
    "add_check_numerics_ops": "add_check_numerics_ops() is not compatible with eager execution; use "
                              "tf.debugging.check_numerics on the tensors to check",
    "gradients": "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape "
                 "instead",
    "hessians": "tf.hessians is not supported when eager execution is enabled. Use nested "
                "tf.GradientTape instead",
    "FIFOQueue": _QUEUE,
    "PaddingFIFOQueue": _QUEUE,
    "PriorityQueue": _QUEUE,
    "RandomShuffleQueue": _QUEUE,
    "QueueBase": _QUEUE,
    "ConditionalAccumulator": _QUEUE,
    "ConditionalAccumulatorBase": _QUEUE,
    "SparseConditionalAccumulator": _QUEUE,
    "FixedLengthRecordReader": _READER,
    "IdentityReader": _READER,
    "LMDBReader": _READER,
    "ReaderBase": _READER,
    "TFRecordReader": _READER,
    "TextLineReader": _READER,
    "WholeFileReader": _READER,
    "NoGradient": _GRADIENT,
    "NotDifferentiable": _GRADIENT,
    "no_gradient": _GRADIENT,
    "RegisterGradient": _GRADIENT,
    "load_op_library": "custom TensorFlow C++ ops cannot run on PyTorch: write the op with torch "
                       "(torch.library for a custom kernel)",
    "load_library": "custom TensorFlow C++ libraries cannot run on PyTorch: write the op with torch",
    "load_file_system_library": "TensorFlow file-system plug-ins do not apply: model_dir and tf.data "
                                "read any fsspec URL (s3://, gs://, ...)",
}


class _Refused:
    """Stands for a refused name: calling it, or reading any attribute, raises
    `GraphMachineryError`."""

    def __init__(self, name: str, instead: str):
        self.__name__ = name
        self._instead = instead

    def _refuse(self) -> GraphMachineryError:
        return GraphMachineryError(
            f"tf.compat.v1.{self.__name__} is TensorFlow 1.x graph machinery, which torchestimator "
            f"does not have: {self._instead}. (docs/refusals.md lists every such name.)"
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._refuse()

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        raise self._refuse()

    def __repr__(self) -> str:
        return f"<refused tf.compat.v1.{self.__name__}>"


def refused(name: str) -> _Refused:
    """The stand-in of refused name `name`."""
    return _Refused(name, REFUSED[name])
