"""Connectionist temporal classification (`tf.nn.ctc_loss`, `ctc_greedy_decoder`,
`ctc_beam_search_decoder`, `ctc_unique_labels`, `collapse_repeated`): the loss is torch's
`ctc_loss`; the decoders are TF's algorithms (best path; prefix beam search on the softmax
of the logits)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from torchestimator._ops.convert import convert_to_tensor
from torchestimator._sparse_tensor import SparseTensor


def collapse(seq: list[int], blank: int | None, merge_repeated: bool = True) -> list[int]:
    """`seq` without `blank` labels, consecutive repeats merged when `merge_repeated` (the
    decoding rule of CTC's best path)."""
    out: list[int] = []
    prev = None
    for c in seq:
        if c != blank and (not merge_repeated or c != prev):
            out.append(c)
        prev = c
    return out


def beam_search(logp: np.ndarray, beam_width: int, top_paths: int, blank: int) -> list[tuple[list[int], float]]:
    """CTC prefix beam search (as TF's CTCBeamSearchDecoder): `logp` (time, classes) log
    probabilities; returns `top_paths` `(labels, log probability)`, best first."""
    neg_inf = -np.inf

    def lse(*xs: float) -> float:
        m = max(xs)
        if m == neg_inf:
            return neg_inf
        return m + math.log(sum(math.exp(x - m) for x in xs))

    beams: dict[tuple, list[float]] = {(): [0.0, neg_inf]}  # prefix -> [p_blank, p_label]
    for t in range(logp.shape[0]):
        nxt: dict[tuple, list[float]] = {}
        for prefix, (pb, pnb) in beams.items():
            e = nxt.setdefault(prefix, [neg_inf, neg_inf])
            e[0] = lse(e[0], logp[t, blank] + lse(pb, pnb))
            if prefix:
                e[1] = lse(e[1], logp[t, prefix[-1]] + pnb)
            for c in range(logp.shape[1]):
                if c == blank:
                    continue
                child = nxt.setdefault(prefix + (c,), [neg_inf, neg_inf])
                if prefix and prefix[-1] == c:
                    child[1] = lse(child[1], logp[t, c] + pb)
                else:
                    child[1] = lse(child[1], logp[t, c] + lse(pb, pnb))
        ranked = sorted(nxt.items(), key=lambda kv: lse(*kv[1]), reverse=True)
        beams = dict(ranked[:beam_width])
    ranked = sorted(beams.items(), key=lambda kv: lse(*kv[1]), reverse=True)[:top_paths]
    return [(list(p), lse(*v)) for p, v in ranked]


def _dense_labels(labels: Any, label_length: Any) -> tuple[torch.Tensor, torch.Tensor]:
    if isinstance(labels, SparseTensor):
        batch = int(labels.dense_shape[0])
        rows = labels.indices[:, 0]
        lengths = torch.bincount(rows, minlength=batch)
        dense = torch.zeros(batch, int(lengths.max()) if batch else 0, dtype=torch.int64)
        dense[rows, labels.indices[:, 1]] = labels.values.to(torch.int64)
        return dense, lengths
    if label_length is None:
        raise ValueError("ctc_loss: label_length is required for dense labels.")
    return convert_to_tensor(labels).to(torch.int64), convert_to_tensor(label_length).reshape(-1).to(torch.int64)


def ctc_loss(labels: Any, logits: Any, label_length: Any, logit_length: Any, logits_time_major: bool = True,
             unique: Any = None, blank_index: int | None = None, name: str | None = None) -> torch.Tensor:
    """The negative log probability of each label sequence under the logits ([batch]).

    `labels` are int [batch, max_label_length] (with `label_length`) or a `SparseTensor`;
    `logits` [time, batch, classes] (or [batch, time, classes] with
    `logits_time_major=False`), unnormalized. `blank_index` is the blank class (default 0;
    negative counts from the end). An impossible alignment gives inf, as TF."""
    logits = convert_to_tensor(logits)
    if logits.ndim != 3:
        raise ValueError(f"ctc_loss: logits must be [time, batch, classes]; received shape {tuple(logits.shape)}.")
    if not logits_time_major:
        logits = logits.transpose(0, 1)
    num_classes = logits.shape[-1]
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += num_classes
    if not 0 <= blank < num_classes:
        raise ValueError(f"ctc_loss: blank_index {blank_index} is outside the {num_classes} classes.")
    targets, lengths = _dense_labels(labels, label_length)
    logit_length = convert_to_tensor(logit_length).reshape(-1).to(torch.int64)
    if lengths.shape[0] != logits.shape[1] or logit_length.shape[0] != logits.shape[1]:
        raise ValueError(f"ctc_loss: label_length ({lengths.shape[0]}) and logit_length ({logit_length.shape[0]}) "
                         f"must hold one length per batch element ({logits.shape[1]}).")
    work = logits if logits.dtype == torch.float64 else logits.to(torch.float32)
    if blank != 0:  # TF moves the blank class to 0 and shifts the labels below it up by one
        work = torch.cat([work[..., blank:blank + 1], work[..., :blank], work[..., blank + 1:]], dim=-1)
        targets = torch.where(targets < blank, targets + 1, targets)
    log_probs = torch.log_softmax(work, dim=-1)
    loss = F.ctc_loss(log_probs, targets.to(log_probs.device), logit_length.to(log_probs.device),
                      lengths.to(log_probs.device), blank=0, reduction="none", zero_infinity=False)
    return loss.to(logits.dtype)


def _sparse_paths(paths: list[list[int]]) -> SparseTensor:
    indices = [[b, i] for b, path in enumerate(paths) for i in range(len(path))]
    values = [v for path in paths for v in path]
    width = max((len(p) for p in paths), default=0)
    return SparseTensor(torch.tensor(indices, dtype=torch.int64).reshape(-1, 2),
                        torch.tensor(values, dtype=torch.int64), [len(paths), width])


def ctc_greedy_decoder(inputs: Any, sequence_length: Any, merge_repeated: bool = True,
                       blank_index: int | None = None) -> tuple[list[SparseTensor], torch.Tensor]:
    """Best-path decoding of logits `inputs` [time, batch, classes]: the most likely class at
    each step, repeats merged (with `merge_repeated`), blanks removed (`blank_index`, default
    the last class). Returns `([decoded SparseTensor], neg_sum_logits [batch, 1])`."""
    x = convert_to_tensor(inputs)
    num_classes = x.shape[-1]
    blank = num_classes - 1 if blank_index is None else int(blank_index) % num_classes
    lengths = convert_to_tensor(sequence_length).reshape(-1).tolist()
    best = x.detach().cpu().max(dim=-1)
    paths, scores = [], []
    for b in range(x.shape[1]):
        steps = int(lengths[b])
        paths.append(collapse(best.indices[:steps, b].tolist(), blank, merge_repeated))
        scores.append([-float(best.values[:steps, b].to(torch.float64).sum())])
    return [_sparse_paths(paths)], torch.tensor(scores, dtype=x.dtype)


def ctc_beam_search_decoder(inputs: Any, sequence_length: Any, beam_width: int = 100,
                            top_paths: int = 1) -> tuple[list[SparseTensor], torch.Tensor]:
    """Prefix beam search over logits `inputs` [time, batch, classes] (the last class is the
    blank). Returns `(decoded, log_probabilities)`: `top_paths` SparseTensors and
    [batch, top_paths] log probabilities of the paths."""
    x = convert_to_tensor(inputs)
    if top_paths > beam_width:
        raise ValueError(f"ctc_beam_search_decoder: top_paths ({top_paths}) must be <= beam_width ({beam_width}).")
    blank = x.shape[-1] - 1
    lengths = convert_to_tensor(sequence_length).reshape(-1).tolist()
    logp = torch.log_softmax(x.detach().cpu().to(torch.float64), dim=-1).numpy()
    decoded: list[list[list[int]]] = [[] for _ in range(top_paths)]
    log_probs = np.full((x.shape[1], top_paths), -np.inf)
    for b in range(x.shape[1]):
        found = beam_search(logp[: int(lengths[b]), b], beam_width, top_paths, blank)
        for k in range(top_paths):
            labels, lp = found[k] if k < len(found) else ([], -np.inf)
            decoded[k].append(labels)
            log_probs[b, k] = lp
    return [_sparse_paths(paths) for paths in decoded], torch.tensor(log_probs, dtype=x.dtype)


def ctc_unique_labels(labels: Any, name: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """For each row of `labels` [batch, max_label_length], its unique labels in order of first
    appearance (padded with 0) and every label's index into them."""
    labels = convert_to_tensor(labels)
    unique = torch.zeros_like(labels)
    index = torch.zeros_like(labels)
    for b, row in enumerate(labels.tolist()):
        seen: dict[int, int] = {}
        for i, v in enumerate(row):
            index[b, i] = seen.setdefault(v, len(seen))
        unique[b, : len(seen)] = torch.tensor(list(seen), dtype=labels.dtype)
    return unique, index


def collapse_repeated(labels: Any, seq_length: Any, name: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Merges consecutive repeated labels within each row's first `seq_length` entries: the
    collapsed labels [batch, max new length] (padded with 0) and the new lengths."""
    labels = convert_to_tensor(labels)
    lengths = convert_to_tensor(seq_length).reshape(-1).tolist()
    rows = [collapse(row[: int(n)], None) for row, n in zip(labels.tolist(), lengths)]
    width = max((len(r) for r in rows), default=0)
    out = torch.zeros(len(rows), width, dtype=labels.dtype)
    for b, row in enumerate(rows):
        out[b, : len(row)] = torch.tensor(row, dtype=labels.dtype)
    return out, torch.tensor([len(r) for r in rows], dtype=convert_to_tensor(seq_length).dtype)
