"""Top-level paths no other test runs: `tf.config.experimental` device policy / synchronous
execution / memory stats, `TensorShape` rank checks, `TensorArray` / `TensorArraySpec` /
`IndexedSlices` / `IndexedSlicesSpec` properties, `TypeSpec.most_specific_compatible_type`,
`tf.sparse.map_values`, `DeviceSpec.parse_from_string`, `ForwardAccumulator.watch`,
`tf.experimental.enable_strict_mode`, `tf.types.experimental.Callable.function_type`,
`tf.guarantee_const` / `tf.no_gradient`, `tf.io.gfile.GFile` accessors, and `tf.train`'s
`Coordinator`, `CheckpointOptions`, `CheckpointManager.checkpoint`, `CheckpointReader.debug_string`."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.experimental import _experimental


def test_device_policy_and_synchronous_execution():
    previous = tf.config.experimental.get_device_policy()
    try:
        for policy in ("explicit", "warn", "silent_for_int32", "silent"):
            tf.config.experimental.set_device_policy(policy)
            assert tf.config.experimental.get_device_policy() == policy
        tf.config.experimental.set_device_policy(None)  # back to the default
        assert tf.config.experimental.get_device_policy() == "silent"
        with pytest.raises(ValueError, match="device_policy.*'bogus'"):
            tf.config.experimental.set_device_policy("bogus")
    finally:
        tf.config.experimental.set_device_policy(previous)
    try:
        tf.config.experimental.set_synchronous_execution(False)
        assert tf.config.experimental.get_synchronous_execution() is False
    finally:
        tf.config.experimental.set_synchronous_execution(True)
    assert tf.config.experimental.get_synchronous_execution() is True


def test_memory_stats_on_the_cpu():
    tf.config.experimental.reset_memory_stats("CPU:0")
    assert tf.config.experimental.get_memory_usage("CPU:0") == 0
    with pytest.raises(ValueError, match="GPU"):
        tf.config.experimental.get_memory_growth(tf.config.list_physical_devices("CPU")[0])


def test_tensor_shape_rank_checks():
    shape = tf.TensorShape([2, None, 3])
    assert shape.with_rank_at_least(2) == shape and shape.with_rank_at_most(3) == shape
    shape.assert_has_rank(3)
    with pytest.raises(ValueError, match="at least 4"):
        shape.with_rank_at_least(4)
    with pytest.raises(ValueError, match="at most 2"):
        shape.with_rank_at_most(2)
    with pytest.raises(ValueError, match="rank 2"):
        shape.assert_has_rank(2)
    assert tf.TensorShape(None).with_rank_at_least(2).rank is None


def test_tensor_array_and_spec_properties():
    ta = tf.TensorArray(tf.float32, size=2, dynamic_size=True, element_shape=[3])
    assert ta.dtype == tf.float32 and ta.dynamic_size is True
    assert ta.flow is None and ta.handle is None
    ta = ta.write(0, [1.0, 2.0, 3.0]).write(1, [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(ta.identity().stack().numpy(), [[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match="GradientTape"):
        ta.grad("source")
    spec = tf.TensorArraySpec.from_value(ta)
    assert spec.element_shape.as_list() == [3] and spec.dtype == tf.float32
    assert spec.dynamic_size is True
    assert tf.type_spec_from_value(ta) == spec
    ta.close()


def test_indexed_slices_properties():
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    assert slices.device == str(slices.values.device) and slices.name is None  # a device name
    assert slices.consumers() == []
    with pytest.raises(AttributeError, match="eagerly"):
        slices.op  # noqa: B018
    spec = tf.IndexedSlicesSpec([3, 2], tf.float32)
    assert tuple(spec.shape) == (3, 2) and spec.dtype == tf.float32


def test_most_specific_compatible_type():
    a, b = tf.SparseTensorSpec([2, 3], tf.float32), tf.SparseTensorSpec([2, 4], tf.float32)
    assert a.most_specific_compatible_type(b) == tf.SparseTensorSpec([2, None], tf.float32)
    with pytest.raises(ValueError, match="compatible"):
        a.most_specific_compatible_type(tf.SparseTensorSpec([2, 3], tf.int32))
    assert tf.SparseTensorSpec([2, 3]).value_type is tf.sparse.SparseTensor


def test_sparse_map_values():
    sp = tf.sparse.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 3])
    other = tf.sparse.SparseTensor([[0, 1], [2, 0]], [10.0, 20.0], [3, 3])
    out = tf.sparse.map_values(tf.math.add, sp, other)
    assert out.indices.tolist() == [[0, 1], [2, 0]] and out.dense_shape.tolist() == [3, 3]
    assert out.values.tolist() == [11.0, 22.0]
    assert tf.sparse.map_values(tf.math.multiply, sp, 3.0).values.tolist() == [3.0, 6.0]
    assert tf.sparse.map_values(tf.ones_like, sp).to_dense().numpy().sum() == 2.0
    with pytest.raises(ValueError, match="indices"):
        tf.sparse.map_values(tf.math.add, sp, tf.sparse.SparseTensor([[0, 0], [2, 0]], [1.0, 2.0], [3, 3]))
    with pytest.raises(ValueError, match="SparseTensor"):
        tf.sparse.map_values(tf.math.add, 1.0, 2.0)


def test_device_spec_parse_from_string():
    spec = tf.DeviceSpec.from_string("/job:w/replica:0/task:1/device:GPU:2")
    parsed = spec.parse_from_string("/job:a/task:3/device:CPU:0")
    assert parsed.to_string() == "/job:a/task:3/device:CPU:0"
    assert (parsed.job, parsed.task, parsed.device_type, parsed.device_index) == ("a", 3, "CPU", 0)
    v1 = tf.compat.v1.DeviceSpec()
    assert v1.parse_from_string("/job:a/task:3/device:CPU:0") is v1  # TF1's mutates itself
    assert v1.to_string() == "/job:a/task:3/device:CPU:0"


def test_forward_accumulator_watch():
    x = tf.constant(2.0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        y = x * x
        z = tf.constant(3.0)
        acc.watch(z, tf.constant(10.0))
        w = y * z
    # d(x^2 z) = 2 x z dx + x^2 dz = 12 + 40
    assert float(acc.jvp(w)) == 52.0
    with pytest.raises(ValueError, match="outside"):
        acc.watch(z, tf.constant(1.0))


def test_enable_strict_mode_turns_deprecations_into_errors():
    with warnings.catch_warnings():
        previous = _experimental._STRICT["enabled"]
        try:
            assert _experimental.strict_mode_enabled() is previous
            tf.experimental.enable_strict_mode()
            assert _experimental.strict_mode_enabled() is True
            with pytest.raises(DeprecationWarning):
                warnings.warn("old", DeprecationWarning, stacklevel=1)
        finally:
            _experimental._STRICT["enabled"] = previous


def test_callable_function_type():
    class Add(tf.types.experimental.Callable):
        def __call__(self, x, y=1):
            return x + y

    assert list(Add().function_type.parameters) == ["x", "y"]
    assert Add().function_type.parameters["y"].default == 1


def test_guarantee_const_and_no_gradient():
    np.testing.assert_array_equal(tf.guarantee_const([1.0, 2.0]).numpy(), [1.0, 2.0])
    assert tf.no_gradient("MyOp") is None
    with pytest.raises(TypeError, match="op_type"):
        tf.no_gradient(3)


def test_gfile_accessors(tmp_path):
    path = str(tmp_path / "f.txt")
    with tf.io.gfile.GFile(path, "w") as f:
        assert (f.name, f.mode) == (path, "w")
        f.write("a\nb\n")
        f.flush()
    with tf.io.gfile.GFile(path, "r") as f:
        assert f.seekable() and f.mode == "r"
        assert f.next() == "a\n" and f.next() == "b\n"
        with pytest.raises(StopIteration):
            f.next()


def test_variable_get_shape():
    assert tuple(tf.Variable([[1.0, 2.0]]).get_shape()) == (1, 2)


def test_coordinator_register_thread_and_raise_requested_exception():
    coord = tf.train.Coordinator()
    coord.raise_requested_exception()  # nothing reported: no error

    def work():
        try:
            raise ValueError("boom")
        except ValueError as error:
            coord.request_stop(error)

    thread = threading.Thread(target=work)
    coord.register_thread(thread)
    thread.start()
    with pytest.raises(ValueError, match="boom"):
        coord.join()  # joins the registered thread, re-raises its exception
    assert not thread.is_alive()
    with pytest.raises(ValueError, match="boom"):
        coord.raise_requested_exception()


def test_checkpoint_options_manager_and_reader(tmp_path):
    options = tf.train.CheckpointOptions(experimental_io_device="/job:localhost",
                                         experimental_enable_async_checkpoint=False)
    assert options.experimental_io_device == "/job:localhost" and options.enable_async is False
    v = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(v=v)
    path = ckpt.save(str(tmp_path / "ck"), options=options)
    v.assign([5.0, 5.0])
    ckpt.restore(path, options=options)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "m"), max_to_keep=1)
    assert manager.checkpoint is ckpt and manager.directory == str(tmp_path / "m")
    text = tf.train.load_checkpoint(path).debug_string()
    assert b"v/.ATTRIBUTES/VARIABLE_VALUE (float32) [2]" in text
