"""`MultiHeadAttention` (Vaswani et al. 2017) with Keras' weight layout, on
`torch.nn.functional.scaled_dot_product_attention`.

Weights (Keras 2.15's EinsumDense kernels, in this order): `query/kernel
(query_dim, num_heads, key_dim)`, `query/bias (num_heads, key_dim)`, the same
for `key` (from the key's last dim) and `value` (`value_dim` per head), and
`attention_output/kernel (num_heads, value_dim, *output_shape)`,
`attention_output/bias (*output_shape,)`. For N-D inputs attention runs over
`attention_axes`; the other axes are folded into the batch for the kernel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator.keras import constraints, initializers, regularizers
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__") or int(value) <= 0:
        raise ValueError(
            f"MultiHeadAttention: `{name}` must be a positive integer, got {value!r}."
        )
    return int(value)


def _as_tensor(value: Any, like: torch.Tensor) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        t = value
    else:
        t = torch.as_tensor(np.asarray(value))
    if t.is_floating_point() and t.dtype != like.dtype:
        t = t.to(like.dtype)
    return t.to(like.device) if t.device != like.device else t


class MultiHeadAttention(Layer):
    """MultiHeadAttention layer: attention of `query` over `value` (and `key`) with many heads.

    Args:
        num_heads: number of attention heads.
        key_dim: size of each attention head for query and key.
        value_dim: size of each attention head for value (default `key_dim`).
        dropout: dropout probability on the attention weights.
        use_bias: whether the dense projections use bias vectors.
        output_shape: the size (int or tuple) of the output's last axes;
            by default the query's last dimension.
        attention_axes: axes over which attention is applied (default: every
            axis but the batch and the feature axis).
        kernel_initializer / bias_initializer / kernel_regularizer /
        bias_regularizer / activity_regularizer / kernel_constraint /
        bias_constraint: for the projection weights.

    Call arguments: `query (B, T, dim)`, `value (B, S, dim)`, `key (B, S, dim)`
    (default `value`), `attention_mask` (bool `(B, T, S)`, True = attend),
    `return_attention_scores`, `training`, `use_causal_mask`. Keras masks on
    query/value/key (`_keras_mask`) are combined into the attention mask.

    Returns the attention output `(B, T, output_dim)`, and with
    `return_attention_scores` also the attention weights `(B, num_heads, T, S)`.
    """

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim: int | None = None,
        dropout: float = 0.0,
        use_bias: bool = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        self._num_heads = _positive_int(num_heads, "num_heads")
        self._key_dim = _positive_int(key_dim, "key_dim")
        self._value_dim = _positive_int(value_dim, "value_dim") if value_dim else self._key_dim
        rate = float(dropout)
        if not 0.0 <= rate < 1.0:
            raise ValueError(f"MultiHeadAttention: `dropout` must be in [0, 1), got {dropout!r}.")
        self._dropout = rate
        self._use_bias = bool(use_bias)
        if output_shape is not None:
            dims = (output_shape,) if isinstance(output_shape, int) else tuple(output_shape)
            if not dims or any(not isinstance(d, (int, np.integer)) or d <= 0 for d in dims):
                raise ValueError(
                    "MultiHeadAttention: `output_shape` must be a positive int or a tuple of "
                    f"positive ints, got {output_shape!r}."
                )
            output_shape = tuple(int(d) for d in dims)
        self._output_shape = output_shape
        if attention_axes is not None and not isinstance(attention_axes, (list, tuple)):
            attention_axes = (attention_axes,)
        self._attention_axes = None if attention_axes is None else tuple(int(a) for a in attention_axes)
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        self._built_from_signature = False
        self._query_shape = self._key_shape = self._value_shape = None

    # Keras 2.15 exposes these read-only.
    num_heads = property(lambda self: self._num_heads, doc="Number of attention heads.")
    key_dim = property(lambda self: self._key_dim, doc="Size of each query/key head.")
    value_dim = property(lambda self: self._value_dim, doc="Size of each value head.")
    dropout = property(lambda self: self._dropout, doc="Dropout rate on attention weights.")
    use_bias = property(lambda self: self._use_bias, doc="Whether projections have biases.")
    attention_axes = property(lambda self: self._attention_axes, doc="Axes attention runs over.")

    # ------------------------------------------------------------------ build
    def build(self, input_shape: Any, value_shape: Any = None, key_shape: Any = None) -> None:
        """Marks the layer built, as TF 2.15's (whose weights wait for the first call); given
        `value_shape` too (Keras 3's form, `input_shape` being the query's shape), creates the
        projection weights for those shapes."""
        if value_shape is not None:
            self._build_from_signature(input_shape, value_shape, key_shape)
        self.built = True

    def _build_from_signature(self, query_shape: Any, value_shape: Any, key_shape: Any = None) -> None:
        """Creates the weights for inputs of these shapes (Keras' `_build_from_signature`)."""
        if self._built_from_signature:
            return
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        for what, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) < 3 or shape[-1] is None:
                raise ValueError(
                    f'MultiHeadAttention "{self.name}": `{what}` must have rank >= 3 '
                    f"(batch, ..., features) with a known last dimension; received shape {shape}."
                )
        if not len(query_shape) == len(value_shape) == len(key_shape):
            raise ValueError(
                f'MultiHeadAttention "{self.name}": query, value and key must have the same rank; '
                f"received shapes {query_shape}, {value_shape}, {key_shape}."
            )
        rank = len(query_shape)
        axes = self._attention_axes or tuple(range(1, rank - 1))
        axes = tuple(a % rank for a in axes)
        if any(a == 0 or a == rank - 1 for a in axes):
            raise ValueError(
                f'MultiHeadAttention "{self.name}": `attention_axes` must not contain the batch '
                f"or the feature axis; received attention_axes={self._attention_axes} for inputs of "
                f"rank {rank}."
            )
        self._axes = tuple(sorted(set(axes)))
        self._query_shape, self._value_shape, self._key_shape = query_shape, value_shape, key_shape
        heads, kd, vd = self._num_heads, self._key_dim, self._value_dim
        out = self._output_shape or (query_shape[-1],)
        for name, dim, size in (
            ("query", query_shape[-1], kd), ("key", key_shape[-1], kd), ("value", value_shape[-1], vd),
        ):
            self._add(f"{name}/kernel", (dim, heads, size), self._kernel_initializer, True)
            if self._use_bias:
                self._add(f"{name}/bias", (heads, size), self._bias_initializer, False)
        self._add("attention_output/kernel", (heads, vd) + tuple(out), self._kernel_initializer, True)
        if self._use_bias:
            self._add("attention_output/bias", tuple(out), self._bias_initializer, False)
        self._built_from_signature = True

    def _add(self, name: str, shape: tuple, initializer: Any, kernel: bool) -> None:
        self.add_weight(
            name, shape=shape, initializer=initializer,
            regularizer=self._kernel_regularizer if kernel else self._bias_regularizer,
            constraint=self._kernel_constraint if kernel else self._bias_constraint,
        )

    def get_build_config(self) -> dict | None:
        """The shapes the weights were made for, to rebuild them on load."""
        if not self._built_from_signature:
            return None
        return {
            "query_shape": list(self._query_shape),
            "value_shape": list(self._value_shape),
            "key_shape": list(self._key_shape),
        }

    def build_from_config(self, config: dict | None) -> None:
        """Creates the weights from `get_build_config()`'s output."""
        if config and config.get("query_shape") is not None:
            self._build_from_signature(config["query_shape"], config["value_shape"], config.get("key_shape"))
            self.built = True

    def _weight(self, name: str) -> torch.Tensor | None:
        return self._parameters.get(name.replace("/", "_"))

    # ------------------------------------------------------------------ call
    def call(
        self,
        query: torch.Tensor,
        value: Any,
        key: Any = None,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: bool | None = None,
        use_causal_mask: bool = False,
    ) -> Any:
        """Returns the attention output (and the attention weights if requested)."""
        value = _as_tensor(value, query)
        key = value if key is None else _as_tensor(key, query)
        if not self._built_from_signature:
            if query.device.type != "meta":
                self._build_device = query.device
            self._build_from_signature(query.shape, value.shape, key.shape)
            device = next(self.parameters()).device
            if query.device != device and query.device.type == "cpu":
                # the weights were just made on an accelerator: host inputs go there, as TF's
                # copy (later top-level calls move them before `call`: `_host_inputs_to_weights`)
                query, value, key = (t.to(device) for t in (query, value, key))
                if isinstance(attention_mask, torch.Tensor):
                    attention_mask = attention_mask.to(device)
        if use_causal_mask and query.ndim != 3:
            raise ValueError(
                f'MultiHeadAttention "{self.name}": `use_causal_mask=True` needs 3D inputs '
                f"(batch, timesteps, features); received a query of shape {tuple(query.shape)}. "
                "Pass an explicit `attention_mask` instead."
            )
        mask = self._compute_attention_mask(query, value, key, attention_mask, use_causal_mask)
        dtype = query.dtype
        q = self._project(query, "query", dtype)  # (B, *S_q, H, K)
        k = self._project(key, "key", dtype)
        v = self._project(value, "value", dtype)
        q_f, q_layout = self._fold(q)
        k_f, _ = self._fold(k)
        v_f, _ = self._fold(v)
        rate = self._dropout if training else 0.0
        attn_mask, causal_only = None, False
        if mask is not None:
            attn_mask = self._fold_mask(mask, q, k, dtype)
        elif use_causal_mask:
            causal_only = True
        if return_attention_scores:
            if causal_only:
                attn_mask = self._fold_mask(self._causal_mask(query, value), q, k, dtype)
            scores = torch.matmul(q_f * (1.0 / math.sqrt(self._key_dim)), k_f.transpose(-1, -2))
            if attn_mask is not None:
                scores = scores + attn_mask
            weights = torch.softmax(scores, dim=-1)
            dropped = F.dropout(weights, rate, True) if rate > 0 else weights
            out_f = torch.matmul(dropped, v_f)
        else:
            weights = None
            out_f = F.scaled_dot_product_attention(
                q_f, k_f, v_f, attn_mask=attn_mask, dropout_p=rate, is_causal=causal_only
            )
        out = self._unfold(out_f, q_layout)  # (B, *S_q, H, V)
        output = self._output(out, dtype)
        if return_attention_scores:
            return output, self._unfold_scores(weights, q_layout, k.shape)
        return output

    def _project(self, x: torch.Tensor, name: str, dtype: torch.dtype) -> torch.Tensor:
        kernel = self._weight(f"{name}/kernel").to(dtype)
        y = torch.einsum("...d,dhk->...hk", x, kernel)
        if self._use_bias:
            y = y + self._weight(f"{name}/bias").to(dtype)
        return y

    def _output(self, x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        kernel = self._weight("attention_output/kernel").to(dtype)
        heads, vd = kernel.shape[0], kernel.shape[1]
        out_dims = tuple(kernel.shape[2:])
        flat = x.reshape(x.shape[:-2] + (heads * vd,)) @ kernel.reshape(heads * vd, -1)
        y = flat.reshape(x.shape[:-2] + out_dims)
        if self._use_bias:
            y = y + self._weight("attention_output/bias").to(dtype)
        return y

    def _fold(self, t: torch.Tensor) -> tuple[torch.Tensor, tuple]:
        """(B, *S, H, D) -> (N, H, L, D): non-attention axes into N, attention axes into L."""
        rank = t.ndim - 1  # the input's rank
        attn = list(self._axes)
        batch_like = [0] + [a for a in range(1, rank - 1) if a not in attn]
        heads_axis = rank - 1
        perm = batch_like + [heads_axis] + attn + [rank]
        moved = t.permute(perm)
        b_shape = tuple(t.shape[a] for a in batch_like)
        a_shape = tuple(t.shape[a] for a in attn)
        folded = moved.reshape((math.prod(b_shape), t.shape[heads_axis], math.prod(a_shape), t.shape[-1]))
        return folded, (perm, b_shape, a_shape)

    def _unfold(self, t: torch.Tensor, layout: tuple) -> torch.Tensor:
        perm, b_shape, a_shape = layout
        heads, dim = t.shape[1], t.shape[-1]
        moved = t.reshape(b_shape + (heads,) + a_shape + (dim,))
        inverse = [0] * len(perm)
        for i, p in enumerate(perm):
            inverse[p] = i
        return moved.permute(inverse)

    def _unfold_scores(self, weights: torch.Tensor, layout: tuple, k_shape: tuple) -> torch.Tensor:
        _, b_shape, a_shape = layout
        k_attn = tuple(k_shape[a] for a in self._axes)
        return weights.reshape(b_shape + (weights.shape[1],) + a_shape + k_attn)

    def _fold_mask(self, mask: torch.Tensor, q: torch.Tensor, k: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        """A bool mask in Keras' score layout (without heads) -> an additive (N, 1, Lq, Lk) mask."""
        rank = q.ndim - 1
        n_attn = len(self._axes)
        batch_like = [0] + [a for a in range(1, rank - 1) if a not in self._axes]
        target = (
            tuple(q.shape[a] for a in batch_like) + (1,)
            + tuple(q.shape[a] for a in self._axes) + tuple(k.shape[a] for a in self._axes)
        )
        mask = mask.to(torch.bool)
        while mask.ndim < len(target):
            mask = mask.unsqueeze(-2 * n_attn - 1)
        try:
            mask = torch.broadcast_to(mask, target)
        except RuntimeError:
            raise ValueError(
                f'MultiHeadAttention "{self.name}": `attention_mask` of shape {tuple(mask.shape)} '
                f"cannot be broadcast to the attention scores' shape {target} (batch, ..., "
                "1 for the heads, query attention axes, key attention axes)."
            ) from None
        n = math.prod(target[: len(batch_like)])
        lq = math.prod(target[len(batch_like) + 1: len(batch_like) + 1 + n_attn])
        folded = mask.reshape(n, 1, lq, -1)
        neg = torch.finfo(dtype).min if dtype == torch.float16 else -1e9
        return torch.zeros(folded.shape, dtype=dtype, device=folded.device).masked_fill(~folded, neg)

    def _causal_mask(self, query: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
        tq, tv = query.shape[1], value.shape[1]
        return torch.ones((1, tq, tv), dtype=torch.bool, device=query.device).tril()

    def _compute_attention_mask(
        self, query: torch.Tensor, value: torch.Tensor, key: torch.Tensor, attention_mask: Any,
        use_causal_mask: bool,
    ) -> torch.Tensor | None:
        """Combines the query/value/key Keras masks, the causal mask and `attention_mask`."""
        auto = None
        q_mask = getattr(query, "_keras_mask", None)
        v_mask = getattr(value, "_keras_mask", None)
        k_mask = getattr(key, "_keras_mask", None) if key is not value else None
        if q_mask is not None:
            auto = q_mask.to(torch.bool)[:, :, None]
        for m in (v_mask, k_mask):
            if m is not None:
                m = m.to(torch.bool)[:, None, :]
                auto = m if auto is None else auto & m
        if use_causal_mask and (auto is not None or attention_mask is not None):
            c = self._causal_mask(query, value)
            auto = c if auto is None else auto & c
        if attention_mask is not None:
            attention_mask = _as_tensor(attention_mask, query).to(torch.bool)
            return attention_mask if auto is None else attention_mask & auto
        return auto

    # ------------------------------------------------------------------ shapes
    def _out_dims(self, query_shape: tuple) -> tuple:
        return self._output_shape or (query_shape[-1],)

    def compute_output_shape(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None) -> tuple:
        """The output shape: the query's shape with its last axis replaced by `output_shape`."""
        query_shape = tuple(query_shape)
        return query_shape[:-1] + tuple(self._out_dims(query_shape))

    def compute_output_spec(
        self, query: Any, value: Any, key: Any = None, attention_mask: Any = None,
        return_attention_scores: bool = False, training: Any = None, use_causal_mask: bool = False,
    ) -> Any:
        """Returns the symbolic output (and scores) for symbolic inputs; builds the weights."""
        key_shape = None if key is None else tuple(key.shape)
        self._build_from_signature(tuple(query.shape), tuple(value.shape), key_shape)
        out = KerasTensor(self.compute_output_shape(query.shape), self._compute_dtype)
        q_mask = getattr(query, "_keras_mask", None)
        if isinstance(q_mask, KerasTensor):
            out._keras_mask = q_mask
        if not return_attention_scores:
            return out
        k_shape = tuple(value.shape) if key is None else key_shape
        rank = len(query.shape)
        batch_like = [0] + [a for a in range(1, rank - 1) if a not in self._axes]
        scores_shape = (
            tuple(query.shape[a] for a in batch_like) + (self._num_heads,)
            + tuple(query.shape[a] for a in self._axes) + tuple(k_shape[a] for a in self._axes)
        )
        return [out, KerasTensor(scores_shape, self._compute_dtype)]

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        """Returns the constructor arguments and the input shapes (Keras 2.15 keys)."""
        config = super().get_config()
        config.update({
            "num_heads": self._num_heads,
            "key_dim": self._key_dim,
            "value_dim": self._value_dim,
            "dropout": self._dropout,
            "use_bias": self._use_bias,
            "output_shape": list(self._output_shape) if self._output_shape else None,
            "attention_axes": list(self._attention_axes) if self._attention_axes else None,
            "kernel_initializer": initializers.serialize(self._kernel_initializer),
            "bias_initializer": initializers.serialize(self._bias_initializer),
            "kernel_regularizer": regularizers.serialize(self._kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self._bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self._kernel_constraint),
            "bias_constraint": constraints.serialize(self._bias_constraint),
            "query_shape": None if self._query_shape is None else list(self._query_shape),
            "key_shape": None if self._key_shape is None else list(self._key_shape),
            "value_shape": None if self._value_shape is None else list(self._value_shape),
        })
        return config

    @classmethod
    def from_config(cls, config: dict) -> MultiHeadAttention:
        """Creates the layer from `get_config()`'s output, with its weights if shapes are known."""
        config = dict(config)
        shapes = [config.pop(k, None) for k in ("query_shape", "value_shape", "key_shape")]
        layer = cls(**config)
        if shapes[0] is not None and shapes[1] is not None:
            layer._build_from_signature(shapes[0], shapes[1], shapes[2])
            layer.built = True
        return layer
