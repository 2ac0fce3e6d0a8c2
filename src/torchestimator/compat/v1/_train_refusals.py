"""TF 1.x input-queue and cluster-runtime names of `tf.compat.v1.train`: refused by name,
raising `GraphMachineryError` with what to write instead."""

from __future__ import annotations

from typing import Any

from torchestimator.compat.v1._refusals import GraphMachineryError

_QUEUE = "input queues are replaced by tf.data: build the input with tf.data.Dataset"
_RUNTIME = ("TensorFlow's distributed runtime (servers, graph protos) does not exist here: "
            "train on several devices or machines with tf.distribute strategies")

#: name -> what to write instead
REFUSED_TRAIN: dict[str, str] = {
    **{name: _QUEUE for name in (
        "QueueRunner", "add_queue_runner", "start_queue_runners", "queue_runner", "input_producer",
        "string_input_producer", "range_input_producer", "slice_input_producer", "limit_epochs",
        "batch", "batch_join", "shuffle_batch", "shuffle_batch_join", "maybe_batch",
        "maybe_batch_join", "maybe_shuffle_batch", "maybe_shuffle_batch_join",
        "match_filenames_once", "LooperThread")},
    **{name: _RUNTIME for name in ("Server", "Supervisor", "SessionManager", "SyncReplicasOptimizer",
                                   "export_meta_graph", "import_meta_graph", "write_graph",
                                   "do_quantize_training_on_graphdef")},
}


class _RefusedTrain:
    """Stands for a refused `tf.compat.v1.train` name: calling it or reading an attribute raises."""

    def __init__(self, name: str, instead: str):
        self.__name__ = name
        self._instead = instead

    def _refuse(self) -> GraphMachineryError:
        return GraphMachineryError(
            f"tf.compat.v1.train.{self.__name__} is TensorFlow 1.x graph machinery, which "
            f"torchestimator does not have: {self._instead}.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._refuse()

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        raise self._refuse()

    def __repr__(self) -> str:
        return f"<refused tf.compat.v1.train.{self.__name__}>"


def refused_train_name(name: str) -> _RefusedTrain | None:
    """The refusing stand-in of `tf.compat.v1.train.<name>`, or None if it is not refused."""
    instead = REFUSED_TRAIN.get(name)
    return None if instead is None else _RefusedTrain(name, instead)
