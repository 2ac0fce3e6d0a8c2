"""`tf.audio.decode_wav` / `encode_wav`: 16-bit PCM WAV through the stdlib `wave` module.

As TF's `wav_io`: samples are scaled by 1/32768 to float32 in [-1, 1); encoding multiplies by
32768, rounds half away from zero and clamps to the int16 range; the file is the canonical
44-byte RIFF/WAVE header followed by the interleaved little-endian samples.
"""

from __future__ import annotations

import io
import wave
from typing import Any

import numpy as np
import torch

from torchestimator.errors import InvalidArgumentError

__all__ = ["decode_wav", "encode_wav"]


def _as_bytes(contents: Any, op: str) -> bytes:
    if isinstance(contents, np.ndarray):
        contents = contents.item()
    if isinstance(contents, (bytes, bytearray, memoryview)):
        return bytes(contents)
    raise InvalidArgumentError(
        None, None, f"{op}: `contents` must be the WAV file's bytes (e.g. from "
        f"tf.io.read_file); received {type(contents).__name__}.")


def decode_wav(contents: Any, desired_channels: int = -1, desired_samples: int = -1,
               name: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Decode a 16-bit PCM WAV file to a float tensor.

    The -32768 to 32767 signed 16-bit values will be scaled to -1.0 to 1.0 in float.

    When `desired_channels` is set, if the input contains fewer channels than this then the
    last channel will be duplicated to give the requested number, else if the input has more
    channels than requested then the additional channels will be ignored. If
    `desired_samples` is set, then the audio will be cropped or padded with zeroes to the
    requested length.

    Args:
        contents: The WAV-encoded audio (`bytes`), usually from a file.
        desired_channels: Number of sample channels wanted (-1: the file's).
        desired_samples: Length of audio requested (-1: the file's).
        name: A name for the operation (unused).

    Returns:
        A tuple `(audio, sample_rate)`: `audio` a float32 tensor of shape
        `(samples, channels)`, `sample_rate` an int32 scalar tensor.
    """
    data = _as_bytes(contents, "decode_wav")
    try:
        with wave.open(io.BytesIO(data), "rb") as reader:
            channels = reader.getnchannels()
            width = reader.getsampwidth()
            rate = reader.getframerate()
            frames = reader.readframes(reader.getnframes())
    except (wave.Error, EOFError, ValueError) as e:
        raise InvalidArgumentError(
            None, None, f"decode_wav: the contents are not a PCM WAV file ({e}).") from None
    if width != 2:
        raise InvalidArgumentError(
            None, None,
            f"decode_wav: Can only read 16-bit WAV files, but received {8 * width}; "
            "convert the file to 16-bit PCM first.")
    samples = np.frombuffer(frames, dtype="<i2")
    samples = samples[:len(samples) - len(samples) % channels].reshape(-1, channels)
    audio = samples.astype("float32") / np.float32(32768.0)
    if desired_channels is not None and desired_channels > 0 and desired_channels != channels:
        picks = np.minimum(np.arange(desired_channels), channels - 1)
        audio = audio[:, picks]
    if desired_samples is not None and desired_samples >= 0 and desired_samples != len(audio):
        if desired_samples < len(audio):
            audio = audio[:desired_samples]
        else:
            pad = np.zeros((desired_samples - len(audio), audio.shape[1]), dtype="float32")
            audio = np.concatenate([audio, pad])
    return (torch.from_numpy(np.ascontiguousarray(audio)),
            torch.tensor(rate, dtype=torch.int32))


def encode_wav(audio: Any, sample_rate: Any, name: str | None = None) -> bytes:
    """Encode audio data using the WAV file format.

    This operation will generate a string suitable to be saved out to create a .wav audio
    file. It will be encoded in the 16-bit PCM format. It takes in float values in the range
    -1.0f to 1.0f, and any outside that value will be clamped to that range.

    Args:
        audio: float32 tensor of shape `(length, channels)`.
        sample_rate: Scalar containing the sample frequency.
        name: A name for the operation (unused).

    Returns:
        The WAV file's `bytes` (TF's scalar string tensor).
    """
    if isinstance(audio, torch.Tensor):
        audio = audio.detach().cpu().numpy()
    values = np.asarray(audio, dtype="float32")
    if values.ndim != 2:
        raise InvalidArgumentError(
            None, None, f"encode_wav: audio must be 2-dimensional (length, channels); "
            f"received shape {tuple(values.shape)}.")
    scaled = values.astype("float64") * 32768.0
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
    ints = np.clip(np.nan_to_num(rounded), -32768, 32767).astype("<i2")
    rate = int(sample_rate.item() if hasattr(sample_rate, "item") else sample_rate)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(values.shape[1])
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(np.ascontiguousarray(ints).tobytes())
    return buffer.getvalue()
