"""Lightning 2.x: the same models as `torch_loop` in a LightningModule, `Trainer.fit` on CPU with
checkpointing, logging, the progress bar and the model summary off (Lightning's fastest setup)."""

from __future__ import annotations

import logging
import time

import lightning as L
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from bench.peers import _data, torch_loop

for _name in ("lightning", "lightning.pytorch", "lightning.fabric"):
    logging.getLogger(_name).setLevel(logging.ERROR)


class _Module(L.LightningModule):
    def __init__(self, model, loss_fn, make_opt):
        super().__init__()
        self.model, self.loss_fn, self.make_opt = model, loss_fn, make_opt

    def training_step(self, batch, batch_idx):
        *inputs, label = batch
        return self.loss_fn(self.model(*inputs), label)

    def configure_optimizers(self):
        return self.make_opt(self.parameters())


def _trainer(epochs: int) -> L.Trainer:
    return L.Trainer(max_epochs=epochs, accelerator="cpu", devices=1, logger=False,
                     enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)


def _fit(model, loss_fn, make_opt, tensors, batch: int, epochs: int = 1, shuffle: bool = True) -> float:
    loader = DataLoader(TensorDataset(*tensors), batch_size=batch, shuffle=shuffle)
    module = _Module(model, loss_fn, make_opt)
    trainer = _trainer(epochs)
    start = time.perf_counter()
    trainer.fit(module, loader)
    return time.perf_counter() - start


def mlp(rows: int) -> dict:
    x, y = _data.mlp(rows)
    seconds = _fit(torch_loop.mlp_model(), F.cross_entropy, lambda p: torch.optim.SGD(p, lr=0.01),
                   (torch.from_numpy(x), torch.from_numpy(y)), 32)
    return {"value": rows / seconds, "unit": "examples/s", "seconds": seconds}


def iris(steps: int) -> dict:
    x, y = _data.iris(steps * 32)
    seconds = _fit(torch_loop.iris_model(), F.cross_entropy,
                   lambda p: torch.optim.Adagrad(p, lr=0.001, initial_accumulator_value=0.1),
                   (torch.from_numpy(x), torch.from_numpy(y)), 32)
    return {"value": steps * 32 / seconds, "unit": "examples/s", "seconds": seconds}


def linreg(steps: int) -> dict:
    x, y = _data.linreg()
    seconds = _fit(torch.nn.Linear(1, 1), F.mse_loss, lambda p: torch.optim.SGD(p, lr=0.01),
                   (torch.from_numpy(x), torch.from_numpy(y)), 100, epochs=steps)
    return {"value": seconds / steps * 1e6, "unit": "us/step", "seconds": seconds}


def wide_deep(rows: int) -> dict:
    start = time.perf_counter()
    tensors = torch_loop.wide_deep_tensors(rows)
    encode = time.perf_counter() - start
    seconds = encode + _fit(torch_loop.WideDeep(), F.binary_cross_entropy_with_logits,
                            lambda p: torch.optim.Adagrad(p, lr=0.05, initial_accumulator_value=0.1),
                            tensors, 256)
    return {"value": rows / seconds, "unit": "examples/s", "seconds": seconds}


JOBS = {"mlp/lightning": mlp, "iris/lightning": iris, "linreg/lightning": linreg,
        "wide_deep/lightning": wide_deep}
