"""The whole test suite on a second device without a GPU: `TORCHESTIMATOR_DEVICE=lazy:0`.

    TORCHESTIMATOR_DEVICE=lazy:0 python3 -m pytest -m "not slow" tests/estimator

runs the tests as `tools/gpu_check.sh` runs them on CUDA, with torch's lazy TorchScript backend
as the device (`device_leaks.py` says what it catches and what it cannot): every weight, slot,
metric state, table and batch the library places goes to `lazy:0`, and a tensor it leaves on
the CPU fails the operation that meets it, as on a GPU. `tests/conftest.py` calls `install`
when the variable names a lazy device. It is slow (the backend compiles each new graph; about
20x the CPU run), so it is a check to run by hand on the folders a change touches, not part of
the default run, whose device-leak tests (`tests/test_device_placement.py`) run a few paths
on the same device.

What fails under it and not on a GPU (seen on the folders run so far): operations the lazy
backend lacks (view operations with no lazy kernel, such as packing a padded sequence for a
masked RNN); its in-place aliasing (batch normalization's running statistics, an `assign`
followed by an in-place add); its TorchScript interpreter's dtype rules (`expected scalar type
Float but found Double` where eager promotion takes a 0-dim double, and `mat1 and mat2 must have
the same dtype, but got Double and Float` when a freshly built layer's weights and its first call
run as one graph -- after an adapted `Normalization`, for one); its random numbers (a random
tensor's graph runs again each time it is read, so two reads differ, and `torch.Generator`
refuses the device: seeded ops and seeded dropout fail; a GAN drawing its latent vectors with
an unseeded `tf.random.normal` gets NaN gradients); torch's fused RNN kernels (the harness
runs recurrent layers by their step loop instead); moving weights back onto
it in place after torch.export has traced them (torch.export keeps weak references, and lazy
tensors can only be swapped, which those refuse; CUDA uses `set_data`); `torch.export` of a
model on it, and pickling a model on it (its storages have no data pointer); sparse COO
tensors, dlpack and forward-mode AD (`make_dual` ends the process: deselect `forward_accumulator`
and `jvp`); gloo's all-reduce of its tensors (the replicas' losses differ); the host copies a
range check reads (`_engine/host_twins.py` keeps none on lazy tensors: asking the storage of one
made under a Python dispatch mode ends the process); a crash in
`test_torch_module_interop.py`; and tests that mix the library's
tensors with CPU tensors of their own instead of copying to the host as a user would (those
are fixed as found: they fail on a GPU too). Subprocesses of a test inherit the variable and
this harness (`lazy_site/sitecustomize.py`, on their `PYTHONPATH`).
"""

from __future__ import annotations

import os

import torch

from _harness import device_leaks

_INSTALLED: list[bool] = []


def install() -> torch.device:
    """Readies the lazy device for a whole run: initialises the backend, routes `unbind`, `split`
    and `chunk` around its bug (`device_leaks`), and ends the lazy graph after every step of the library's loop
    (`torch._lazy.mark_step`, as torch_xla's loops do; without it each step's graph holds every
    earlier one and a run slows quadratically), and runs recurrent layers by their step loop
    (torch's fused LSTM/GRU/RNN kernels have no lazy lowering; the GPU check runs cuDNN's).
    Returns the device."""
    device = device_leaks.leak_device()
    if _INSTALLED:
        return device
    _INSTALLED.append(True)
    # subprocesses of the run get this harness too (lazy_site/sitecustomize.py)
    site = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lazy_site")
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if site not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([site] + [p for p in paths if p])
    import torch._lazy  # noqa: PLC0415 - only for a lazy run

    from torchestimator._engine import loop

    device_leaks.route_around_lazy_bugs()
    steps = loop._loop

    def marked_loop(step_fn, *args, **kwargs):  # noqa: ANN001, ANN202 - the loop's own signature
        def step(batch):  # noqa: ANN001, ANN202
            outputs = step_fn(batch)
            torch._lazy.mark_step()
            return outputs

        return steps(step, *args, **kwargs)

    loop._loop = marked_loop

    from torchestimator.keras.layers.rnn import gru, lstm, simple_rnn

    for cell in (lstm.LSTMCell, gru.GRUCell, simple_rnn.SimpleRNNCell):
        # torch's fused RNN kernels have no lazy lowering: the layers run their step loop
        cell._fused_mode = lambda self, training: None
    return device
