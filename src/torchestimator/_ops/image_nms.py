"""tf.image's non-max suppression ops (TF's greedy NMS, its soft-NMS, padded and combined).

Boxes are `[y1, x1, y2, x2]` in any corner order; a candidate is suppressed by an already
selected box whose IoU with it is above `iou_threshold`; candidates need a score above
`score_threshold`. Selection runs on the host (it is sequential); the result is on the input's
device.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np
import torch

from torchestimator._ops.convert import convert_to_tensor
from torchestimator.errors import InvalidArgumentError

Tensor = torch.Tensor


def _tensor(value: Any, name: str, op: str) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=torch.float32)
    if not isinstance(t, Tensor) or not t.dtype.is_floating_point:
        raise TypeError(f"{op}: `{name}` must be a float tensor.")
    return t


def _scalar(value: Any, name: str, op: str, kind: type = float) -> Any:
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        value = value.item()
    return kind(value)


def _in_dtype(value: float, dtype: torch.dtype) -> float:
    """`value` rounded to `dtype` (TF compares thresholds in the boxes' and scores' dtype)."""
    return float(torch.tensor(value, dtype=torch.float64).to(dtype))


def _iou_matrix(boxes: Tensor) -> Tensor:
    """Pairwise IoU of `[..., n, 4]` boxes (TF's: 0 where either box has no area)."""
    y1, x1, y2, x2 = boxes.unbind(-1)
    ymin, ymax = torch.minimum(y1, y2), torch.maximum(y1, y2)
    xmin, xmax = torch.minimum(x1, x2), torch.maximum(x1, x2)
    area = (ymax - ymin) * (xmax - xmin)
    ih = (torch.minimum(ymax[..., :, None], ymax[..., None, :])
          - torch.maximum(ymin[..., :, None], ymin[..., None, :])).clamp(min=0)
    iw = (torch.minimum(xmax[..., :, None], xmax[..., None, :])
          - torch.maximum(xmin[..., :, None], xmin[..., None, :])).clamp(min=0)
    inter = ih * iw
    union = area[..., :, None] + area[..., None, :] - inter
    valid = (area[..., :, None] > 0) & (area[..., None, :] > 0)
    return torch.where(valid, inter / torch.where(valid, union, 1), 0)


def _greedy(similarity: np.ndarray, scores: np.ndarray, max_output_size: int, threshold: float,
            score_threshold: float, soft_nms_sigma: float = 0.0) -> tuple[list[int], list[float]]:
    """TF's NonMaxSuppressionV5 loop (hard NMS when `soft_nms_sigma` is 0)."""
    soft = soft_nms_sigma > 0
    scale = -0.5 / soft_nms_sigma if soft else 0.0
    heap = [(-float(s), i, float(s), 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(heap)  # highest score first, ties: lowest index first
    selected: list[int] = []
    selected_scores: list[float] = []
    while len(selected) < max_output_size and heap:
        _, index, score, begin = heapq.heappop(heap)
        original = score
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = float(similarity[index, selected[j]])
            weight = math.exp(scale * sim * sim) if (soft or sim <= threshold) else 0.0
            score *= weight
            if not soft and sim > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        begin = len(selected)
        if hard:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-score, index, score, begin))
    return selected, selected_scores


def _check_boxes(boxes: Tensor, scores: Tensor, op: str) -> None:
    if boxes.dim() != 2 or boxes.shape[-1] != 4:
        raise InvalidArgumentError(None, None, f"{op}: boxes must be [num_boxes, 4] (boxes must "
                                   f"have 4 columns), got shape {list(boxes.shape)}.")
    if scores.dim() != 1 or scores.shape[0] != boxes.shape[0]:
        raise InvalidArgumentError(None, None, f"{op}: scores must be [num_boxes] with "
                                   f"num_boxes={boxes.shape[0]}, got shape {list(scores.shape)}.")


def _output_size(value: Any, op: str) -> int:
    size = _scalar(value, "max_output_size", op, int)
    if size < 0:
        raise InvalidArgumentError(None, None, f"{op}: output size must be non-negative, got "
                                   f"max_output_size={size}.")
    return size


def non_max_suppression(boxes: Any, scores: Any, max_output_size: Any,
                        iou_threshold: float = 0.5, score_threshold: float = float("-inf"),
                        name: str | None = None) -> Tensor:
    """Greedily selects a subset of boxes in descending order of score, pruning boxes whose IoU
    with a selected box is above `iou_threshold`.

    Returns:
        An int32 tensor `[M]` (M <= max_output_size) of indices into `boxes`.
    """
    indices, _ = non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold,
                                                 score_threshold, 0.0, name)
    return indices


