"""Hand-written PyTorch loops doing each workload's work (the baseline every table compares to)."""

from __future__ import annotations

import time

import numpy as np
import torch
import torch.nn.functional as F

from bench.peers import _data


def mlp_model() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))


def iris_model() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(4, 10), torch.nn.ReLU(), torch.nn.Linear(10, 10),
                               torch.nn.ReLU(), torch.nn.Linear(10, 3))


class WideDeep(torch.nn.Module):
    """Wide: one EmbeddingBag (sum) over the 5 id spaces (bucketized age, education, occupation,
    hashed city, education x occupation); deep: 2 numeric + one-hot education/occupation +
    an 8-d city embedding -> 64 -> 32 -> 1. The logit is their sum."""

    def __init__(self) -> None:
        super().__init__()
        self.wide = torch.nn.EmbeddingBag(sum(_data.WIDE_SIZES.values()), 1, mode="sum")
        self.wide_bias = torch.nn.Parameter(torch.zeros(1))
        self.city = torch.nn.Embedding(_data.CITY_BUCKETS, 8)
        width = 2 + len(_data.EDUCATION) + len(_data.OCCUPATION) + 8
        self.deep = torch.nn.Sequential(torch.nn.Linear(width, 64), torch.nn.ReLU(), torch.nn.Linear(64, 32),
                                        torch.nn.ReLU(), torch.nn.Linear(32, 1))

    def forward(self, wide_ids, numeric, edu, occ, city):
        wide = self.wide(wide_ids).squeeze(-1) + self.wide_bias
        deep_in = torch.cat([numeric, F.one_hot(edu, len(_data.EDUCATION)).float(),
                             F.one_hot(occ, len(_data.OCCUPATION)).float(), self.city(city)], 1)
        return wide + self.deep(deep_in).squeeze(-1)


def wide_deep_tensors(rows: int) -> tuple[torch.Tensor, ...]:
    """The encoded table as tensors: (wide ids, numeric, edu, occ, city, label float)."""
    features, labels = _data.wide_deep(rows)
    enc = _data.encode_wide_deep(features)
    return (torch.from_numpy(_data.wide_ids(enc)), torch.from_numpy(enc["numeric"]),
            torch.from_numpy(enc["edu"]), torch.from_numpy(enc["occ"]), torch.from_numpy(enc["city"]),
            torch.from_numpy(labels.astype(np.float32)))


def mlp(rows: int) -> dict:
    x, y = _data.mlp(rows)
    model = mlp_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    start = time.perf_counter()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    perm = torch.randperm(rows)
    loss_sum, correct = torch.zeros(()), torch.zeros(())
    for i in range(0, rows, 32):
        idx = perm[i:i + 32]
        xb, yb = xt[idx], yt[idx]
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        with torch.no_grad():
            loss_sum += loss.detach() * len(xb)
            correct += (logits.argmax(-1) == yb.argmax(-1)).sum()
    float(loss_sum), float(correct)
    seconds = time.perf_counter() - start
    return {"value": rows / seconds, "unit": "examples/s", "seconds": seconds}


def iris(steps: int) -> dict:
    x, y = _data.iris(steps * 32)
    model = iris_model()
    opt = torch.optim.Adagrad(model.parameters(), lr=0.001, initial_accumulator_value=0.1)
    start = time.perf_counter()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    perm = torch.randperm(len(xt))
    for i in range(0, len(xt), 32):
        idx = perm[i:i + 32]
        loss = F.cross_entropy(model(xt[idx]), yt[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    float(loss.detach())
    seconds = time.perf_counter() - start
    return {"value": steps * 32 / seconds, "unit": "examples/s", "seconds": seconds}


def linreg(steps: int) -> dict:
    x, y = (torch.from_numpy(a) for a in _data.linreg())
    model = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    start = time.perf_counter()
    for _ in range(steps):
        perm = torch.randperm(100)
        loss = F.mse_loss(model(x[perm]), y[perm])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        float(loss.detach())
    seconds = time.perf_counter() - start
    return {"value": seconds / steps * 1e6, "unit": "us/step", "seconds": seconds}


def wide_deep(rows: int) -> dict:
    start = time.perf_counter()  # the encoding counts: the Estimator parses the strings in its loop
    tensors = wide_deep_tensors(rows)
    model = WideDeep()
    opt = torch.optim.Adagrad(model.parameters(), lr=0.05, initial_accumulator_value=0.1)
    perm = torch.randperm(rows)
    for i in range(0, rows, 256):
        idx = perm[i:i + 256]
        wide_ids, numeric, edu, occ, city, label = (t[idx] for t in tensors)
        loss = F.binary_cross_entropy_with_logits(model(wide_ids, numeric, edu, occ, city), label)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    float(loss.detach())
    seconds = time.perf_counter() - start
    return {"value": rows / seconds, "unit": "examples/s", "seconds": seconds}


JOBS = {"mlp/loop": mlp, "iris/loop": iris, "linreg/loop": linreg, "wide_deep/loop": wide_deep}
