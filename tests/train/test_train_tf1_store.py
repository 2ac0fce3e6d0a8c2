"""tf.train without tf.compat.v1 (issue 27): TF1's variable store lives in `train._variable_store`
(with its collections in `train._graph_collections`), and `tf.compat.v1` re-exports it, so
tf.train and tf.compat.v1 use one store whether or not compat has loaded."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope
from torchestimator.compat.v1 import _graph_collections as compat_collections
from torchestimator.compat.v1 import _variable_scope, _variable_store
from torchestimator.train import _graph_collections, _moving_averages
from torchestimator.train import _variable_store as store

v1 = tf.compat.v1


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def _model_fn_scope(mode="train"):
    scope = ObjectScope()
    scope.context.begin_call(mode, 0)
    return scope


def test_compat_v1_reexports_the_train_store_objects():
    for name in ("AUTO_REUSE", "_ReuseMode", "_Store", "_store", "reset_default_graph",
                 "_VARIABLE_KEY", "_LAYER_KEY"):
        assert getattr(_variable_store, name) is getattr(store, name), name
        assert getattr(_variable_scope, name) is getattr(store, name), name
    for name in ("global_variables", "trainable_variables", "get_collection", "GraphKeys",
                 "add_to_collection", "get_collection_ref"):
        assert getattr(compat_collections, name) is getattr(_graph_collections, name), name
        assert getattr(v1, name) is getattr(_graph_collections, name), name
    assert v1.get_variable_scope() is store._LOCAL.scope
    assert _variable_store._GLOBAL_STORE is store._GLOBAL_STORE
    assert not hasattr(_variable_scope, "_TrainStore")


def test_store_lists_keras_layers_by_the_registered_class_only():
    """A torch module with `.weights` is not a Keras layer (the registered `Layer` class decides)."""

    class NotALayer(torch.nn.Module):
        weights = [torch.nn.Parameter(torch.zeros(1))]

    scope = _model_fn_scope()
    with scope:
        scope.objects[("test", "not_a_layer")] = NotALayer()
        dense = tf.keras.layers.Dense(2, name="d")
        dense(torch.ones(1, 3))
        names = [n for n, _ in store._store().variables()]
    assert names == ["d/kernel", "d/bias"], names


def test_ema_shadow_and_tf1_get_variable_are_one_variable_in_a_model_fn():
    scope = _model_fn_scope()
    with scope:
        w = v1.get_variable("w", shape=[1], initializer=v1.zeros_initializer())
        shadow = _moving_averages._model_fn_shadow("w/ExponentialMovingAverage", torch.ones(1))
        assert _graph_collections.global_variables() == v1.global_variables() == [w, shadow]
        assert _graph_collections.trainable_variables() == [w]
        with v1.variable_scope("", reuse=True):
            assert v1.get_variable("w/ExponentialMovingAverage") is shadow
    scope.context.begin_call("train", 0)
    with scope:  # the next model_fn call: the same shadow
        assert store.get_or_create_variable("w/ExponentialMovingAverage", torch.zeros(1), False) is shadow
    assert shadow.name == "w/ExponentialMovingAverage:0" and not shadow.trainable
    np.testing.assert_array_equal(shadow.numpy(), [1.0])


def test_create_variable_follows_the_variable_scope():
    """`create_variable` (TF1's global step) is `get_variable` in the current variable scope:
    its prefix, its reuse and its custom getter."""
    seen = []

    def getter(next_getter, name, **kwargs):
        seen.append((name, kwargs["shape"], kwargs["trainable"]))
        return next_getter(name, **kwargs)

    scope = _model_fn_scope()
    with scope:
        with v1.variable_scope("outer", custom_getter=getter):
            step = store.create_variable("count", torch.zeros((), dtype=torch.int64), False)
        assert step.name == "outer/count:0" and step.dtype == torch.int64 and not step.trainable
        assert seen == [("outer/count", (), False)]
        with pytest.raises(ValueError, match="outer/count already exists, disallowed"):
            with v1.variable_scope("outer"):
                store.create_variable("count", torch.zeros((), dtype=torch.int64), False)
        with v1.variable_scope("outer", reuse=True):
            assert store.create_variable("count", torch.ones((), dtype=torch.int64), False) is step
            assert v1.get_variable("count") is step
    assert int(step) == 0


def test_one_store_before_and_after_compat_loads():
    """Without tf.compat.v1 loaded, tf.train's collections list a model_fn's tf.Variables and
    Keras layers (not a torch module with .weights); once compat loads, `tf.compat.v1`
    lists the same objects, and its get_variable sees tf.train's variables."""
    out = _run("""
        import sys
        import torch
        import torchestimator as tf
        from torchestimator._engine.object_scope import ObjectScope
        from torchestimator.train import _graph_collections as gc, _variable_store as store

        class NotALayer(torch.nn.Module):
            weights = [torch.nn.Parameter(torch.zeros(1))]

        outside = tf.keras.layers.Dense(2, name="head")
        scope = ObjectScope()
        scope.context.begin_call("train", 0)
        with scope:
            tf.Variable(3.0, name="t")
            tf.Variable(1, name="count", trainable=False)
            x = tf.keras.layers.Dense(3, name="body")(torch.ones(1, 2))
            outside(x)
            scope.objects[("test", "module")] = NotALayer()
            shadow = store.get_or_create_variable("t/ExponentialMovingAverage", torch.zeros(()), False)
            before = [(n, id(v)) for n, v in store._store().variables()]
            trainable = [id(v) for v in gc.trainable_variables()]
        print("compat-loaded", any(m.startswith("torchestimator.compat") for m in sys.modules))
        print("names", [n for n, _ in before])
        v1 = tf.compat.v1
        with scope:
            print("same", [(n, id(v)) for n, v in store._store().variables()] == before,
                  [id(v) for v in v1.global_variables()] == [i for _, i in before],
                  [id(v) for v in v1.trainable_variables()] == trainable)
            with v1.variable_scope("", reuse=v1.AUTO_REUSE):
                print("reuse", v1.get_variable("t/ExponentialMovingAverage", shape=[]) is shadow)
    """)
    lines = out.splitlines()
    assert lines[0] == "compat-loaded False"
    assert lines[1] == ("names ['t', 'count', 'body/kernel', 'body/bias', "
                        "'t/ExponentialMovingAverage', 'head/kernel', 'head/bias']"), lines[1]
    assert lines[2:] == ["same True True True", "reuse True"]


def test_tf_train_works_without_tf_compat(tmp_path):
    """`import torchestimator.train`: get_checkpoint_state, ClusterDef, ExponentialMovingAverage
    and the global step run without loading torchestimator.compat; when tf.compat.v1 loads
    later, its store takes the global step in (same object, same name rules)."""
    out = _run(f"""
        import sys
        import torch
        import torchestimator as tf
        import torchestimator.train as train

        ckpt = train.Checkpoint(v=tf.Variable(1.0, name="v"))
        manager = train.CheckpointManager(ckpt, {str(tmp_path)!r}, max_to_keep=2)
        manager.save(); manager.save()
        state = train.get_checkpoint_state({str(tmp_path)!r})
        print("state", state.model_checkpoint_path.endswith("ckpt-2"),
              len(state.all_model_checkpoint_paths))
        print("cluster", train.ClusterDef.__name__, train.JobDef(name="w").name)
        w = tf.Variable([0.0, 0.0], name="w")
        ema = train.ExponentialMovingAverage(0.5)
        print("apply-none", ema.apply(), ema.variables_to_restore())
        ema.apply([w]); w.assign([2.0, 4.0]); ema.apply([w])
        print("ema", ema.average(w).name, ema.average(w).numpy().tolist(), sorted(ema.variables_to_restore()))
        step = train.get_or_create_global_step()
        print("step", step.name, train.get_global_step() is step, train.get_or_create_global_step() is step)
        print("compat-loaded", any(m.startswith("torchestimator.compat") for m in sys.modules))
        v1 = tf.compat.v1
        print("adopted", v1.train.get_global_step() is step, v1.global_variables() == [step])
        with v1.variable_scope("", reuse=True):
            print("reuse", v1.get_variable("global_step") is step)
        try:
            v1.train.create_global_step()
        except ValueError as err:
            print("again", err)
    """)
    assert out.splitlines() == [
        "state True 2",
        "cluster ClusterDef w",
        "apply-none None {}",
        "ema w/ExponentialMovingAverage:0 [1.0, 2.0] ['w/ExponentialMovingAverage']",
        "step global_step:0 True True",
        "compat-loaded False",
        "adopted True True",
        "reuse True",
        'again "global_step" already exists.',
    ]


_ESTIMATOR_EMA = """
    import sys
    import numpy as np
    import torchestimator as tf
    if {load_compat}:
        tf.compat.v1.get_variable_scope()

    def model_fn(features, labels, mode):
        dense = tf.keras.layers.Dense(1, name="dense", kernel_initializer="zeros")
        loss = tf.reduce_mean((dense(features["x"]) - labels) ** 2)
        ema = tf.train.ExponentialMovingAverage(0.5)
        ema.apply()
        opt = tf.keras.optimizers.SGD(0.1)
        train_op = opt.minimize(loss, dense.trainable_variables)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        return tf.data.Dataset.from_tensors(
            ({{"x": np.ones([4, 2], np.float32)}}, np.ones([4, 1], np.float32))).repeat()

    tf.estimator.Estimator(model_fn, model_dir={model_dir!r}).train(input_fn, steps=3)
    print("compat-loaded", any(m.startswith("torchestimator.compat") for m in sys.modules))
    for name, shape in tf.train.list_variables({model_dir!r}):
        if "ExponentialMovingAverage" in name:
            print(name, shape, np.round(tf.train.load_variable({model_dir!r}, name), 6).tolist())
"""


def test_estimator_ema_without_tf_compat_matches_with_it(tmp_path):
    """apply() without a var_list in a Keras model_fn: the shadows of the model_fn's trainable
    variables, checkpointed under TF's names, the same whether tf.compat.v1 is loaded or not."""
    without = _run(_ESTIMATOR_EMA.format(load_compat=False, model_dir=str(tmp_path / "a")))
    with_compat = _run(_ESTIMATOR_EMA.format(load_compat=True, model_dir=str(tmp_path / "b")))
    assert without.splitlines()[0] == "compat-loaded False"
    assert with_compat.splitlines()[0] == "compat-loaded True"
    assert without.splitlines()[1:] == with_compat.splitlines()[1:]
    assert any(line.startswith("dense/kernel/ExponentialMovingAverage [2, 1]")
               for line in without.splitlines()), without