def non_max_suppression_with_scores(boxes: Any, scores: Any, max_output_size: Any,
                                    iou_threshold: float = 0.5,
                                    score_threshold: float = float("-inf"),
                                    soft_nms_sigma: float = 0.0,
                                    name: str | None = None) -> tuple[Tensor, Tensor]:
    """Greedy NMS that also returns the selected scores; with `soft_nms_sigma > 0`, Soft-NMS
    (Bodla et al.): overlapping boxes have their score scaled by `exp(-iou^2 / (2 sigma))`
    instead of being pruned.

    Returns:
        `(selected_indices, selected_scores)`: int32 `[M]` and `[M]` of `scores`' dtype.
    """
    op = "non_max_suppression_with_scores"
    b = _tensor(boxes, "boxes", op)
    s = _tensor(scores, "scores", op)
    _check_boxes(b, s, op)
    size = _output_size(max_output_size, op)
    iou = _iou_matrix(b.detach()).cpu().double().numpy()
    thr = _scalar(iou_threshold, "iou_threshold", op)
    if not 0 <= thr <= 1:
        raise InvalidArgumentError(None, None, f"{op}: iou_threshold must be in [0, 1], got {thr}.")
    sigma = _scalar(soft_nms_sigma, "soft_nms_sigma", op)
    if sigma < 0:
        raise InvalidArgumentError(None, None, f"{op}: soft_nms_sigma must be non-negative, got "
                                   f"{sigma}.")
    sthr = _in_dtype(_scalar(score_threshold, "score_threshold", op), s.dtype)
    sel, sel_scores = _greedy(iou, s.detach().cpu().double().numpy(), size,
                              _in_dtype(thr, b.dtype), sthr, sigma)
    return (torch.tensor(sel, dtype=torch.int32, device=b.device),
            torch.tensor(sel_scores, dtype=s.dtype, device=s.device).reshape(-1))


def non_max_suppression_overlaps(overlaps: Any, scores: Any, max_output_size: Any,
                                 overlap_threshold: float = 0.5,
                                 score_threshold: float = float("-inf"),
                                 name: str | None = None) -> Tensor:
    """Greedy NMS on a given `[num_boxes, num_boxes]` overlap matrix: a candidate is pruned when
    its overlap with a selected box is above `overlap_threshold`.

    Returns:
        An int32 tensor `[M]` of indices.
    """
    op = "non_max_suppression_overlaps"
    o = _tensor(overlaps, "overlaps", op)
    s = _tensor(scores, "scores", op)
    if o.dim() != 2 or o.shape[0] != o.shape[1] or s.dim() != 1 or s.shape[0] != o.shape[0]:
        raise InvalidArgumentError(None, None, f"{op}: overlaps must be square [num_boxes, "
                                   f"num_boxes] and scores [num_boxes], got {list(o.shape)} and "
                                   f"{list(s.shape)}.")
    sel, _ = _greedy(o.detach().cpu().double().numpy(), s.detach().cpu().double().numpy(),
                     _output_size(max_output_size, op),
                     _in_dtype(_scalar(overlap_threshold, "overlap_threshold", op), o.dtype),
                     _in_dtype(_scalar(score_threshold, "score_threshold", op), s.dtype))
    return torch.tensor(sel, dtype=torch.int32, device=o.device)


