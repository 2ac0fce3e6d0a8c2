"""tf.function: decorator forms, input_signature checks, methods, concrete functions, and
jit_compile through torch.compile (stubbed to torch's 'eager' backend to keep the tests fast)."""

import warnings

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.guide_models import GuideLinear


@pytest.fixture
def fast_compile(monkeypatch):
    """torch.compile with the 'eager' backend (dynamo traces, no code generation), recording
    what it was asked to compile."""
    calls = []
    real = torch.compile

    def compile_(fn, *args, **kwargs):
        calls.append(fn)
        return real(fn, backend="eager")

    monkeypatch.setattr(torch, "compile", compile_)
    yield calls
    torch._dynamo.reset()


def test_decorator_forms_keep_the_function():
    @tf.function
    def f(x):
        """Doubles."""
        return x * 2

    @tf.function()
    def g(x):
        return x + 1

    @tf.function(reduce_retracing=True, experimental_relax_shapes=True, autograph=False)
    def h(x):
        return x - 1

    assert float(f(torch.tensor(2.0))) == 4.0 and float(g(1.0)) == 2.0 and float(h(1.0)) == 0.0
    assert f.__name__ == "f" and f.__doc__ == "Doubles." and f.name == "f"
    assert f.python_function(3) == 6
    assert f.input_signature is None
    assert float(tf.function(lambda x: x * 3)(torch.tensor(1.0))) == 3.0
    assert tf.function(f).python_function is f.python_function  # re-wrapping unwraps


def test_side_effects_run_on_every_call():
    seen = []

    @tf.function
    def f(x):
        seen.append(x)
        return x

    f(1)
    f(2)
    assert seen == [1, 2]


def test_input_signature_checks_and_converts():
    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def f(x):
        return x * 2

    assert f(torch.zeros(3, 2)).shape == (3, 2)
    out = f(np.ones((1, 2), np.float64))  # numpy float64 is converted to the spec's float32
    assert out.dtype == torch.float32 and out.tolist() == [[2.0, 2.0]]
    assert f([[1.0, 2.0]]).tolist() == [[2.0, 4.0]]
    assert f(x=torch.ones(1, 2)).shape == (1, 2)
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(3, 3\), dtype=tf.float32, "
                       r"name='x'\) to TensorSpec\(shape=\(None, 2\).*argument 'x'"):
        f(torch.zeros(3, 3))
    with pytest.raises(TypeError, match="dtype=tf.int32.*argument 'x'"):
        f(torch.zeros(3, 2, dtype=torch.int32))
    with pytest.raises(TypeError, match="too many positional arguments"):
        f(torch.zeros(3, 2), torch.zeros(1))
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        f()
    assert f.input_signature == (tf.TensorSpec([None, 2], tf.float32, name="x"),)


def test_input_signature_with_nested_specs_and_names():
    spec = {"a": tf.TensorSpec([None], tf.int64), "b": tf.TensorSpec([], tf.float32)}

    @tf.function(input_signature=[spec, [tf.TensorSpec([2]), tf.TensorSpec([2])]])
    def f(features, pair):
        return features["a"].sum() + 0, pair[0] + pair[1] + features["b"]

    total, summed = f({"a": torch.tensor([1, 2]), "b": torch.tensor(1.0)}, [torch.ones(2), torch.ones(2)])
    assert int(total) == 3 and summed.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match=r"argument 'features'\['a'\]"):
        f({"a": torch.tensor([1.0]), "b": torch.tensor(1.0)}, [torch.ones(2), torch.ones(2)])
    with pytest.raises(TypeError, match="dict with keys"):
        f({"a": torch.tensor([1])}, [torch.ones(2), torch.ones(2)])
    with pytest.raises(TypeError, match=r"argument 'pair'\[1\]"):
        f({"a": torch.tensor([1]), "b": torch.tensor(1.0)}, [torch.ones(2), torch.ones(3)])
    with pytest.raises(TypeError, match="input_signature has 3 entries"):
        tf.function(lambda x: x, input_signature=[tf.TensorSpec([])] * 3)


def test_methods_bind_to_their_instance():
    class Counter(tf.Module):
        def __init__(self):
            super().__init__()
            self.count = tf.Variable(0, dtype=tf.int64, trainable=False)

        @tf.function
        def add(self, n):
            self.count.assign_add(n)
            return self.count.read_value()

        @tf.function(input_signature=[tf.TensorSpec([], tf.int64)])
        def add_checked(self, n):
            return self.add(n)

    a, b = Counter(), Counter()
    a.add(2)
    b.add(5)
    assert int(a.add_checked(torch.tensor(1))) == 3 and int(b.count.numpy()) == 5
    assert a.add is a.add  # bound once per instance
    assert Counter.add.python_function is not a.add.python_function
    with pytest.raises(TypeError, match="argument 'n'"):
        a.add_checked(torch.tensor(1.0))


