"""Adagrad with epsilon outside the square root (TF's legacy rule) runs torch's fused CPU kernel;
it must give what the formula gives (up to the last bit), and CUDA/mixed dtypes fall back."""

import torch

from torchestimator.keras.optimizers import adagrad


def _formula(params, grads, accumulators, lr, eps):
    for p, g, a in zip(params, grads, accumulators):
        a.addcmul_(g, g)
        p.addcdiv_(g, a.sqrt().add_(eps), value=-lr)


def test_fused_update_equals_the_formula():
    torch.manual_seed(0)
    shapes = [(4, 10), (10,), (10, 3), (3,)]
    params = [torch.randn(s) for s in shapes]
    expected = [p.clone() for p in params]
    initial = [p.clone() for p in params]
    kernel = adagrad.AdagradKernel([p.clone().requires_grad_() for p in params], lr=0.05,
                                   epsilon_inside_sqrt=False)
    acc = [torch.full(s, 0.1) for s in shapes]
    acc_expected = [a.clone() for a in acc]
    for _ in range(3):
        grads = [torch.randn(s) for s in shapes]
        kernel.update(kernel.param_groups[0], params, grads, {"accumulator": acc}, 0)
        _formula(expected, grads, acc_expected, 0.05, 1e-7)
    for got, want in zip(acc, acc_expected):
        assert torch.equal(got, want)  # the accumulators are exact
    for got, want in zip(params, expected):
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)
    assert not any(torch.equal(p, q) for p, q in zip(params, initial))  # the update ran


def test_fused_kernel_only_for_one_dtype_of_dense_cpu_tensors():
    f32 = [torch.zeros(2)]
    assert adagrad._fusable(f32, f32, f32)
    assert not adagrad._fusable([torch.zeros(2, dtype=torch.float16)] * 1, f32, f32)
    assert not adagrad._fusable(f32, [torch.zeros(2, dtype=torch.float64)], f32)
    assert not adagrad._fusable([], [], [])


def test_the_fused_verdict_is_remembered_only_for_the_same_lists_device_and_dtype():
    params = [torch.zeros(3), torch.zeros(2)]
    acc = [torch.zeros(3), torch.zeros(2)]
    kernel = adagrad.AdagradKernel([p.clone().requires_grad_() for p in params], epsilon_inside_sqrt=False)
    assert kernel._fusable(params, params, acc)
    # The assumption the memo makes (its docstring): the optimizer does not swap a variable
    # inside its own list for one of another dtype; an item swapped in place is not seen ...
    params[1] = torch.zeros(2, dtype=torch.float64)
    assert kernel._fusable(params, params, acc)
    other = list(params)
    assert not kernel._fusable(other, other, acc)  # ... but a new list is checked afresh
    assert not kernel._fusable([torch.zeros(3)], [torch.zeros(3, dtype=torch.float64)], acc[:1])
