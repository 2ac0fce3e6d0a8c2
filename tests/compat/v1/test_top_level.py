"""`tf.compat.v1`'s top-level names: TF1 signatures (deprecated argument names), TF1 names of
TF2 functions, TF1 protos, the graph-machinery refusals (and their page in docs/). Values are
TF 2.15's (`tf.compat.v1` run by hand in tensorflow-cpu 2.15.1)."""

from __future__ import annotations

import pathlib
import warnings

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.compat.v1._refusals import REFUSED, GraphMachineryError

v1 = tf.compat.v1
DOCS = pathlib.Path(__file__).resolve().parents[3] / "docs" / "refusals.md"


def test_tf1_reductions_take_the_deprecated_argument_names():
    assert v1.reduce_sum([[1, 2], [3, 4]], reduction_indices=1, keep_dims=True).tolist() == [[3], [7]]
    assert v1.reduce_mean([[1.0, 2.0], [3.0, 4.0]], axis=0).tolist() == [2.0, 3.0]
    with pytest.raises(ValueError, match="Cannot specify both 'reduction_indices' and 'axis'"):
        v1.reduce_max([1, 2], axis=0, reduction_indices=0)
    assert v1.count_nonzero([[0, 1], [2, 0]], keep_dims=True).tolist() == [[2]]


def test_tf1_argument_names_and_defaults():
    assert v1.argmax([[1, 3], [4, 2]]).tolist() == [1, 0]  # axis 0 by default
    assert v1.argmin([[1, 3], [4, 2]], dimension=1).tolist() == [0, 1]
    assert v1.arg_max([[1, 3], [4, 2]], 1).tolist() == [1, 0]
    assert v1.expand_dims(tf.constant([1, 2]), dim=0).shape == (1, 2)
    assert v1.squeeze(tf.zeros([1, 2, 1]), squeeze_dims=[2]).shape == (1, 2)
    assert v1.while_loop(lambda i: i < 3, lambda i: i + 1, [0]).item() == 3
    assert v1.cond(tf.constant(True), fn1=lambda: 1, fn2=lambda: 2) == 1


def test_python2_division_and_casts():
    assert v1.div(7, 2).item() == 3 and v1.div(-7, 2).item() == -4 and v1.div(7.0, 2).item() == 3.5
    assert v1.to_float(tf.constant([1, 2])).dtype == torch.float32
    assert v1.to_int64(tf.constant([1.7])).tolist() == [1]
    np.testing.assert_allclose(v1.clip_by_average_norm(tf.constant([3.0, 4.0]), 1.0).numpy(), [1.2, 1.6])


def test_random_seeds_as_tf1():
    tf.random.set_seed(None)
    assert v1.get_seed(None) == (None, None) and v1.get_seed(3) == (87654321, 3)
    v1.set_random_seed(5)
    assert v1.get_seed(3) == (5, 3)
    a = v1.random_normal([3], seed=1)
    v1.set_random_seed(5)
    np.testing.assert_array_equal(a.numpy(), v1.random_normal([3], seed=1).numpy())
    tf.random.set_seed(None)


def test_tf1_names_of_tf2_functions_and_namespaced_ones():
    assert v1.log is tf.math.log and v1.svd is tf.linalg.svd and v1.read_file is tf.io.read_file
    assert v1.matmul is tf.matmul and v1.where_v2 is tf.where and v1.reverse_v2 is tf.reverse
    assert v1.matrix_inverse(tf.constant([[2.0, 0.0], [0.0, 4.0]])).tolist() == [[0.5, 0.0], [0.0, 0.25]]


def test_variables_are_initialized_when_made_and_assign_works():
    v = tf.Variable([1.0, 2.0])
    v1.global_variables_initializer()  # a no-op op
    assert bool(v1.is_variable_initialized(v))
    v1.assign_add(v, [1.0, 1.0])
    assert v.numpy().tolist() == [2.0, 3.0]


def test_protos_are_tfs_messages():
    config = v1.ConfigProto(log_device_placement=True)
    config.gpu_options.allow_growth = True
    assert config.gpu_options.allow_growth and type(config).__name__ == "ConfigProto"
    summary = v1.Summary(value=[v1.Summary.Value(tag="loss", simple_value=0.5)])
    assert summary.value[0].simple_value == 0.5


def test_graph_switches_warn_and_the_program_goes_on():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v1.disable_eager_execution()
        v1.disable_v2_behavior()
    assert len(caught) == 2 and "has no effect" in str(caught[0].message)
    v1.enable_eager_execution()
    assert v1.executing_eagerly_outside_functions()


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_graph_machinery_is_refused_by_name(name):
    with pytest.raises(GraphMachineryError, match=rf"tf\.compat\.v1\.{name} is TensorFlow 1\.x graph"):
        getattr(v1, name)()


def test_the_refusals_page_lists_every_refused_name():
    from torchestimator._refused import all_refused
    from torchestimator.compat.v1._train_refusals import REFUSED_TRAIN

    others = all_refused()  # tf.lite, tf.tpu, tf.distribute.Server, ... (full names)
    text = DOCS.read_text()
    listed = {line.split("`")[1] for line in text.splitlines() if line.startswith("| `tf.")}
    assert listed == ({f"tf.compat.v1.{name}" for name in REFUSED}
                      | {f"tf.compat.v1.train.{name}" for name in REFUSED_TRAIN} | set(others))
    for name in REFUSED_TRAIN:
        with pytest.raises(GraphMachineryError, match=rf"tf\.compat\.v1\.train\.{name} is TensorFlow 1"):
            getattr(v1.train, name)()


def _resolve(full_name):
    obj = tf
    for part in full_name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _other_refusals():
    from torchestimator._refused import all_refused

    return sorted(all_refused())


@pytest.mark.parametrize("full_name", _other_refusals())
def test_other_refused_names_exist_and_raise_naming_themselves(full_name):
    from torchestimator._refused import REFUSED_NAMES

    refused = _resolve(full_name)  # the name exists (a program mentioning it imports)
    with pytest.raises(GraphMachineryError) as info:
        refused()
    message = str(info.value)
    assert message.startswith(f"{full_name} is TensorFlow machinery that torchestimator does not have")
    assert REFUSED_NAMES[full_name] in message  # and says what to write instead
    with pytest.raises(GraphMachineryError):
        refused.some_attribute  # noqa: B018 - reading any attribute refuses too
    if full_name.count(".") == 1:  # a top-level name: tf.compat.v1 has it too
        assert hasattr(v1, full_name.split(".")[1])


def test_refused_classes_cannot_be_subclassed():
    with pytest.raises(GraphMachineryError, match="tf.experimental.ExtensionType"):
        class Point(tf.experimental.ExtensionType):  # noqa: F841
            x: float
