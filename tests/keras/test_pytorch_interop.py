"""A Keras model of ours trains the same in Keras `fit`, a plain PyTorch loop and PyTorch
Lightning (issue 29), and a Lightning checkpoint loads in a new process.

The model and the three training functions are the code blocks of docs/pytorch-interop.md
marked `<!-- tested: NAME -->`: this test reads them from the page and runs them, so the page
and the test stay in step.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

PAGE = Path(__file__).resolve().parents[2] / "docs" / "pytorch-interop.md"
_BLOCK = re.compile(r"<!-- tested: ([\w-]+) -->\s*```python\n(.*?)```", re.S)
ATOL = 1e-5


@pytest.fixture(autouse=True)
def _fit_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """`fit` trains on the CPU too, where the loops here do (same kernels, same dropout RNG)."""
    monkeypatch.setenv("TORCHESTIMATOR_DEVICE", "cpu")


def page_blocks() -> dict[str, str]:
    """The tested code blocks of the docs page, by name, in page order."""
    blocks = dict(_BLOCK.findall(PAGE.read_text(encoding="utf-8")))
    assert {"model", "fit", "plain-loop", "lightning", "lightning-load"} <= set(blocks), blocks
    return blocks


def run_blocks(*names: str) -> dict[str, Any]:
    """Runs the named blocks, in order, in one fresh namespace and returns it."""
    blocks = page_blocks()
    namespace: dict[str, Any] = {"__name__": "pytorch_interop_page"}
    for name in names:
        exec(compile(blocks[name], f"{PAGE.name}:{name}", "exec"), namespace)
    return namespace


def _data(rows: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(rows, 4, generator=generator)
    y = x.sum(dim=1, keepdim=True) + 0.1 * torch.randn(rows, 1, generator=generator)
    return x, y


def _same_start(page: dict[str, Any], reference: torch.nn.Module, **kwargs: Any) -> Any:
    """A new model (other Keras layer names) with `reference`'s weights."""
    model = page["build_model"](**kwargs)
    model.load_state_dict(reference.state_dict(), strict=True)
    return model


def _assert_same_weights(got: torch.nn.Module, want: torch.nn.Module) -> None:
    want_state = want.state_dict()
    got_state = got.state_dict()
    assert list(got_state) == list(want_state)
    for key, value in want_state.items():
        torch.testing.assert_close(got_state[key].cpu(), value.cpu(), atol=ATOL, rtol=1e-5,
                                   msg=key)


def _default_name_count(name: str) -> int:
    """How many layers of the kind were made before the one Keras named `name` (`dense_3`: 3)."""
    suffix = name.rpartition("_")[2]
    return int(suffix) if suffix.isdigit() else 0


def test_plain_torch_loop_matches_fit():
    page = run_blocks("model", "fit", "plain-loop")
    x, y = _data()
    reference = page["build_model"]()
    by_fit = page["train_with_fit"](_same_start(page, reference), x, y)
    by_loop = page["train_with_torch_loop"](_same_start(page, reference), x, y)
    assert by_loop.training is False
    _assert_same_weights(by_loop, by_fit)
    moving_mean = by_loop.state_dict()["1.moving_mean"]
    assert not torch.equal(moving_mean, torch.zeros_like(moving_mean))  # BN trained in train()
    torch.testing.assert_close(by_loop(x), torch.as_tensor(by_fit.predict(x, verbose=0)),
                               atol=ATOL, rtol=1e-5)


def test_plain_torch_loop_matches_fit_with_dropout_on_the_same_rng():
    page = run_blocks("model", "fit", "plain-loop")
    x, y = _data()
    reference = page["build_model"](dropout=0.5)
    torch.manual_seed(7)
    by_fit = page["train_with_fit"](_same_start(page, reference, dropout=0.5), x, y)
    torch.manual_seed(7)
    by_loop = page["train_with_torch_loop"](_same_start(page, reference, dropout=0.5), x, y)
    _assert_same_weights(by_loop, by_fit)


def test_lightning_matches_fit_and_its_checkpoint_loads_in_a_new_process(tmp_path):
    pytest.importorskip("lightning")
    page = run_blocks("model", "fit", "lightning", "lightning-load")
    x, y = _data()
    module = page["KerasRegressor"]()
    by_fit = page["train_with_fit"](_same_start(page, module.model), x, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        checkpoint = page["train_with_lightning"](module, x, y, str(tmp_path))
    assert not [w for w in caught if "eval mode" in str(w.message)]  # the page's on_fit_start
    trained = module.model.eval()
    _assert_same_weights(trained, by_fit)
    expected = trained(x).detach().numpy()

    np.save(tmp_path / "x.npy", x.numpy())
    script = tmp_path / "load_checkpoint.py"
    script.write_text(textwrap.dedent(f"""
        import sys, warnings
        import numpy as np, torch
        warnings.simplefilter("ignore")
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import torchestimator as tf
        from test_pytorch_interop import run_blocks
        # other Keras default names than in the training process
        [tf.keras.layers.Dense(1) for _ in range({_default_name_count(trained.layers[0].name) + 1})]
        page = run_blocks("model", "lightning", "lightning-load")
        model = page["load_trained"]({checkpoint!r})
        assert model.layers[0].name != {trained.layers[0].name!r}
        x = torch.from_numpy(np.load({str(tmp_path / "x.npy")!r}))
        np.save({str(tmp_path / "loaded.npy")!r}, model(x).detach().numpy())
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    np.testing.assert_allclose(np.load(tmp_path / "loaded.npy"), expected, atol=ATOL, rtol=1e-5)
