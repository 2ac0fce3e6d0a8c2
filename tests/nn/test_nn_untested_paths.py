"""`tf.nn` paths no other test runs: `conv3d_transpose` (checked as the gradient of `conv3d`
with respect to its input, which is what a transposed convolution is)."""

from __future__ import annotations

import pytest
import torch

import torchestimator as tf


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("stride", [1, 2])
def test_conv3d_transpose_is_the_input_gradient_of_conv3d(padding, stride):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 4, 5, 6, 3, generator=gen, requires_grad=True)
    filters = torch.randn(2, 3, 2, 3, 4, generator=gen)  # [d, h, w, in, out] for conv3d
    y = tf.nn.conv3d(x, filters, strides=[1, stride, stride, stride, 1], padding=padding)
    upstream = torch.randn(y.shape, generator=gen)
    (expected,) = torch.autograd.grad((y * upstream).sum(), x)
    out = tf.nn.conv3d_transpose(upstream, filters, output_shape=[2, 4, 5, 6, 3], strides=stride,
                                 padding=padding)
    assert tuple(out.shape) == (2, 4, 5, 6, 3)
    torch.testing.assert_close(out, expected, atol=1e-4, rtol=1e-4)


def test_conv3d_transpose_channels_first():
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(1, 4, 4, 4, 2, generator=gen, requires_grad=True)
    filters = torch.randn(2, 2, 2, 2, 3, generator=gen)
    y = tf.nn.conv3d(x, filters, strides=[1, 2, 2, 2, 1], padding="VALID")
    upstream = torch.randn(y.shape, generator=gen)
    (expected,) = torch.autograd.grad((y * upstream).sum(), x)
    out = tf.nn.conv3d_transpose(upstream.permute(0, 4, 1, 2, 3), filters,
                                 output_shape=[1, 2, 4, 4, 4], strides=[1, 1, 2, 2, 2],
                                 padding="VALID", data_format="NCDHW")
    torch.testing.assert_close(out.permute(0, 2, 3, 4, 1), expected, atol=1e-4, rtol=1e-4)
