"""ImageNet helpers shared by the applications: `preprocess_input`, `decode_predictions`,
input-shape validation, and the padding used before strided convolutions (Keras 2.15's
`keras.applications.imagenet_utils`)."""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import torch

from torchestimator.keras import activations, backend, layers
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.utils import _data_utils  # get_file looked up per call

CLASS_INDEX: dict | None = None
CLASS_INDEX_PATH = (
    "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
)
CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"

_MEAN = {"caffe": [103.939, 116.779, 123.68], "torch": [0.485, 0.456, 0.406]}
_STD = {"torch": [0.229, 0.224, 0.225]}

__all__ = ["decode_predictions", "preprocess_input"]


def _data_format(data_format: str | None) -> str:
    if data_format is None:
        return backend.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            "Expected data_format to be one of `channels_first` or "
            f"`channels_last`. Received: data_format={data_format}"
        )
    return data_format


def _channel_shape(ndim: int, data_format: str) -> tuple[int, ...]:
    if data_format == "channels_first":
        return (3, 1, 1) if ndim == 3 else (1, 3) + (1,) * (ndim - 2)
    return (3,)


def _flip_channels(x: Any, data_format: str, flip: Any) -> Any:
    if data_format == "channels_first":
        return flip(x, 0 if x.ndim == 3 else 1)
    return flip(x, x.ndim - 1)


def preprocess_input(x: Any, data_format: str | None = None, mode: str = "caffe") -> Any:
    """Preprocesses a tensor or Numpy array encoding a batch of images.

    Args:
        x: a floating point `numpy.array` or a tensor, 3D or 4D with 3 color channels, with
            values in the range [0, 255]. A floating point numpy array is modified in place,
            as in Keras.
        data_format: `None` (the global `image_data_format`), "channels_first" or
            "channels_last".
        mode: "caffe" (RGB to BGR, then each channel zero-centered with respect to the ImageNet
            dataset, without scaling), "tf" (pixels scaled between -1 and 1, sample-wise) or
            "torch" (pixels scaled between 0 and 1, then each channel normalized with respect
            to the ImageNet dataset).

    Returns:
        The preprocessed `numpy.array` (float32 unless it was already floating) or tensor.

    Raises:
        ValueError: for an unknown `mode` or `data_format`.
    """
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError(
            f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}"
        )
    data_format = _data_format(data_format)
    if isinstance(x, np.ndarray):
        if not issubclass(x.dtype.type, np.floating):
            x = x.astype("float32", copy=False)
        if mode == "tf":
            x /= 127.5
            x -= 1.0
            return x
        if mode == "torch":
            x /= 255.0
        else:
            x = _flip_channels(x, data_format, np.flip)
        shape = _channel_shape(x.ndim, data_format)
        x -= np.asarray(_MEAN[mode], dtype=x.dtype).reshape(shape)
        if mode in _STD:
            x /= np.asarray(_STD[mode], dtype=x.dtype).reshape(shape)
        return x
    return _preprocess_symbolic(x, data_format, mode)


def _preprocess_symbolic(x: Any, data_format: str, mode: str) -> Any:
    if isinstance(x, KerasTensor):  # inside a functional model: a Lambda layer does the work
        return layers.Lambda(lambda t: _preprocess_symbolic(t, data_format, mode))(x)
    x = torch.as_tensor(x)
    if not x.is_floating_point():
        x = x.to(torch.float32)
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        x = x / 255.0
    else:
        x = _flip_channels(x, data_format, lambda t, axis: torch.flip(t, (axis,)))
    shape = _channel_shape(x.dim(), data_format)
    x = x - torch.tensor(_MEAN[mode], dtype=x.dtype, device=x.device).reshape(shape)
    if mode in _STD:
        x = x / torch.tensor(_STD[mode], dtype=x.dtype, device=x.device).reshape(shape)
    return x


def decode_predictions(preds: Any, top: int = 5) -> list[list[tuple[str, str, float]]]:
    """Decodes the prediction of an ImageNet model.

    The class index (`imagenet_class_index.json`) is fetched once with
    `tf.keras.utils.get_file` into `~/.keras/models` and its hash checked.

    Args:
        preds: Numpy array (or tensor) encoding a batch of predictions, shape (samples, 1000).
        top: Integer, how many top-guesses to return. Defaults to 5.

    Returns:
        A list of lists of top class prediction tuples `(class_name, class_description,
        score)`: one list of tuples per sample in batch input.

    Raises:
        ValueError: In case of invalid shape of the `pred` array (must be 2D).
    """
    global CLASS_INDEX
    if isinstance(preds, torch.Tensor):
        preds = preds.detach().cpu().numpy()
    preds = np.asarray(preds)
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError(
            "`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
            f"(samples, 1000)). Found array with shape: {preds.shape}"
        )
    if CLASS_INDEX is None:
        fpath = _data_utils.get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models",
                         file_hash=CLASS_INDEX_HASH)
        with open(fpath, encoding="utf-8") as f:
            CLASS_INDEX = json.load(f)
    results = []
    for pred in preds:
        top_indices = pred.argsort()[-top:][::-1]
        result = [tuple(CLASS_INDEX[str(i)]) + (pred[i],) for i in top_indices]
        result.sort(key=lambda item: item[2], reverse=True)
        results.append(result)
    return results


def obtain_input_shape(input_shape: Any, default_size: int, min_size: int, data_format: str,
                       require_flatten: bool, weights: Any = None) -> tuple:
    """Computes/validates a model's input shape (Keras' internal `obtain_input_shape`)."""
    channels_first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels not in {1, 3}:
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was "
                          f"passed an input_shape with {channels} input channels.", stacklevel=3)
        default_shape = ((channels, default_size, default_size) if channels_first
                         else (default_size, default_size, channels))
    else:
        default_shape = (3, default_size, default_size) if channels_first else (
            default_size, default_size, 3)
    if weights == "imagenet" and require_flatten and input_shape is not None:
        if tuple(input_shape) != default_shape:
            raise ValueError(
                "When setting `include_top=True` and loading `imagenet` weights, "
                f"`input_shape` should be {default_shape}.  Received: input_shape={input_shape}"
            )
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; Received `input_shape={input_shape}`")
        spatial = input_shape[1:] if channels_first else input_shape[:2]
        if any(size is not None and size < min_size for size in spatial):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                             f"input_shape={input_shape}")
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static `input_shape`. "
                         f"Received: input_shape={input_shape}")
    return input_shape


def correct_pad(inputs: Any, kernel_size: int | tuple[int, int]) -> tuple:
    """Returns the ((top, bottom), (left, right)) zero-padding for a 2D convolution with
    downsampling, so that 'valid' strided convolutions match TF's 'same' ones."""

    img_dim = 2 if backend.image_data_format() == "channels_first" else 1
    input_size = tuple(inputs.shape)[img_dim:img_dim + 2]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    if input_size[0] is None:
        adjust = (1, 1)
    else:
        adjust = (1 - input_size[0] % 2, 1 - input_size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def validate_activation(classifier_activation: Any, weights: Any) -> None:
    """Raises ValueError when pretrained `weights` are combined with a `classifier_activation`
    other than `None` or "softmax"."""
    if weights is None:
        return

    activation = activations.get(classifier_activation)
    if activation not in {activations.get("softmax"), activations.get(None)}:
        raise ValueError(
            "Only `None` and `softmax` activations are allowed for the `classifier_activation` "
            "argument when using pretrained weights, with `include_top=True`; Received: "
            f"classifier_activation={classifier_activation}"
        )
