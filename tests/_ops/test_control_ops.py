"""tf.print, tf.group/no_op/control_dependencies, tf.device, tf.cond & co, tf.custom_gradient,
tf.py_function/numpy_function, tf.Module and tf.name_scope, used as a TF program uses them."""

import json
import logging
import os
import sys

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine import loop

FIXTURE = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures", "control.json")))


def build(spec):
    if isinstance(spec, dict) and "t" in spec:
        if spec["dtype"] == "string":
            value = np.array(spec["t"], dtype=object)
            return value.reshape(spec["shape"]) if "shape" in spec else value
        value = np.array(spec["t"], dtype=spec["dtype"])
        if "shape" in spec:
            value = value.reshape(spec["shape"])
        return torch.from_numpy(value)
    if isinstance(spec, dict) and "dict" in spec:
        return {k: build(v) for k, v in spec["dict"].items()}
    if isinstance(spec, list):
        return [build(v) for v in spec]
    return spec


# ------------------------------------------------------------------ tf.print
@pytest.mark.parametrize("case", FIXTURE["print"], ids=lambda c: repr(c["inputs"])[:40])
def test_print_matches_tf(case, capsys):
    tf.print(*[build(v) for v in case["inputs"]], output_stream=sys.stdout, **case["kwargs"])
    assert capsys.readouterr().out == case["output"]


def test_print_defaults_to_stderr_and_formats_variables(capsys):
    tf.print("w =", tf.Variable([1.0, 2.5]))
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "w = [1 2.5]\n"


def test_print_of_a_tensor_that_records_gradients(capsys):
    w = tf.Variable([2.0, 3.0])
    tf.print(w * 2, output_stream=sys.stdout)
    assert capsys.readouterr().out == "[4 6]\n"


def test_print_to_a_file_appends(tmp_path):
    path = tmp_path / "log.txt"
    tf.print("a", torch.tensor([1, 2]), output_stream=f"file://{path}")
    tf.print("b", output_stream=f"file://{path}")
    assert path.read_text() == "a [1 2]\nb\n"


def test_print_to_a_logging_function(caplog):
    with caplog.at_level(logging.INFO):
        tf.print("step", torch.tensor(3), output_stream=logging.info)
    assert "step 3" in caplog.text


def test_print_rejects_unknown_streams_and_arguments():
    with pytest.raises(ValueError, match="output_stream"):
        tf.print("x", output_stream="stdout")
    with pytest.raises(ValueError, match="Unrecognized keyword"):
        tf.print("x", colour="red")


def test_print_summarize_none_is_three(capsys):
    tf.print(torch.arange(8), summarize=None, output_stream=sys.stdout)
    assert capsys.readouterr().out == "[0 1 2 ... 5 6 7]\n"


# ------------------------------------------------------------------ group & co
def test_group_of_eager_ops_is_a_no_op_train_op():
    from torchestimator._engine.train_op import TrainOp

    step = tf.Variable(0, dtype=tf.int64)
    op = tf.group(step.assign_add(1), None, [tf.no_op(), torch.tensor(1.0)])
    assert isinstance(op, TrainOp)  # what EstimatorSpec's train_op check accepts
    assert op.entries == []
    op.run({})  # nothing left to do: the assign already ran
    assert int(step.numpy()) == 1


def test_group_keeps_deferred_train_ops():
    from torchestimator._engine.train_op import TrainOp

    w = tf.Variable(1.0)
    entry = (object(), w * 2.0, [w])
    train_op = TrainOp([entry])
    op = tf.group(train_op, w.assign(3.0), name="step")
    assert type(op) is TrainOp and op.entries == [entry]


def test_group_rejects_what_is_not_an_op():
    with pytest.raises(TypeError, match="tf.group"):
        tf.group("not an op")
    with pytest.raises(TypeError, match="keyword"):
        tf.group(tf.no_op(), colour="red")


def test_no_op_control_dependencies_init_scope():
    op = tf.no_op(name="nothing")
    assert op.name == "nothing" and "NoOp" in repr(op)
    x = tf.Variable(1.0, trainable=False)
    with tf.control_dependencies([x.assign(2.0)]):
        y = x * 2
    with tf.control_dependencies(None), tf.init_scope():
        pass
    assert float(y) == 4.0
    assert tf.executing_eagerly() is True


# ------------------------------------------------------------------ tf.device
@pytest.mark.parametrize("name", ["/CPU:0", "cpu", "/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"])
def test_device_cpu_forms(name):
    with tf.device(name):
        assert torch.zeros(2).device.type == "cpu"


