"""torch's private attributes are read in one module (`_torch_private`), checked at import,
with public fallbacks that give the same results (issue 27)."""

from __future__ import annotations

import pathlib
import re

import pytest
import torch

from torchestimator import _torch_private as tp

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "torchestimator"
PRIVATE = re.compile(r"\._base\b|\._version\b|torch\._C\b|\._op\b(?!\()")


def test_every_private_attribute_behaves_on_this_torch():
    assert tp.SUPPORTED == {"version": True, "view_base": True, "disabled_torch_function_impl": True,
                            "is_tracing": True, "flatten_dense_tensors": True,
                            "op_kernel": True, "unscale_and_check_finite": True}


def test_no_module_but_one_reads_torch_private_attributes():
    offenders = [
        f"{path.relative_to(SRC)}:{n}: {line.strip()}"
        for path in SRC.rglob("*.py") if path.name != "_torch_private.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if PRIVATE.search(line) and not line.lstrip().startswith(("from ", "import "))
    ]
    assert offenders == []


def test_version_changes_on_in_place_writes():
    t = torch.zeros(3)
    before = tp.version(t)
    t.add_(1)
    assert tp.version(t) != before


def test_view_base():
    base = torch.zeros(4, 2)
    assert tp.view_base(base[:, 0]) is base and tp.view_base(base) is None


def test_fallbacks_give_the_same_results():
    tensors = [torch.arange(6.0).reshape(2, 3), torch.ones(2)]
    assert torch.equal(tp._flatten_fallback(tensors), tp.flatten_dense_tensors(tensors))

    class Plain(torch.Tensor):
        __torch_function__ = classmethod(tp._stripped_torch_function)

    x = torch.arange(3.0).as_subclass(Plain)
    out = x * 2 + torch.ones(3)
    assert type(out) is torch.Tensor and out.tolist() == [1.0, 3.0, 5.0]
    assert type(torch.stack([x, x])) is torch.Tensor
    assert tp.is_tracing() is torch.jit.is_tracing() is False


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "fallback"])
def test_unscale_and_check_finite_multiplies_in_place_and_flags_non_finite_values(fused):
    unscale = tp.unscale_and_check_finite if fused else tp._unscale_fallback
    grads, found = [torch.tensor([2.0, 8.0]), torch.tensor([[4.0]])], torch.zeros(1)
    unscale(grads, found, torch.full((1,), 0.25))
    assert [g.tolist() for g in grads] == [[0.5, 2.0], [[1.0]]] and found.tolist() == [0.0]
    for bad in (float("inf"), float("nan")):
        found = torch.zeros(1)
        unscale([torch.tensor([1.0, bad]), torch.tensor([3.0])], found, torch.ones(1))
        assert found.tolist() == [1.0]
