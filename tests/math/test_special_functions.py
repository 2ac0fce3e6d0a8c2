"""tf.math's betainc, polygamma, sobol_sample and tf.math.special against TF 2.15's recorded
outputs."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from _tf_api_extras import assert_same, error, expected
from torchestimator.errors import InvalidArgumentError

M = tf.math
S = tf.math.special
XS = torch.tensor([-3.0, -0.5, 0.0, 0.1, 0.5, 1.0, 2.0, 3.7, 5.9, 6.1, 10.0, 60.0],
                  dtype=torch.float64)
POS = torch.tensor([0.0, 0.1, 0.5, 1.0, 2.0, 3.7, 5.9, 6.1, 10.0, 30.0], dtype=torch.float64)
NAMES = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1",
         "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e",
         "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence"]


@pytest.mark.parametrize("fn", NAMES)
def test_special_float64_matches_tf(fn):
    rtol = 1e-10
    assert_same(getattr(S, fn)(XS), expected(f"special_{fn}_f64"), rtol=rtol, atol=1e-12)
    assert_same(getattr(S, fn)(POS), expected(f"special_{fn}_pos"), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("fn", NAMES)
def test_special_float32_matches_tf(fn):
    out = getattr(S, fn)(XS.float())
    assert out.dtype == torch.float32
    assert_same(out, expected(f"special_{fn}_f32"), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("fn", ["expint", "dawsn", "fresnel_cos", "fresnel_sin", "spence",
                                "bessel_y1", "bessel_k1e"])
def test_special_edges_match_tf(fn):
    edge = torch.tensor([np.inf, -np.inf, np.nan, 1e-300, -1e-300], dtype=torch.float64)
    assert_same(getattr(S, fn)(edge), expected(f"special_{fn}_edge"), rtol=1e-10, atol=1e-300)


def test_special_rejects_integers_naming_the_dtype():
    error("special_int_error")
    with pytest.raises(InvalidArgumentError, match="int32"):
        S.dawsn(torch.tensor([1, 2], dtype=torch.int32))


A = torch.tensor([0.5, 1.0, 2.0, 5.0, 30.0, 1.0, -1.0, 2.0], dtype=torch.float64)
B = torch.tensor([0.3, 3.0, 2.0, 1.0, 40.0, 1.0, 1.0, 0.0], dtype=torch.float64)
X = torch.tensor([0.1, 0.5, 0.9, 0.99, 0.4, 0.0, 0.5, 0.5], dtype=torch.float64)


def test_betainc_matches_tf():
    assert_same(M.betainc(A, B, X), expected("betainc_f64"), rtol=1e-10, atol=1e-12)
    assert_same(M.betainc(A.float(), B.float(), X.float()), expected("betainc_f32"), rtol=1e-5)
    assert_same(M.betainc(torch.tensor(2.0), B.float(), X.float()), expected("betainc_scalar_a"),
                rtol=1e-5)
    assert_same(M.betainc(torch.tensor([1.0, 2.0]), torch.tensor(3.0), torch.tensor([1.2, -0.1])),
                expected("betainc_x_outside"))
    assert tf.compat.v1.betainc is M.betainc
    assert_same(tf.compat.v1.betainc(torch.tensor([1.0]), torch.tensor([3.0]),
                                     torch.tensor([0.5])), expected("v1_betainc"))


def test_betainc_errors_as_tf():
    error("betainc_shape_err")
    with pytest.raises(InvalidArgumentError, match="Shapes of a and b"):
        M.betainc(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 1.0, 1.0]), torch.tensor([0.5, 0.2]))
    # (TF converts NumPy inputs to a's dtype; two tensors of different dtypes fail)
    with pytest.raises(InvalidArgumentError, match="`b`"):
        M.betainc(torch.tensor([1.0]), torch.tensor([3.0], dtype=torch.float64),
                  torch.tensor([0.5]))


def test_polygamma_matches_tf():
    a = torch.tensor([0.0, 1.5, -1.0, 2.0, 1.0, 3.0], dtype=torch.float64)
    x = torch.tensor([1.0, 2.0, 3.0, 0.5, -2.5, 4.0], dtype=torch.float64)
    assert_same(M.polygamma(a, x), expected("polygamma"), rtol=1e-10)
    assert_same(M.polygamma(torch.tensor(1.0), torch.tensor([0.5, 1.0, 7.0])),
                expected("polygamma_f32_bcast"), rtol=1e-6)
    assert_same(tf.compat.v1.polygamma(torch.tensor([1.0]), torch.tensor([3.0])),
                expected("v1_polygamma"))


def test_sobol_sample_matches_tf():
    assert_same(M.sobol_sample(2, 4), expected("sobol_2_4"))
    out = M.sobol_sample(5, 7, skip=3, dtype=tf.float64)
    assert out.dtype == torch.float64
    assert_same(out, expected("sobol_5_7_skip"))
    error("sobol_err_dtype")
    with pytest.raises(InvalidArgumentError, match="dtype"):
        M.sobol_sample(2, 4, dtype=tf.int32)
    with pytest.raises(InvalidArgumentError, match="num_results"):
        M.sobol_sample(2, 0)


def test_special_is_a_module_with_tf_names():
    import types

    assert isinstance(S, types.ModuleType)
    assert set(NAMES) <= set(dir(S))
    assert np.isclose(float(S.spence(torch.tensor(0.0, dtype=torch.float64))), np.pi ** 2 / 6)