@pytest.mark.parametrize("name", ["/GPU:0", "/device:GPU:1", "gpu", "GPU:0", "/gpu:0"])
def test_device_gpu_places_on_cuda_or_falls_back_to_cpu(name):
    with tf.device(name):
        t = torch.ones(3)
    index = 1 if ":1" in name else 0
    stand_in = loop.default_device()  # a suite run on the lazy stand-in: it is the GPU
    if torch.cuda.is_available() and index < torch.cuda.device_count():
        assert t.device == torch.device("cuda", index)
    elif stand_in.type == "lazy" and index == 0:
        assert t.device.type == "lazy"
    elif not torch.cuda.is_available() and not torch.backends.mps.is_available():
        assert t.device.type == "cpu"  # TF's soft placement
    assert torch.ones(1).device.type == "cpu"  # the default comes back after the block


def test_device_without_soft_placement_raises_for_a_missing_gpu():
    tf.config.set_soft_device_placement(False)
    try:
        with pytest.raises(tf.errors.InvalidArgumentError, match="/GPU:7"):
            with tf.device("/GPU:7"):
                pass
    finally:
        tf.config.set_soft_device_placement(True)
    assert tf.config.get_soft_device_placement() is True


def test_device_rejects_nonsense_and_accepts_none():
    with pytest.raises(ValueError, match="nonsense"):
        tf.device("nonsense")
    with tf.device(None):
        assert torch.zeros(1).device.type == "cpu"


def test_device_meta_nesting_restores():
    with torch.device("meta"):
        with tf.device("/CPU:0"):
            assert torch.zeros(1).device.type == "cpu"
        assert torch.zeros(1).device.type == "meta"


# ------------------------------------------------------------------ control flow
def test_cond():
    assert tf.cond(torch.tensor(True), lambda: 1, lambda: 2) == 1
    assert tf.cond(False, lambda: 1, lambda: 2) == 2
    with pytest.raises(TypeError, match="false_fn"):
        tf.cond(True, lambda: 1)


def test_while_loop_structures():
    (i,) = tf.while_loop(lambda i: i < 10, lambda i: (i + 1,), (0,))
    assert isinstance(i, torch.Tensor) and i.dtype == torch.int32 and int(i) == 10
    i, j = tf.while_loop(lambda i, j: i < 10, lambda i, j: (i + 1, j * 2), (0, 1))
    assert int(j) == 1024
    out = tf.while_loop(lambda i: i < 10, lambda i: [i + 1], [torch.tensor(0)], maximum_iterations=3)
    assert isinstance(out, list) and int(out[0]) == 3
    assert int(tf.while_loop(lambda i: i < 5, lambda i: i + 1, torch.tensor(0))) == 5
    with pytest.raises(ValueError, match="loop_vars"):
        tf.while_loop(lambda i: i < 1, lambda i: i, [])
    with pytest.raises(ValueError, match="2 loop variables"):
        tf.while_loop(lambda i, j: i < 1, lambda i, j: i + 1, (0, 0))


def test_switch_case_and_case():
    fns = [lambda: 1, lambda: 2, lambda: 3]
    assert tf.switch_case(torch.tensor(1), fns) == 2
    assert tf.switch_case(torch.tensor(7), fns) == 3  # out of range: the last branch
    assert tf.switch_case(torch.tensor(7), fns, default=lambda: 9) == 9
    assert tf.switch_case(torch.tensor(1), {0: lambda: "a", 1: lambda: "b"}) == "b"
    assert tf.case([(torch.tensor(False), lambda: 1), (torch.tensor(True), lambda: 2)]) == 2
    assert tf.case([(torch.tensor(False), lambda: 1)], default=lambda: 3) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="None of conditions"):
        tf.case([(torch.tensor(False), lambda: 1)])


