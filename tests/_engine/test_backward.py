"""`_engine.backward.backward`: the training loop's `loss.backward()` through the autograd
engine directly gives `loss.backward()`'s gradients, and torch's own errors otherwise."""

import pytest
import torch

from torchestimator._engine import backward as backward_module
from torchestimator._engine.backward import backward


def _graph():
    torch.manual_seed(0)
    w = torch.randn(3, 2, requires_grad=True)
    b = torch.randn(2, requires_grad=True)
    x = torch.randn(5, 3)
    return w, b, x


def _loss(w, b, x):
    return torch.mean(torch.square(x @ w + b)) * 0.5


def test_gradients_equal_tensor_backward():
    w, b, x = _graph()
    _loss(w, b, x).backward()
    expected = (w.grad.clone(), b.grad.clone())
    w.grad = b.grad = None
    backward(_loss(w, b, x))
    assert torch.equal(w.grad, expected[0]) and torch.equal(b.grad, expected[1])


def test_the_engine_path_is_taken_for_a_plain_scalar_loss(monkeypatch):
    calls = []
    real = backward_module._engine_run_backward
    monkeypatch.setattr(backward_module, "_engine_run_backward",
                        lambda *a, **k: (calls.append(a), real(*a, **k)))
    w, b, x = _graph()
    backward(_loss(w, b, x))
    assert len(calls) == 1 and w.grad is not None


def test_gradients_accumulate_as_tensor_backward_does():
    w, b, x = _graph()
    backward(_loss(w, b, x))
    once = w.grad.clone()
    backward(_loss(w, b, x))
    assert torch.allclose(w.grad, 2 * once)


def test_inputs_restrict_which_leaves_get_a_gradient():
    w, b, x = _graph()
    backward(_loss(w, b, x), inputs=[w])
    assert w.grad is not None and b.grad is None


def test_retain_graph_allows_a_second_pass():
    w, b, x = _graph()
    loss = _loss(w, b, x)
    backward(loss, retain_graph=True)
    backward(loss)
    w2, b2, x2 = _graph()
    _loss(w2, b2, x2).backward()
    assert torch.allclose(w.grad, 2 * w2.grad)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        backward(loss)


def test_a_loss_without_a_graph_gets_torchs_error():
    with pytest.raises(RuntimeError, match="does not require grad"):
        backward(torch.tensor(1.0))


def test_a_non_scalar_loss_gets_torchs_error():
    w, b, x = _graph()
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        backward(x @ w + b)


def test_empty_inputs_get_torchs_error():
    w, b, x = _graph()
    with pytest.raises(RuntimeError, match="cannot be empty"):
        backward(_loss(w, b, x), inputs=[])


def test_a_double_loss_seeds_a_double_gradient():
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    backward((w * w).sum())
    assert w.grad.dtype == torch.float64 and torch.allclose(w.grad, 2 * w)