def test_get_concrete_function():
    @tf.function
    def h(x, y=1):
        return x + y

    concrete = h.get_concrete_function(torch.tensor(1))
    assert int(concrete(torch.tensor(5))) == 6
    args, kwargs = concrete.structured_input_signature
    assert args == (tf.TensorSpec([], tf.int64),) and kwargs == {}
    with pytest.raises(TypeError, match="Can not cast"):
        concrete(torch.tensor([1, 2]))
    spec_concrete = h.get_concrete_function(tf.TensorSpec([None], tf.float32), y=10)
    assert spec_concrete(torch.ones(2)).tolist() == [11.0, 11.0]

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def f(x):
        return x * 2

    assert f.get_concrete_function()(torch.ones(1, 2)).tolist() == [[2.0, 2.0]]
    with pytest.raises(TypeError):
        f.get_concrete_function()(torch.ones(1, 3))


def test_jit_compile_uses_torch_compile(fast_compile):
    @tf.function(jit_compile=True)
    def f(x):
        return torch.sin(x) * 2 + 1

    x = torch.linspace(0, 1, 5)
    torch.testing.assert_close(f(x), torch.sin(x) * 2 + 1)
    torch.testing.assert_close(f(x + 1), torch.sin(x + 1) * 2 + 1)
    assert len(fast_compile) == 1  # compiled once, reused
    assert f.experimental_get_tracing_count() == 1

    @tf.function
    def g(x):
        return x + 1

    g(x)
    assert len(fast_compile) == 1  # plain tf.function runs eagerly


def test_run_functions_eagerly_and_set_jit(fast_compile):
    @tf.function(jit_compile=True)
    def f(x):
        return x * 2

    tf.config.run_functions_eagerly(True)
    try:
        f(torch.ones(2))
    finally:
        tf.config.run_functions_eagerly(False)
    assert fast_compile == []

    @tf.function
    def g(x):
        return x * 3

    tf.config.optimizer.set_jit(True)
    try:
        g(torch.ones(2))
    finally:
        tf.config.optimizer.set_jit(False)
    assert len(fast_compile) == 1


def test_jit_compile_failure_falls_back_to_eager_with_one_warning(monkeypatch):
    from torch._dynamo.exc import TorchDynamoException

    def broken(fn, *args, **kwargs):
        def run(*a, **k):
            raise TorchDynamoException("no C++ compiler")
        return run

    monkeypatch.setattr(torch, "compile", broken)

    @tf.function(jit_compile=True)
    def f(x):
        return x + 1

    with pytest.warns(RuntimeWarning, match="torch.compile failed.*runs eagerly"):
        assert float(f(torch.tensor(1.0))) == 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(f(torch.tensor(2.0))) == 3.0  # no second warning


def test_user_errors_are_not_swallowed_by_the_fallback(fast_compile):
    @tf.function(jit_compile=True)
    def f(x):
        if x.shape[0] > 1:
            raise ValueError("too long")
        return x

    with pytest.raises(ValueError, match="too long"):
        f(torch.ones(2))


def test_train_step_with_gradient_tape_converges(fast_compile):
    """TF's 'basic training loops' guide: y = w*x + b fitted by a tf.function train step."""
    torch.manual_seed(0)
    x = tf.constant(torch.randn(200).numpy())  # TF's data: on the variables' device (a GPU)
    y = x * 3.0 + 2.0 + tf.constant(torch.randn(200).numpy()) * 0.1

    def loss(target, predicted):
        return ((target - predicted) ** 2).mean()

    def train(model, x, y, learning_rate):
        with tf.GradientTape() as tape:
            current_loss = loss(y, model(x))
        dw, db = tape.gradient(current_loss, [model.w, model.b])
        model.w.assign_sub(learning_rate * dw)
        model.b.assign_sub(learning_rate * db)
        return current_loss

    for jit in (False, True):
        model = GuideLinear()
        step = tf.function(train, jit_compile=jit)
        first = step(model, x, y, 0.1).numpy()
        for _ in range(60):
            last = step(model, x, y, 0.1)
        assert last.numpy() < first / 100  # .numpy() works: the tape released the loss
        assert abs(model.w.numpy() - 3.0) < 0.05 and abs(model.b.numpy() - 2.0) < 0.05
    assert len(fast_compile) == 1
