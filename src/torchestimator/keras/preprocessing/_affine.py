"""Keras 2.15's image transforms (`apply_affine_transform`, the channel and brightness shifts and
their `random_*` forms), on NumPy and Pillow.

The affine resampling reproduces `scipy.ndimage.affine_transform` for spline orders 0 and 1
(Keras's default `interpolation_order=1`) and its `constant`, `nearest`, `reflect` and `wrap`
boundary modes, so SciPy is not a dependency; higher orders use SciPy when it is installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from torchestimator.keras.utils._image_utils import array_to_img, img_to_array

_FILL_MODES = ("constant", "nearest", "reflect", "wrap")


def _map_coordinates(c: np.ndarray, n: int, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """SciPy's coordinate extension along one axis of length `n`: returns the mapped coordinate
    and a mask of the points that fall outside the input (`constant` mode only)."""
    outside = np.zeros(c.shape, dtype=bool)
    if mode == "constant":
        outside = (c < 0) | (c > n - 1)
        return np.clip(c, 0, n - 1), outside
    if mode == "nearest":
        return np.clip(c, 0, n - 1), outside
    if n <= 1:
        return np.zeros_like(c), outside
    if mode == "reflect":
        period = 2 * n
        c = c.copy()
        neg = c < 0
        cn = c[neg]
        cn = np.where(cn < -period, period * np.trunc(-cn / period) + cn, cn)
        c[neg] = np.where(cn < -n, cn + period, -cn - 1)
        big = c > n - 1
        cb = c[big]
        cb = cb - period * np.trunc(cb / period)
        c[big] = np.where(cb >= n, period - cb - 1, cb)
        return c, outside
    # wrap: SciPy's `wrap`, whose period is n - 1 (the first and last points overlap)
    size = n - 1
    c = c.copy()
    neg = c < 0
    c[neg] = c[neg] + size * (np.trunc(-c[neg] / size) + 1)
    big = c > n - 1
    c[big] = c[big] - size * np.trunc(c[big] / size)
    return c, outside


def _resample(image: np.ndarray, matrix: np.ndarray, offset: np.ndarray, order: int,
              mode: str, cval: float) -> np.ndarray:
    """`scipy.ndimage.affine_transform(image, matrix, offset, order, mode=mode, cval=cval)` for a
    2-D `image` and order 0 or 1: output[o] = image[matrix @ o + offset], interpolated."""
    h, w = image.shape
    rows, cols = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64),
                             indexing="ij")
    r = matrix[0, 0] * rows + matrix[0, 1] * cols + offset[0]
    c = matrix[1, 0] * rows + matrix[1, 1] * cols + offset[1]
    r, out_r = _map_coordinates(r, h, mode)
    c, out_c = _map_coordinates(c, w, mode)
    src = image.astype(np.float64)
    if order == 0:
        ri = np.clip(np.floor(r + 0.5).astype(np.int64), 0, h - 1)
        ci = np.clip(np.floor(c + 0.5).astype(np.int64), 0, w - 1)
        out = src[ri, ci]
    else:
        r0, c0 = np.floor(r), np.floor(c)
        fr, fc = r - r0, c - c0
        r0 = r0.astype(np.int64)
        c0 = c0.astype(np.int64)
        r0c, r1c = np.clip(r0, 0, h - 1), np.clip(r0 + 1, 0, h - 1)
        c0c, c1c = np.clip(c0, 0, w - 1), np.clip(c0 + 1, 0, w - 1)
        out = ((1 - fr) * ((1 - fc) * src[r0c, c0c] + fc * src[r0c, c1c])
               + fr * ((1 - fc) * src[r1c, c0c] + fc * src[r1c, c1c]))
    out = np.where(out_r | out_c, cval, out)
    if np.issubdtype(image.dtype, np.integer):  # SciPy rounds half away from zero
        out = np.sign(out) * np.floor(np.abs(out) + 0.5)
    return out.astype(image.dtype)


def _scipy_resample(image: np.ndarray, matrix: np.ndarray, offset: np.ndarray, order: int,
                    mode: str, cval: float) -> np.ndarray:
    try:
        from scipy import ndimage  # lazy: optional extra (scipy)
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"apply_affine_transform with order={order} (spline interpolation above 1) needs "
            "SciPy: install it with `pip install scipy`, or use order 0 or 1.") from e
    return ndimage.affine_transform(image, matrix, offset, order=order, mode=mode, cval=cval)


def transform_matrix_offset_center(matrix: np.ndarray, x: int, y: int) -> np.ndarray:
    """Re-centres a 3x3 homogeneous `matrix` on the image centre of an `x` by `y` image."""
    o_x = float(x) / 2 - 0.5
    o_y = float(y) / 2 - 0.5
    offset_matrix = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset_matrix = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset_matrix @ matrix @ reset_matrix


def apply_affine_transform(x: np.ndarray, theta: float = 0, tx: float = 0, ty: float = 0,
                           shear: float = 0, zx: float = 1, zy: float = 1, row_axis: int = 1,
                           col_axis: int = 2, channel_axis: int = 0, fill_mode: str = "nearest",
                           cval: float = 0.0, order: int = 1) -> np.ndarray:
    """Applies an affine transformation specified by the parameters given.

    Args:
        x: 3D numpy array, a 2D image with one or more channels.
        theta: Rotation angle in degrees. tx, ty: shifts along the row and column axes.
        shear: Shear angle in degrees. zx, zy: zoom along the row and column axes.
        row_axis, col_axis, channel_axis: indices of the axes of `x`.
        fill_mode: Points outside the boundaries of the input are filled according to the given
            mode (one of `{'constant', 'nearest', 'reflect', 'wrap'}`).
        cval: Value used for points outside the boundaries with `fill_mode='constant'`.
        order: int, order of interpolation.

    Returns:
        The transformed version of the input (same shape and dtype).
    """
    if np.unique([row_axis, col_axis, channel_axis]).size != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    actual_indices = {row_axis, col_axis, channel_axis}
    if actual_indices != {0, 1, 2}:
        raise ValueError(f"Invalid axis' indices: {actual_indices - {0, 1, 2}}")
    x = np.asarray(x)
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in [0, 2]:
        raise ValueError("Channels are allowed and the first and last dimensions.")
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"Invalid fill_mode {fill_mode!r}: expected one of {_FILL_MODES}.")
    transform = None

    def compose(m: np.ndarray) -> None:
        nonlocal transform
        transform = m if transform is None else transform @ m

    if theta != 0:
        t = np.deg2rad(theta)
        compose(np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]]))
    if tx != 0 or ty != 0:
        compose(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        compose(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        compose(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if transform is None:
        return x
    h, w = x.shape[row_axis], x.shape[col_axis]
    transform = transform_matrix_offset_center(transform, h, w).astype(np.float64)
    x = np.rollaxis(x, channel_axis, 0)
    if col_axis > row_axis:
        transform[:, [0, 1]] = transform[:, [1, 0]]
        transform[[0, 1]] = transform[[1, 0]]
    matrix, offset = transform[:2, :2], transform[:2, 2]
    resample = _resample if order in (0, 1) else _scipy_resample
    x = np.stack([resample(ch, matrix, offset, order, fill_mode, cval) for ch in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def _random_affine(x: Any, row_axis: int, col_axis: int, channel_axis: int, fill_mode: str,
                   cval: float, interpolation_order: int, **params: Any) -> np.ndarray:
    return apply_affine_transform(x, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order, **params)


def random_rotation(x: np.ndarray, rg: float, row_axis: int = 1, col_axis: int = 2,
                    channel_axis: int = 0, fill_mode: str = "nearest", cval: float = 0.0,
                    interpolation_order: int = 1) -> np.ndarray:
    """Performs a random rotation of a Numpy image tensor by an angle drawn uniformly (NumPy's
    global generator) from `[-rg, rg]` degrees; returns the rotated image."""
    theta = np.random.uniform(-rg, rg)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, theta=theta)


def random_shift(x: np.ndarray, wrg: float, hrg: float, row_axis: int = 1, col_axis: int = 2,
                 channel_axis: int = 0, fill_mode: str = "nearest", cval: float = 0.0,
                 interpolation_order: int = 1) -> np.ndarray:
    """Performs a random spatial shift of a Numpy image tensor: `hrg` and `wrg` are the height
    and width shift ranges as fractions of the image size; returns the shifted image."""
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, tx=tx, ty=ty)


def random_shear(x: np.ndarray, intensity: float, row_axis: int = 1, col_axis: int = 2,
                 channel_axis: int = 0, fill_mode: str = "nearest", cval: float = 0.0,
                 interpolation_order: int = 1) -> np.ndarray:
    """Performs a random spatial shear of a Numpy image tensor by an angle drawn from
    `[-intensity, intensity]` degrees; returns the sheared image."""
    shear = np.random.uniform(-intensity, intensity)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, shear=shear)


def random_zoom(x: np.ndarray, zoom_range: Any, row_axis: int = 1, col_axis: int = 2,
                channel_axis: int = 0, fill_mode: str = "nearest", cval: float = 0.0,
                interpolation_order: int = 1) -> np.ndarray:
    """Performs a random spatial zoom of a Numpy image tensor: the row and column zoom factors
    are drawn from `zoom_range` (a tuple of two floats); returns the zoomed image."""
    if len(zoom_range) != 2:
        raise ValueError("`zoom_range` should be a tuple or list of two floats. "
                         f"Received: {zoom_range}")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, zx=zx, zy=zy)


def apply_channel_shift(x: np.ndarray, intensity: float, channel_axis: int = 0) -> np.ndarray:
    """Performs a channel shift: adds `intensity` to every channel, clipped to the image's
    original minimum and maximum; returns the shifted image."""
    x = np.rollaxis(np.asarray(x), channel_axis, 0)
    min_x, max_x = np.min(x), np.max(x)
    x = np.stack([np.clip(ch + intensity, min_x, max_x) for ch in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def random_channel_shift(x: np.ndarray, intensity_range: float,
                         channel_axis: int = 0) -> np.ndarray:
    """Performs a random channel shift by an intensity drawn from
    `[-intensity_range, intensity_range]`; returns the shifted image."""
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def apply_brightness_shift(x: np.ndarray, brightness: float, scale: bool = True) -> np.ndarray:
    """Performs a brightness shift with Pillow's `ImageEnhance.Brightness` on a channels-last
    image; returns the float image (rescaled back to the input's range when `scale=False` and
    the input lies outside [0, 255])."""
    from PIL import ImageEnhance  # lazy: heavy (PIL.ImageEnhance, 64 ms)

    x = np.asarray(x)
    x_min, x_max = np.min(x), np.max(x)
    local_scale = (x_min < 0) or (x_max > 255)
    img = array_to_img(x, scale=local_scale or scale)
    img = ImageEnhance.Brightness(img).enhance(brightness)
    out = img_to_array(img)
    if not scale and local_scale:
        out = out / 255 * (x_max - x_min) + x_min
    return out


def random_brightness(x: np.ndarray, brightness_range: Any, scale: bool = True) -> np.ndarray:
    """Performs a random brightness shift by a factor drawn from `brightness_range` (a tuple of
    two floats); returns the shifted image."""
    if len(brightness_range) != 2:
        raise ValueError("`brightness_range should be tuple or list of two floats. "
                         f"Received: {brightness_range}")
    u = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, u, scale)


def flip_axis(x: np.ndarray, axis: int) -> np.ndarray:
    """Reverses `x` along `axis`; returns the flipped array."""
    x = np.asarray(x).swapaxes(axis, 0)
    return x[::-1, ...].swapaxes(0, axis)
