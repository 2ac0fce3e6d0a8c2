"""Every public class of TF 2.15 that we have has TF's public methods: a program that calls
`layer.get_output_at(0)`, `model.fit_generator(...)` or `tf.TensorSpec.from_tensor(t)` finds
them. The reference is the methods tests/fixtures/tf_signatures_2.15.json records for each
class (the public functions TF's and Keras' classes define, inherited ones included).

What we leave out on purpose is listed with why: by method name in METHOD_EXCEPTIONS (TF's
protobuf and graph machinery), by class in CLASS_EXCEPTIONS; an exception that no longer
applies fails too. Whether the methods take TF's arguments is tests/test_signature_parity.py's
job.
"""

from __future__ import annotations

import inspect

import pytest

from test_signature_parity import CALLABLES, _namespace, _ours, _tf_methods

_PROTO = "protobuf serialization of TF's graph objects (GraphDef, MetaGraphDef, SaverDef, " \
         "ClusterDef, TypeSpec protos): nothing here writes or reads those protos"
_TRACE = "tf.function's tracing protocol (TraceType placeholders and tensor flattening), " \
         "internal to TF's function tracing, which torch.compile replaces here"
_GRAPH = "TF1 graph machinery (a tensor's consuming ops, evaluation in a Session, graph " \
         "collections), which eager PyTorch does not have"
_STRATEGY_V1 = "TF1-era Strategy methods (input iterators made by the strategy, " \
               "experimental_run, configure with a ConfigProto, colocation, grouping of " \
               "update ops): TF 2.15 deprecates them for distribute_datasets_from_function " \
               "and run, which we have"

METHOD_EXCEPTIONS: dict[str, str] = {
    "experimental_as_proto": _PROTO, "experimental_from_proto": _PROTO,
    "experimental_type_proto": _PROTO, "as_proto": _PROTO, "to_proto": _PROTO,
    "from_proto": _PROTO, "as_cluster_def": _PROTO, "as_saver_def": _PROTO,
    "export_meta_graph": _PROTO, "add_meta_graph": _PROTO, "update_config_proto": _PROTO,
    "as_signature_def": _PROTO,
    "placeholder_value": _TRACE, "to_tensors": _TRACE, "from_tensors": _TRACE,
    "flatten": _TRACE, "cast": _TRACE,
    "consumers": _GRAPH, "eval": _GRAPH,
    "make_dataset_iterator": _STRATEGY_V1, "make_input_fn_iterator": _STRATEGY_V1,
    "experimental_run": _STRATEGY_V1, "configure": _STRATEGY_V1, "unwrap": _STRATEGY_V1,
    "group": _STRATEGY_V1, "colocate_vars_with": _STRATEGY_V1,
}

_METRIC = "our Keras metrics are not Keras layers (TF's Metric subclasses Layer); a metric " \
          "has the Metric API (update_state, result, reset_state, variables, get_config), " \
          "not the layer methods TF's inherits"
_DTYPE = "tf.DType here is the class of torch.dtype (tf.float32 is torch.float32), which " \
         "carries no TraceType methods"

CLASS_EXCEPTIONS: dict[str, str] = {
    **{f"keras.metrics.{name}": _METRIC for name, entry in CALLABLES["keras.metrics"].items()
       if "mro" in entry},
    "tf.DType": _DTYPE, "compat.v1.DType": _DTYPE, "dtypes.DType": _DTYPE,
    "distribute.TPUStrategy": "no TPU here: TPUStrategy exists so that programs naming it "
                              "import, and refuses to run",
    "compat.v1.train.Saver": "TF1's Saver over our checkpoint format keeps save/restore and "
                             "the checkpoint list, not its graph-building methods (build, "
                             "set_last_checkpoints over a SaverDef)",
}


def _missing(module: str) -> dict[str, list[str]]:
    try:
        namespace = _namespace(module)
    except AttributeError:
        return {}
    found = {}
    for name, entry in CALLABLES[module].items():
        key = f"{module}.{name}"
        obj = _ours(namespace, name)
        if obj is None or not inspect.isclass(obj) or "mro" not in entry:
            continue
        lacking = sorted(m for m in _tf_methods(entry["mro"])
                         if m not in METHOD_EXCEPTIONS and not hasattr(obj, m))
        if lacking:
            found[key] = lacking
    return found


@pytest.mark.parametrize("module", sorted(CALLABLES))
def test_classes_have_tensorflows_public_methods(module):
    found = _missing(module)
    unexplained = {k: v for k, v in found.items() if k not in CLASS_EXCEPTIONS}
    stale = [k for k in CLASS_EXCEPTIONS if k.rsplit(".", 1)[0] == module and k not in found]
    lines = [f"{k} lacks {', '.join(v)}" for k, v in sorted(unexplained.items())]
    lines += [f"{k}: listed as lacking methods, but it has them all now: remove the exception"
              for k in stale]
    assert not lines, f"{len(lines)} classes lack TF 2.15's public methods:\n" + "\n".join(lines)
