"""tf.experimental, tf.lite, tf.types, tf.autodiff, tf.profiler, tf.sysconfig and the top-level
CriticalSection / variable_creator_scope / nondifferentiable_batch_function / refusals."""

from __future__ import annotations

import json
import os
import threading
import time

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.compat.v1._refusals import GraphMachineryError


def test_optional_and_dlpack():
    assert tf.experimental.Optional is tf.data.experimental.Optional
    opt = tf.experimental.Optional.from_value(tf.constant([1, 2]))
    assert bool(opt.has_value()) and opt.get_value().tolist() == [1, 2]
    x = tf.constant([1.0, 2.0, 3.0])
    capsule = tf.experimental.dlpack.to_dlpack(x)
    back = tf.experimental.dlpack.from_dlpack(capsule)
    back[0] = 10.0  # shares memory, as TF's DLPack round trip
    assert x.tolist() == [10.0, 2.0, 3.0]
    assert tf.experimental.dlpack.from_dlpack(np.arange(3.0)).tolist() == [0.0, 1.0, 2.0]  # any __dlpack__ object


def test_async_scope_strict_mode_and_executor_type():
    with tf.experimental.async_scope():
        y = tf.constant(2.0) * 3.0
    assert y.item() == 6.0
    with pytest.raises(tf.errors.InvalidArgumentError):
        with tf.experimental.async_scope():
            tf.reshape(tf.zeros([4]), [3])  # the op's error surfaces at once
    tf.experimental.async_clear_error()
    with tf.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR"):
        assert tf.function(lambda: tf.constant(1) + 1)().item() == 2
    with pytest.raises(TypeError, match="executor_type"):
        with tf.experimental.function_executor_type(3):
            pass


def test_float8_and_int4_dtypes():
    assert tf.experimental.float8_e5m2 is torch.float8_e5m2
    assert tf.experimental.int4.name == "int4" and tf.experimental.uint4.max == 15


@pytest.mark.parametrize("name, hint", [
    ("numpy", "use numpy"), ("ExtensionType", "dataclass"), ("dispatch_for_api", "__torch_function__"),
    ("tensorrt", "torch.onnx"), ("dtensor", "torch.distributed.tensor"), ("register_filesystem_plugin", "fsspec"),
    ("StructuredTensor", "dict of tensors"), ("RowPartition", "row_splits")])
def test_refused_experimental_names_say_what_to_use(name, hint):
    with pytest.raises(GraphMachineryError, match=f"tf.experimental.{name} is TensorFlow machinery") as info:
        getattr(tf.experimental, name)()
    assert hint in str(info.value)


@pytest.mark.parametrize("name", ["TFLiteConverter", "Interpreter", "OpsSet", "Optimize", "TargetSpec",
                                  "RepresentativeDataset"])
def test_lite_is_refused_with_the_export_routes(name):
    with pytest.raises(GraphMachineryError, match=r"tf\.saved_model\.save.*torch\.onnx\.export"):
        getattr(tf.lite, name).from_saved_model("model")
    assert tf.compat.v1.lite is tf.lite


def test_types_experimental():
    from torchestimator.types.experimental import TensorLike

    assert isinstance(tf.constant(1.0), TensorLike) and isinstance([1, 2], TensorLike)
    assert isinstance(tf.function(lambda x: x), tf.types.experimental.GenericFunction)
    assert isinstance(len, tf.types.experimental.Callable)
    assert tf.types.experimental.distributed.PerReplica is tf.distribute.DistributedValues.__subclasses__()[0]


def test_forward_accumulator_jvps_match_autograd():
    v = tf.Variable([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.5])) as acc:
        y = v * v
        z = tf.reduce_sum(tf.sin(v))
        unrelated = tf.constant(3.0) * 2
    assert acc.jvp(y).tolist() == [2.0, 2.0]  # 2 v * t
    assert acc.jvp(z).item() == pytest.approx(np.cos(1.0) + 0.5 * np.cos(2.0))
    assert acc.jvp(unrelated) is None
    assert acc.jvp(unrelated, unconnected_gradients=tf.UnconnectedGradients.ZERO).item() == 0.0
    # after the block the primal's tangent is zero (TF: not watched, None): later results carry none
    assert v.numpy().tolist() == [1.0, 2.0] and acc.jvp(v * 1.0).tolist() == [0.0, 0.0]
    x = tf.constant(3.0)
    with tf.autodiff.ForwardAccumulator(x, 1.0) as acc2:
        y2 = x ** 3
    assert acc2.jvp(y2).item() == 27.0
    with pytest.raises(ValueError, match="another ForwardAccumulator was entered"):
        acc.jvp(y)
    assert tf.autodiff.GradientTape is tf.GradientTape