# ------------------------------------------------------------------ gradients
def test_custom_gradient_replaces_the_gradient():
    @tf.custom_gradient
    def log1pexp(x):
        e = torch.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return torch.log(1 + e), grad

    x = torch.tensor(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == 1.0  # autograd's own gradient would be nan
    assert torch.isinf(y)  # the forward value is f's


def test_custom_gradient_clip_and_several_inputs():
    @tf.custom_gradient
    def mul(a, b):
        def grad(dy):
            return dy * b * 10, dy * a * 100

        return a * b, grad

    a, b = tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = mul(a, b)
    ga, gb = tape.gradient(y, [a, b])
    assert float(ga) == 30.0 and float(gb) == 200.0


def test_custom_gradient_with_variables():
    w = tf.Variable(2.0)

    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            return dy * 0.0, [dy * 7.0 for _ in variables]

        return x * w, grad

    x = torch.tensor(5.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    gx, gw = tape.gradient(y, [x, w])
    assert float(gx) == 0.0 and float(gw) == 7.0


def test_custom_gradient_without_autograd_returns_the_value():
    @tf.custom_gradient
    def double(x):
        return x * 2, lambda dy: dy * 2

    out = double(np.float32(3.0))
    assert float(out) == 6.0 and not out.requires_grad


def test_py_function_converts_to_tout_and_keeps_gradients():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.py_function(lambda a: a * a, [x], Tout=tf.float32)
    assert float(tape.gradient(y, x)) == 6.0
    out = tf.py_function(lambda a: (a, a * 2), [1.0], Tout=[tf.float32, tf.float64])
    assert [o.dtype for o in out] == [torch.float32, torch.float64]
    assert tf.py_function(lambda a: a.numpy() * 2, [torch.tensor(1.5)], Tout=tf.int32).dtype == torch.int32
    with pytest.raises(ValueError, match="Tout"):
        tf.py_function(lambda a: (a, a), [1.0], Tout=[tf.float32])

    @tf.py_function(Tout=tf.float32)
    def plus_one(a):
        return a + 1

    assert float(plus_one(torch.tensor(1.0))) == 2.0


def test_numpy_function_passes_arrays():
    seen = []

    def fn(a, b):
        seen.append((type(a), type(b)))
        return np.sinh(a) + b

    out = tf.numpy_function(fn, [torch.tensor([1.0, 2.0]), 1.0], tf.float32)
    assert seen == [(np.ndarray, np.ndarray)]
    np.testing.assert_allclose(out.numpy(), np.sinh([1.0, 2.0]) + 1.0, rtol=1e-6)
    assert out.dtype == torch.float32
    text = tf.numpy_function(lambda a: np.array(["x", "y"], dtype=object), [torch.zeros(2)], tf.string)
    assert isinstance(text, np.ndarray) and list(text) == ["x", "y"]


# ------------------------------------------------------------------ tf.Module, name_scope
class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(torch.ones(in_features, out_features), name="w")
        self.b = tf.Variable(torch.zeros(out_features), name="b", trainable=False)

    def __call__(self, x):
        return x @ self.w + self.b


class MLP(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.l1 = Dense(2, 3)
            self.l2 = Dense(3, 1, name="out")
        self.layers = [self.l1]

    def __call__(self, x):
        return self.l2(self.l1(x))


def test_module_tracks_variables_and_submodules_as_tf():
    m = MLP()
    assert m.name == "mlp" and m.name_scope.name == "mlp/"
    assert [v.name for v in m.variables] == ["mlp/b:0", "mlp/w:0", "mlp/b:0", "mlp/w:0"]  # TF's order
    assert [v.name for v in m.trainable_variables] == ["mlp/w:0", "mlp/w:0"]
    assert [v.name for v in m.non_trainable_variables] == ["mlp/b:0", "mlp/b:0"]
    assert [s.name for s in m.submodules] == ["dense", "out"]
    assert m.variables[0] is m.l1.b and m.variables[3] is m.l2.w
    assert Dense(1, 1).name == "dense" and tf.Module().name == "module"


def test_module_is_a_torch_module():
    m = MLP()
    assert isinstance(m, torch.nn.Module)
    params = dict(m.named_parameters())
    assert list(params) == ["l1.w", "l1.b", "l2.w", "l2.b"]
    assert [p.requires_grad for p in params.values()] == [True, False, True, False]
    assert set(m.state_dict()) == {"l1.w", "l1.b", "l2.w", "l2.b"}
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    loss = m(tf.ones((1, 2))).sum()  # on the variables' device (a GPU's), as TF places it
    loss.backward()
    opt.step()
    assert m.l1.w.numpy()[0, 0] < 1.0


def test_module_with_keras_layers_and_lists():
    class Holder(tf.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [tf.keras.layers.Dense(2), {"v": tf.Variable(1.0, name="extra")}]

    h = Holder()
    h.blocks[0](np.ones((1, 3), "float32"))
    names = [v.name for v in h.variables]
    assert names[0] == "extra:0" and len(names) == 3
    assert h.blocks[0] in h.submodules


def test_module_name_validation_and_with_name_scope():
    with pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name="bad name")

    class Maker(tf.Module):
        @tf.Module.with_name_scope
        def make(self):
            return tf.Variable(1.0, name="v")

    assert Maker(name="maker").make().name == "maker/v:0"


def test_name_scope_prefixes_variable_names():
    with tf.name_scope("outer") as scope:
        assert scope == "outer/"
        assert tf.Variable(1.0, name="v").name == "outer/v:0"
        with tf.name_scope("inner") as inner:
            assert inner == "outer/inner/"
        with tf.name_scope("abs/") as absolute:
            assert absolute == "abs/"
    assert tf.Variable(1.0, name="v").name == "v:0"
    assert tf.name_scope("a").name == "a"
    with pytest.raises(ValueError, match="not a valid scope name"):
        tf.name_scope("bad name")
