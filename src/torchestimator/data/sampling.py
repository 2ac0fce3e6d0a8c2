"""Random and directed choice among datasets: `Dataset.random`, `sample_from_datasets`,
`choose_from_datasets` and `rejection_resample`.

`choose_from_datasets` takes each element from the input named by the next
element of `choice_dataset` (TF's directed interleave). `sample_from_datasets`
draws those indices at random from `weights`; with `stop_on_empty_dataset=False`
an exhausted input is skipped (the draws are renormalized over the others),
otherwise the first exhausted input ends the pass. Random numbers come from
numpy generators seeded per pass (`seed` with `rerandomize_each_iteration`: the
same draws every pass unless rerandomized; TF's Philox stream is not reproduced).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec
from torchestimator.data.constants import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from torchestimator.data.dataset import Dataset, UnaryDataset
from torchestimator.data.seeding import PassCounter
from torchestimator.data.shuffling import draw_seed
from torchestimator.data.streams import ElementStream, iter_elements
from torchestimator.data.structure import (
    flat_specs,
    make_packer,
    relaxed_spec,
    same_structure,
    with_flat_specs,
)
from torchestimator.errors import InvalidArgumentError

_DRAWS = 1024  # random indices drawn at once


class _PassRandom:
    """Per-pass numpy generators: `seed` (None: drawn once from torch's generator) and,
    when rerandomizing, the pass number."""

    def __init__(self, seed: int | None, rerandomize: bool):
        self._seed = draw_seed() if seed is None else seed
        self._rerandomize = rerandomize
        self._passes = PassCounter()

    def generator(self) -> np.random.Generator:
        epoch = self._passes.next()
        return np.random.default_rng([self._seed, epoch if self._rerandomize else 0])

    def _pass_state(self) -> list[int]:
        """[seed, number of the next pass]: what replays a pass (an iterator's `save()`)."""
        return [self._seed, self._passes.value]

    def _set_pass_state(self, state: list[int]) -> None:
        self._seed, self._passes.value = state[0], state[1]


class RandomDataset(Dataset):
    """An infinite dataset of pseudorandom int64 scalars in [0, 2**32) (`Dataset.random`)."""

    def __init__(self, seed: int | None = None, rerandomize_each_iteration: bool | None = None):
        super().__init__()
        self._random = _PassRandom(seed, bool(rerandomize_each_iteration))

    def _open(self):
        return ElementStream(self._values(self._random.generator()))

    @staticmethod
    def _values(rng: np.random.Generator) -> Iterator[list]:
        while True:
            for v in torch.from_numpy(rng.integers(0, 2**32, _DRAWS, dtype=np.int64)):
                yield [v]

    def _compute_spec(self):
        return TensorSpec((), torch.int64)

    def _compute_cardinality(self) -> int:
        return INFINITE_CARDINALITY


def common_spec(datasets: list[Dataset], what: str) -> Any:
    """The element spec of several datasets' elements mixed (shapes relaxed); error if their
    structures or dtypes differ."""
    first = datasets[0].element_spec
    specs = flat_specs(first)
    for i, d in enumerate(datasets[1:], start=1):
        other = d.element_spec
        others = flat_specs(other)
        if not same_structure(first, other) or [s.dtype for s in specs] != [
                s.dtype for s in others]:
            raise TypeError(
                f"Invalid `datasets`. `datasets` must have compatible element specs. "
                f"datasets[0].element_spec={first} and datasets[{i}].element_spec={other} "
                f"are not compatible ({what})."
            )
        specs = [relaxed_spec(a, b) for a, b in zip(specs, others)]
    return with_flat_specs(first, specs)


def check_datasets(datasets: Any) -> list[Dataset]:
    """`datasets` as a non-empty list of Datasets (TF's messages)."""
    if isinstance(datasets, Dataset) or not isinstance(datasets, (list, tuple)):
        raise TypeError(f"Invalid `datasets`. `datasets` must be a list of datasets; "
                        f"received {datasets!r}")
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    bad = [d for d in datasets if not isinstance(d, Dataset)]
    if bad:
        raise TypeError(f"Invalid `datasets`. Every entry must be a tf.data.Dataset; received "
                        f"{type(bad[0]).__name__}")
    return list(datasets)


class _DirectedInterleave(Dataset):
    """Elements of `datasets` in the order of a stream of input indices."""

    def __init__(self, datasets: list[Dataset], stop_on_empty_dataset: bool,
                 extra_inputs: tuple[Dataset, ...] = ()):
        super().__init__(tuple(datasets) + extra_inputs)
        self._datasets = datasets
        self._stop = stop_on_empty_dataset
        self._spec = common_spec(datasets, type(self).__name__)  # checked now, as TF does

    def _indices(self) -> Iterator[int]:
        """The input index of each element to produce (an iterator per pass)."""
        raise NotImplementedError

    def _open(self):
        return ElementStream(self._interleaved())

    def _interleaved(self) -> Iterator[list]:
        streams: list = [None] * len(self._datasets)
        done = [False] * len(self._datasets)
        left = len(self._datasets)
        indices = self._indices()
        for i in indices:
            if not 0 <= i < len(self._datasets):
                raise InvalidArgumentError(
                    None, None, f"Selector index out of range: {i} >= {len(self._datasets)}")
            if done[i]:
                continue
            if streams[i] is None:
                streams[i] = iter_elements(self._datasets[i]._open())
            element = next(streams[i], None)
            if element is None:
                if self._stop:
                    return
                done[i] = True
                left -= 1
                if left == 0 or self._all_skipped(done):
                    return
                continue
            yield element

    def _all_skipped(self, done: list[bool]) -> bool:
        return False

    def _compute_spec(self):
        return common_spec(self._datasets, type(self).__name__)


class ChooseDataset(_DirectedInterleave):
    """Elements chosen by index from `datasets` by `choice_dataset` (`choose_from_datasets`)."""

    def __init__(self, datasets: list[Dataset], choice_dataset: Dataset,
                 stop_on_empty_dataset: bool):
        if not isinstance(choice_dataset, Dataset):
            raise TypeError(f"Invalid `choice_dataset`. `choice_dataset` must be a "
                            f"tf.data.Dataset; received {type(choice_dataset).__name__}")
        spec = choice_dataset.element_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype == torch.int64 and spec.shape == ()):
            raise TypeError(
                "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar "
                f"`tf.int64` tensors but are {spec}."
            )
        super().__init__(datasets, stop_on_empty_dataset, (choice_dataset,))
        self._choice = choice_dataset

    def _indices(self) -> Iterator[int]:
        for (c,) in iter_elements(self._choice._open()):
            yield int(c)

    def _compute_cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


class SampleDataset(_DirectedInterleave):
    """Elements drawn at random from `datasets` with `weights` (`sample_from_datasets`)."""

    def __init__(self, datasets: list[Dataset], weights: Any, seed: int | None,
                 stop_on_empty_dataset: bool, rerandomize_each_iteration: bool | None):
        extra: tuple = ()
        if isinstance(weights, Dataset):
            extra = (weights,)
            self._weights: Any = weights
        else:
            self._weights = _check_weights(weights, len(datasets))
        super().__init__(datasets, stop_on_empty_dataset, extra)
        self._random = _PassRandom(seed, bool(rerandomize_each_iteration))
        self._skipped: set[int] = set()

    def _indices(self) -> Iterator[int]:
        rng = self._random.generator()
        n = len(self._datasets)
        if isinstance(self._weights, Dataset):
            pack = make_packer(self._weights.element_spec)
            for flat in iter_elements(self._weights._open()):
                w = _check_weights(pack(flat), n)
                yield int(rng.choice(n, p=w))
            return
        p = self._weights
        while True:
            yield from rng.choice(n, size=_DRAWS, p=p).tolist()

    def _all_skipped(self, done: list[bool]) -> bool:
        # the inputs left all have weight 0: nothing more can be drawn
        if isinstance(self._weights, Dataset):
            return False
        return all(d or w == 0 for d, w in zip(done, self._weights))

    def _compute_cardinality(self) -> int:
        # TF 2.15: infinite when any input is (whatever stop_on_empty_dataset says)
        cards = [d._compute_cardinality() for d in self._datasets]
        return INFINITE_CARDINALITY if INFINITE_CARDINALITY in cards else UNKNOWN_CARDINALITY


def _check_weights(weights: Any, n: int) -> np.ndarray:
    """Normalized sampling probabilities from `weights` (None: uniform)."""
    if weights is None:
        return np.full(n, 1.0 / n)
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().cpu().numpy()
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 1 or len(w) != n:
        raise ValueError(
            "Invalid `weights`. `weights` should have the same length as `datasets` but got "
            f"`len(weights)={len(w) if w.ndim == 1 else w.shape}` vs. `len(datasets)={n}`."
        )
    if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError(f"Invalid `weights`. `weights` must be non-negative and not all zero; "
                         f"received {w.tolist()}")
    return w / w.sum()


class RejectionResampleDataset(UnaryDataset):
    """Resamples elements to a target class distribution (`Dataset.rejection_resample`).

    Yields `(class, element)` pairs. An element of class c is kept with probability
    `target[c] / initial[c]`, scaled so that the largest ratio is 1 (plain rejection
    sampling: the output follows `target_dist`; TF also mixes in unfiltered elements to
    reject fewer, for the same output distribution). Without `initial_dist` the class
    frequencies seen so far estimate it.
    """

    def __init__(self, input_dataset: Dataset, class_func: Any, target_dist: Any,
                 initial_dist: Any, seed: int | None):
        super().__init__((input_dataset,))
        self._class_func = class_func
        self._target = _distribution(target_dist, "target_dist")
        self._initial = None if initial_dist is None else _distribution(initial_dist,
                                                                         "initial_dist")
        if self._initial is not None and len(self._initial) != len(self._target):
            raise ValueError(
                f"`initial_dist` has {len(self._initial)} classes but `target_dist` has "
                f"{len(self._target)}; they must describe the same classes"
            )
        self._random = _PassRandom(seed, True)

    def _open(self):
        return ElementStream(self._resampled(self._random.generator()))

    def _resampled(self, rng: np.random.Generator) -> Iterator[list]:
        from torchestimator.data.mapping import (  # lazy: heavy (torchestimator.data.mapping, 77 ms)
            call_on,
        )

        spec = self._input.element_spec
        pack = make_packer(spec)
        k = len(self._target)
        counts = np.zeros(k)
        for flat in iter_elements(self._input._open()):
            c = _class_of(call_on(self._class_func, pack(flat)), k)
            if self._initial is None:
                counts[c] += 1
                initial = counts / counts.sum()
            else:
                initial = self._initial
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(initial > 0, self._target / initial, 0.0)
            top = ratio.max()
            accept = ratio[c] / top if top > 0 else 0.0
            if rng.random() < accept:
                yield [torch.tensor(c, dtype=torch.int64), *flat]

    def _compute_spec(self):
        return (TensorSpec((), torch.int64), self._input.element_spec)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        return INFINITE_CARDINALITY if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY


def _distribution(value: Any, name: str) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    d = np.asarray(value, dtype=np.float64)
    if d.ndim != 1 or not len(d) or (d < 0).any() or d.sum() <= 0:
        raise ValueError(f"`{name}` must be a 1-D list of non-negative class probabilities "
                         f"summing to more than 0; received {value!r}")
    return d / d.sum()


def _class_of(value: Any, k: int) -> int:
    if isinstance(value, (torch.Tensor, np.ndarray)):
        if value.shape != () or getattr(value.dtype, "is_floating_point", False) \
                or (isinstance(value, np.ndarray) and value.dtype.kind not in "iu"):
            raise TypeError(f"`class_func` must return a scalar integer class; received {value!r}")
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"`class_func` must return a scalar integer class; received {value!r}")
    if not 0 <= int(value) < k:
        raise InvalidArgumentError(
            None, None, f"`class_func` returned class {int(value)}, outside [0, {k}) of "
            "`target_dist`")
    return int(value)