def test_profiler_writes_a_chrome_trace(tmp_path):
    tf.profiler.experimental.start(str(tmp_path))
    with pytest.raises(tf.errors.UnavailableError, match="Another profiler is running"):
        tf.profiler.experimental.start(str(tmp_path))
    with tf.profiler.experimental.Trace("train", step_num=1):
        tf.matmul(tf.ones([8, 8]), tf.ones([8, 8]))
    path = tf.profiler.experimental.stop()
    assert path.startswith(os.path.join(str(tmp_path), "plugins", "profile"))
    events = json.load(open(path))["traceEvents"]
    assert any(e.get("name") == "train#step_num=1#" for e in events)
    with pytest.raises(tf.errors.UnavailableError, match="No profiler is running"):
        tf.profiler.experimental.stop()
    with tf.profiler.experimental.Profile(str(tmp_path / "p")):
        tf.ones([2]) + 1
    assert os.listdir(tmp_path / "p" / "plugins" / "profile")


def test_sysconfig():
    info = tf.sysconfig.get_build_info()
    assert info["is_cuda_build"] == (torch.version.cuda is not None)
    assert os.path.isdir(tf.sysconfig.get_include()) and os.path.isdir(tf.sysconfig.get_lib())
    with pytest.raises(GraphMachineryError, match="torch.utils.cpp_extension"):
        tf.sysconfig.get_compile_flags()


def test_critical_section_serializes_executions():
    cs = tf.CriticalSection(name="counter")
    v = tf.Variable(0.0)
    inside = []

    def bump():
        inside.append(1)
        assert len(inside) == 1  # nobody else inside
        current = v.numpy()
        time.sleep(0.001)
        v.assign(current + 1.0)
        inside.pop()
        return v.numpy()

    threads = [threading.Thread(target=lambda: [cs.execute(bump) for _ in range(20)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert v.numpy() == 80.0 and cs.name == "counter"
    with pytest.raises(ValueError, match="already running"):
        cs.execute(lambda: cs.execute(lambda: 1))


def test_variable_creator_scope_sees_and_changes_the_arguments():
    seen = []

    def double_initial(next_creator, **kwargs):
        seen.append((kwargs["name"], kwargs["trainable"]))
        kwargs["initial_value"] = tf.constant(kwargs["initial_value"]) * 2
        return next_creator(**kwargs)

    def rename(next_creator, **kwargs):
        kwargs["name"] = "renamed"
        return next_creator(**kwargs)

    with tf.variable_creator_scope(double_initial):
        with tf.variable_creator_scope(rename):
            v = tf.Variable([1.0, 2.0], name="orig", trainable=False)
    assert v.numpy().tolist() == [2.0, 4.0] and seen == [("renamed", False)]
    assert v.name.startswith("renamed")
    assert tf.Variable(1.0).numpy() == 1.0 and len(seen) == 1  # the scope is gone


def test_nondifferentiable_batch_function():
    @tf.nondifferentiable_batch_function(1, 8, 1000)
    def layer(x):
        return x * 2.0

    x = tf.Variable([1.0, 2.0])
    out = layer(x)
    assert out.tolist() == [2.0, 4.0] and not out.requires_grad
    with pytest.raises(ValueError, match="allowed_batch_sizes"):
        tf.nondifferentiable_batch_function(1, 8, 1000, allowed_batch_sizes=[2, 4])


@pytest.mark.parametrize("name", ["gradients", "hessians", "Graph", "import_graph_def", "load_op_library",
                                  "approx_top_k", "raw_ops"])
def test_refused_top_level_names(name):
    with pytest.raises(GraphMachineryError, match=rf"tf\.{name} is TensorFlow machinery"):
        getattr(tf, name)()


def test_refused_modules_keep_their_member_names():
    for module, member in [("tpu", "experimental"), ("xla", "experimental"), ("queue", "FIFOQueue"),
                           ("graph_util", "import_graph_def"), ("mlir", "experimental")]:
        with pytest.raises(GraphMachineryError, match=rf"tf\.{module}\.{member} is"):
            getattr(getattr(tf, module), member)()
    with pytest.raises(AttributeError):
        tf.queue.NotAQueue  # noqa: B018


def test_enable_strict_mode_turns_deprecation_warnings_into_errors():
    import subprocess
    import sys

    code = ("import warnings, torchestimator as tf\n"
            "tf.experimental.enable_strict_mode()\n"
            "try:\n    warnings.warn('old', DeprecationWarning)\nexcept DeprecationWarning:\n    print('raised')\n"
            "x = tf.constant([1.0, 2.0])\n"  # forward-mode autodiff meets torch's own deprecations
            "with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:\n"
            "    y = x * x\n"
            "print(acc.jvp(y).tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["raised", "[2.0,", "0.0]"], out.stderr[-500:]