def non_max_suppression_padded(boxes: Any, scores: Any, max_output_size: Any,
                               iou_threshold: float = 0.5,
                               score_threshold: float = float("-inf"),
                               pad_to_max_output_size: bool = False, name: str | None = None,
                               sorted_input: bool = False, canonicalized_coordinates: bool = False,
                               tile_size: int = 512) -> tuple[Tensor, Tensor]:
    """Greedy NMS that pads its result: `boxes` `[..., num_boxes, 4]` (batched inputs need
    `pad_to_max_output_size=True`); the selected indices are padded with 0 to
    `max_output_size`. (`sorted_input`, `canonicalized_coordinates` and `tile_size` are TF's
    speed hints and do not change the result.)

    Returns:
        `(selected_indices, valid_outputs)`: int32 `[..., max_output_size]` (unpadded single
        image: `[valid_outputs]`) and int32 `[...]`.
    """
    op = "non_max_suppression_padded"
    b = _tensor(boxes, "boxes", op)
    s = _tensor(scores, "scores", op)
    if b.dim() > 2 and not pad_to_max_output_size:
        raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be "
                         "True for batched input")
    if b.dim() < 2 or b.shape[-1] != 4 or tuple(s.shape) != tuple(b.shape[:-1]):
        raise ValueError(f"{op}: boxes must be [..., num_boxes, 4] and scores [..., num_boxes], "
                         f"got {list(b.shape)} and {list(s.shape)}.")
    size = _output_size(max_output_size, op)
    thr = _in_dtype(_scalar(iou_threshold, "iou_threshold", op), torch.float32)
    sthr = _in_dtype(_scalar(score_threshold, "score_threshold", op), torch.float32)
    lead = b.shape[:-2]
    flat_b = b.detach().reshape(-1, *b.shape[-2:]).float().cpu()
    flat_s = s.detach().reshape(-1, s.shape[-1]).float().cpu()
    out = np.zeros((flat_b.shape[0], size), np.int32)
    valid = np.zeros(flat_b.shape[0], np.int32)
    for i in range(flat_b.shape[0]):
        sel = _padded_greedy(flat_b[i], flat_s[i], size, thr, sthr, canonicalized_coordinates)
        out[i, :len(sel)] = sel
        valid[i] = len(sel)
    idx = torch.from_numpy(out).to(b.device).reshape(*lead, size)
    num = torch.from_numpy(valid).to(b.device).reshape(lead)
    if not pad_to_max_output_size:
        return idx[: int(num)], num
    return idx, num


def _padded_greedy(boxes: Tensor, scores: Tensor, size: int, thr: float, sthr: float,
                   canonical: bool) -> list[int]:
    """TF's padded (tiled) NMS, which equals greedy NMS with its own conventions: corners are
    ordered by the first box only, IoU has a 1e-8 epsilon, a box is suppressed at IoU >= the
    threshold, and boxes without a positive coordinate (or at most `score_threshold`) are never
    selected."""
    if boxes.shape[0] == 0 or size == 0:
        return []
    if not canonical:
        y1, x1, y2, x2 = boxes.unbind(-1)
        if not bool(y1[0] <= y2[0]):
            y1, y2 = y2, y1
        if not bool(x1[0] <= x2[0]):
            x1, x2 = x2, x1
        boxes = torch.stack([y1, x1, y2, x2], -1)
    ymin, xmin, ymax, xmax = boxes.unbind(-1)
    ih = (torch.minimum(ymax[:, None], ymax[None]) - torch.maximum(ymin[:, None], ymin[None]))
    iw = (torch.minimum(xmax[:, None], xmax[None]) - torch.maximum(xmin[:, None], xmin[None]))
    inter = iw.clamp(min=0) * ih.clamp(min=0)
    area = (ymax - ymin) * (xmax - xmin)
    iou = (inter / (area[:, None] + area[None] - inter + 1e-8)).double().numpy()
    order = sorted(range(len(scores)), key=lambda k: (-float(scores[k]), k))
    positive = (boxes > 0).any(-1).tolist()
    selected: list[int] = []
    for k in order:
        if len(selected) >= size:
            break
        if not float(scores[k]) > sthr or not positive[k]:
            continue
        if all(iou[k, j] < thr for j in selected):
            selected.append(k)
    return selected


