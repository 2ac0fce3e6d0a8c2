"""Parity of `tf.linalg.LinearOperator*` against TF 2.15 fixtures (tools/make_tf_linalg_fixtures.py)."""

from __future__ import annotations

import inspect
import json
import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))

import _linalg_cases as cases  # noqa: E402

import torchestimator as tf  # noqa: E402

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
META = json.load(open(os.path.join(FIX, "linalg_tf215.json")))
ARRAYS = np.load(os.path.join(FIX, "linalg_tf215.npz"))
OP_CASES = cases.operator_cases()
ERR_CASES = cases.error_cases()


def T(a):
    return torch.from_numpy(np.array(a, copy=True))


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().numpy()
    return np.asarray(t)


def _expected(prefix: str) -> dict:
    return {k[len(prefix):]: ARRAYS[k] for k in ARRAYS.files if k.startswith(prefix)}


# TF 2.15 quirk not reproduced: the 1-D/2-D/3-D circulant `adjoint()` drops `input_output_dtype` (complex64).
DTYPE_EXEMPT = {n: ("adjoint_dense", "H_dense") for n in ("circulant_real", "circulant2d", "circulant3d", "circulant_complex")}


@pytest.mark.parametrize("name", sorted(OP_CASES))
def test_operator_matches_tf(name):
    op = OP_CASES[name](tf, T)
    ours = cases.run_operator(op, tf, T, to_np)
    ours.pop("_failed", None)
    expected = _expected(f"op/{name}/")
    assert expected, f"no fixtures for {name}; rerun tools/make_tf_linalg_fixtures.py"
    missing = sorted(set(expected) - set(ours))
    assert not missing, f"{name}: methods that TF computed but we could not: {missing}"
    for key, want in expected.items():
        got = ours[key]
        assert np.shape(got) == np.shape(want), f"{name}.{key}: shape {np.shape(got)} != TF {np.shape(want)}"
        if key not in DTYPE_EXEMPT.get(name, ()):
            assert np.asarray(got).dtype == want.dtype, f"{name}.{key}: dtype {np.asarray(got).dtype} != TF {want.dtype}"
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9, err_msg=f"{name}.{key}")


@pytest.mark.parametrize("name", sorted(OP_CASES))
def test_operator_static_facts_match_tf(name):
    op = OP_CASES[name](tf, T)
    want = dict(META["operators"][name])
    want.pop("tf_rejected")
    got = cases.operator_meta(op)
    assert got == want


@pytest.mark.parametrize("name", sorted(ERR_CASES))
def test_errors_match_tf(name):
    want = META["errors"][name]
    assert want is not None
    with pytest.raises(Exception) as info:
        ERR_CASES[name](tf, T)
    assert type(info.value).__name__ == want["type"], f"{name}: {type(info.value).__name__}: {info.value}"
    if name != "matmul_dtype_mismatch":
        first_line = want["message"].split("\n")[0]
        assert first_line.strip().rstrip(".") in str(info.value), f"{name}: {info.value!s} lacks TF's {first_line!r}"


@pytest.mark.parametrize(
    "name,expect",
    [
        ("solve_singular_hint", "LinearOperatorDiag"),
        ("inverse_singular_hint", "LinearOperatorDiag"),
        ("cholesky_not_pd", "LinearOperatorFullMatrix"),
        ("determinant_not_square", "LinearOperatorFullMatrix"),
        ("assert_pd_fails", "LinearOperatorDiag"),
        ("matmul_dim_mismatch", "LinearOperatorFullMatrix"),
    ],
)
def test_hint_errors_name_the_operator(name, expect):
    with pytest.raises(Exception) as info:
        ERR_CASES[name](tf, T)
    assert expect in str(info.value)


def _sig(obj):
    target = obj.__init__ if isinstance(obj, type) else obj
    params = list(inspect.signature(target).parameters.values())
    return [p.name for p in params if p.name != "self"], {
        p.name: p.default for p in params if p.default is not inspect.Parameter.empty
    }


@pytest.mark.parametrize("name", sorted(META["signatures"]))
def test_signature_matches_tf(name):
    obj = tf.linalg
    for part in name.split("."):
        obj = getattr(obj, part)
    names, defaults = _sig(obj)
    want = META["signatures"][name]
    assert names == [n for n, _ in want]
    for pname, default_repr in want:
        if default_repr is None or "dtype" in default_repr or "tf." in default_repr:
            continue
        assert repr(defaults[pname]) == default_repr, f"{name}({pname}=...)"


@pytest.mark.parametrize("method", sorted(META["method_signatures"]))
def test_method_signature_matches_tf(method):
    names, defaults = _sig(getattr(tf.linalg.LinearOperator, method))
    want = META["method_signatures"][method]
    assert names == [n for n, _ in want]
    for pname, default_repr in want:
        if default_repr is not None:
            assert repr(defaults[pname]) == default_repr


def test_dtype_defaults_match_tf():
    assert tf.linalg.LinearOperatorPermutation([1, 0]).dtype == tf.float32
    assert tf.linalg.LinearOperatorIdentity(2).dtype == tf.float32
    assert tf.linalg.LinearOperatorZeros(2).dtype == tf.float32
    spectrum = torch.tensor([1.0, 2.0, 2.0])
    assert tf.linalg.LinearOperatorCirculant(spectrum).dtype == tf.complex64


def test_linop_algebra_returns_structured_types():
    d = tf.linalg.LinearOperatorDiag(torch.tensor([1.0, 2.0], dtype=torch.float64))
    d2 = tf.linalg.LinearOperatorDiag(torch.tensor([3.0, 4.0], dtype=torch.float64))
    prod = d @ d2
    assert isinstance(prod, tf.linalg.LinearOperatorDiag)
    np.testing.assert_allclose(prod.diag.numpy(), [3.0, 8.0])
    ident = tf.linalg.LinearOperatorIdentity(2, dtype=torch.float64)
    assert d.matmul(ident) is d
    full = tf.linalg.LinearOperatorFullMatrix(torch.eye(2, dtype=torch.float64) * 2)
    comp = full @ full
    assert isinstance(comp, tf.linalg.LinearOperatorComposition)
    np.testing.assert_allclose(comp.to_dense().numpy(), 4 * np.eye(2))
    inv = full.solve(full)
    assert isinstance(inv, tf.linalg.LinearOperatorComposition)
    np.testing.assert_allclose(inv.to_dense().numpy(), np.eye(2))
    assert isinstance(d.inverse(), tf.linalg.LinearOperatorDiag)
    assert isinstance(tf.linalg.LinearOperatorHouseholder(torch.ones(3)).inverse(), tf.linalg.LinearOperatorHouseholder)


def test_is_square_false_hint_on_square_operator_raises():
    op = tf.linalg.LinearOperatorFullMatrix(torch.eye(2), is_square=False)
    with pytest.raises(ValueError, match="is_square hint to False"):
        _ = op.is_square


class _Scale2(tf.linalg.LinearOperator):
    """A user subclass implementing only `_shape` and `_matmul`, as TF's docs describe."""

    def __init__(self, n):
        self._n = n
        super().__init__(dtype="float64", is_self_adjoint=True, is_positive_definite=True)

    def _shape(self):
        return tf.TensorShape([self._n, self._n])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = x.transpose(-1, -2) if adjoint_arg else x
        return 2.0 * x


def test_user_subclass_gets_default_dense_methods():
    op = _Scale2(3)
    assert op.dtype == torch.float64 and op.is_square and op.is_non_singular
    np.testing.assert_allclose(op.to_dense().numpy(), 2 * np.eye(3))
    np.testing.assert_allclose(op.determinant().numpy(), 8.0)
    np.testing.assert_allclose(op.log_abs_determinant().numpy(), np.log(8.0))
    np.testing.assert_allclose(op.solve(tf.ones([3, 1], dtype=tf.float64)).numpy(), 0.5 * np.ones((3, 1)))
    np.testing.assert_allclose(op.cholesky().to_dense().numpy(), np.sqrt(2) * np.eye(3))
    np.testing.assert_allclose(op.eigvals().numpy(), [2.0, 2.0, 2.0])
    op.assert_positive_definite()
    op.assert_non_singular()
    op.assert_self_adjoint()
    assert op.name == "_Scale2"


def test_batch_broadcasting_of_operator_and_argument():
    op = tf.linalg.LinearOperatorDiag(torch.tensor([[1.0, 2.0]], dtype=torch.float64))  # batch [1]
    x = torch.ones(4, 2, 3, dtype=torch.float64)  # batch [4]
    y = op.matmul(x)
    assert tuple(y.shape) == (4, 2, 3)
    full = tf.linalg.LinearOperatorFullMatrix(torch.eye(2, dtype=torch.float64).expand(3, 1, 2, 2) * 2)
    assert tuple(full.solve(torch.ones(5, 2, 1, dtype=torch.float64)).shape) == (3, 5, 2, 1)
    assert full.batch_shape.as_list() == [3, 1]


def test_gradients_flow_through_structured_operators():
    diag = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64, requires_grad=True)
    u = torch.tensor([[1.0], [0.5], [0.25]], dtype=torch.float64, requires_grad=True)
    op = tf.linalg.LinearOperatorLowRankUpdate(
        tf.linalg.LinearOperatorDiag(diag, is_positive_definite=True), u
    )
    op.log_abs_determinant().backward()
    dense = torch.diag(diag.detach()) + u.detach() @ u.detach().T
    np.testing.assert_allclose(diag.grad.numpy(), np.diag(np.linalg.inv(dense.numpy())), rtol=1e-10)
    assert len(op.trainable_variables) == 2
    assert any(isinstance(m, tf.linalg.LinearOperatorDiag) for m in op.submodules)
    assert op.non_trainable_variables == ()