def combined_non_max_suppression(boxes: Any, scores: Any, max_output_size_per_class: Any,
                                 max_total_size: Any, iou_threshold: float = 0.5,
                                 score_threshold: float = float("-inf"),
                                 pad_per_class: bool = False, clip_boxes: bool = True,
                                 name: str | None = None
                                 ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Greedy NMS per class and per batch element, then the best `max_total_size` detections
    over all classes. `boxes` `[batch, num_boxes, q, 4]` (q is 1 or num_classes), `scores`
    `[batch, num_boxes, num_classes]`.

    Returns:
        `(nmsed_boxes [batch, max_detections, 4], nmsed_scores [batch, max_detections],
        nmsed_classes [batch, max_detections] (float32), valid_detections [batch] (int32))`,
        zero-padded; `max_detections` is `max_total_size`, or with `pad_per_class`
        `min(max_output_size_per_class * num_classes, max_total_size)`.
    """
    op = "combined_non_max_suppression"
    b = _tensor(boxes, "boxes", op)
    s = _tensor(scores, "scores", op)
    if b.dim() != 4 or b.shape[-1] != 4 or s.dim() != 3 or s.shape[:2] != b.shape[:2] or \
            b.shape[2] not in (1, s.shape[2]):
        raise InvalidArgumentError(
            None, None, f"{op}: boxes must be [batch, num_boxes, q, 4] (q 1 or num_classes) and "
            f"scores [batch, num_boxes, num_classes], got {list(b.shape)} and {list(s.shape)}.")
    per_class = _output_size(max_output_size_per_class, op)
    total = _scalar(max_total_size, "max_total_size", op, int)
    if total <= 0:
        raise InvalidArgumentError(None, None, f"{op}: max_total_size must be > 0, got {total}.")
    thr = _in_dtype(_scalar(iou_threshold, "iou_threshold", op), torch.float32)
    sthr = _in_dtype(_scalar(score_threshold, "score_threshold", op), torch.float32)
    batch, _, q, _ = b.shape
    classes = s.shape[2]
    detections = min(per_class * classes, total) if pad_per_class else total
    bx = b.detach().float().cpu()
    sc = s.detach().float().cpu().double().numpy()
    out_boxes = torch.zeros(batch, detections, 4, dtype=torch.float32)
    out_scores = torch.zeros(batch, detections, dtype=torch.float64)
    out_classes = torch.zeros(batch, detections, dtype=torch.float64)
    valid = torch.zeros(batch, dtype=torch.int32)
    for i in range(batch):
        found = []
        for c in range(classes):
            class_boxes = bx[i, :, 0 if q == 1 else c]
            sel, sel_scores = _greedy(_iou_matrix(class_boxes).double().numpy(), sc[i, :, c],
                                      per_class, thr, sthr)
            found.extend((score, c, index) for index, score in zip(sel, sel_scores))
        found.sort(key=lambda r: -r[0])
        found = found[:detections]
        for k, (score, c, index) in enumerate(found):
            box = bx[i, index, 0 if q == 1 else c]
            out_boxes[i, k] = box.clamp(0, 1) if clip_boxes else box
            out_scores[i, k] = score
            out_classes[i, k] = c
        valid[i] = len(found)
    return (out_boxes.to(torch.float32).to(b.device), out_scores.to(torch.float32).to(b.device),
            out_classes.to(torch.float32).to(b.device), valid.to(b.device))


def generate_bounding_box_proposals(scores: Any, bbox_deltas: Any, image_info: Any,
                                    anchors: Any, nms_threshold: float = 0.7,
                                    pre_nms_topn: int = 6000, min_size: float = 16,
                                    post_nms_topn: int = 300,
                                    name: str | None = None) -> tuple[Tensor, Tensor]:
    """Generates bounding box proposals from encoded boxes (a region proposal network's
    decoding, TF's GenerateBoundingBoxProposals kernel).

    `scores` `[num_images, height, width, num_anchors]`; `bbox_deltas`
    `[num_images, height, width, 4 * num_anchors]` as `[dy, dx, dh, dw]` (dh, dw clipped at
    log(1000 / 16)); `image_info` `[num_images, 5]` (height, width, scale, ...); `anchors`
    `[y1, x1, y2, x2]` per position and anchor (`[height, width, 4 * num_anchors]`, or
    `[num_anchors, 4]` for the same anchors at every position). Per image: the
    `pre_nms_topn` best scores are decoded, clipped to the image, boxes with a side under
    `min_size * scale` dropped, greedy NMS at `nms_threshold`, the best `post_nms_topn` kept.
    (TF 2.15 registers this op for GPUs only; this runs anywhere.)

    Returns:
        `(rois, roi_probabilities)`: float32 `[num_images, post_nms_topn, 4]` (`[y1, x1, y2,
        x2]`) and `[num_images, post_nms_topn]`, zero-padded.
    """
    op = "generate_bounding_box_proposals"
    sc = _tensor(scores, "scores", op).float()
    deltas = _tensor(bbox_deltas, "bbox_deltas", op).float().to(sc.device)
    info = _tensor(image_info, "image_info", op).float().to(sc.device)
    anc = _tensor(anchors, "anchors", op).float().to(sc.device)
    post = _scalar(post_nms_topn, "post_nms_topn", op, int)
    if post <= 0:
        raise InvalidArgumentError(None, None, f"post_nms_topn can't be 0 or less, got {post} "
                                   f"({op}).")
    thr = _in_dtype(_scalar(nms_threshold, "nms_threshold", op), torch.float32)
    if not 0 <= thr <= 1:
        raise InvalidArgumentError(None, None, f"nms_threshold should be between 0 and 1. Got "
                                   f"{thr} ({op}).")
    pre = _scalar(pre_nms_topn, "pre_nms_topn", op, int)
    if pre <= 0:
        raise InvalidArgumentError(None, None, f"pre_nms_topn should be greater than 0, got {pre} "
                                   f"({op}).")
    min_size = _scalar(min_size, "min_size", op)
    if sc.dim() != 4:
        raise InvalidArgumentError(None, None, f"{op}: scores must be [num_images, height, width,"
                                   f" num_anchors], got shape {list(sc.shape)}.")
    n, height, width, num_anchors = sc.shape
    total = height * width * num_anchors
    if deltas.shape != (n, height, width, 4 * num_anchors):
        raise InvalidArgumentError(None, None, f"{op}: bbox_deltas must be {[n, height, width, 4 * num_anchors]}, "
                                   f"got {list(deltas.shape)}.")
    if anc.numel() == 4 * num_anchors and total != num_anchors:
        anc = anc.reshape(1, num_anchors, 4).expand(height * width, num_anchors, 4)
    if anc.numel() != 4 * total:
        raise InvalidArgumentError(None, None, f"{op}: anchors must hold 4 values per position "
                                   f"and anchor ({4 * total}), got shape {list(anc.shape)}.")
    if info.dim() != 2 or info.shape[0] != n or info.shape[1] < 3:
        raise InvalidArgumentError(None, None, f"{op}: image_info must be [num_images, 5], got "
                                   f"{list(info.shape)}.")
    anc = anc.reshape(total, 4)
    clip = math.log(1000.0 / 16.0)
    rois = torch.zeros(n, post, 4, device=sc.device)
    probs = torch.zeros(n, post, device=sc.device)
    keep_n = min(total, pre)
    for i in range(n):
        flat = sc[i].reshape(total)
        order = torch.sort(flat, descending=True, stable=True).indices[:keep_n]
        a = anc[order]
        d = deltas[i].reshape(total, 4)[order]
        dy, dx = d[:, 0], d[:, 1]
        dh, dw = d[:, 2].clamp(max=clip), d[:, 3].clamp(max=clip)
        w = a[:, 3] - a[:, 1]
        h = a[:, 2] - a[:, 0]
        cx = a[:, 1] + 0.5 * w + w * dx
        cy = a[:, 0] + 0.5 * h + h * dy
        pw, ph = w * torch.exp(dw), h * torch.exp(dh)
        img_h, img_w, scale = info[i, 0], info[i, 1], info[i, 2]
        x1 = torch.minimum(cx - 0.5 * pw, img_w).clamp(min=0)
        x2 = torch.minimum(cx + 0.5 * pw, img_w).clamp(min=0)
        y1 = torch.minimum(cy - 0.5 * ph, img_h).clamp(min=0)
        y2 = torch.minimum(cy + 0.5 * ph, img_h).clamp(min=0)
        keep = torch.minimum(x2 - x1, y2 - y1) >= min_size * scale
        boxes = torch.stack([y1, x1, y2, x2], -1)[keep]
        kept_scores = flat[order][keep]
        if boxes.shape[0] == 0:
            continue
        # the scores are sorted already: greedy NMS in this order (ties keep their order)
        ranks = -torch.arange(boxes.shape[0], dtype=torch.float64)
        sel, _ = _greedy(_iou_matrix(boxes.detach()).cpu().double().numpy(), ranks.numpy(),
                         post, thr, float("-inf"))
        idx = torch.tensor(sel, dtype=torch.long, device=sc.device)
        rois[i, :len(sel)] = boxes[idx]
        probs[i, :len(sel)] = kept_scores[idx]
    return rois, probs
