"""`TrainOp`: what `optimizer.minimize(loss)` returns inside a `model_fn`.

TF's train op was a graph node the session ran. Here it is a deferred
action the training loop runs once the `model_fn` has returned: one backward
pass, then a step of every optimizer over its own variables. Without a
`var_list`, an optimizer updates every trainable weight the loss depends on
(found by walking the loss's autograd graph once and remembered).

Under a distribution strategy the training loop passes the strategy's `GradientSync`
(`_engine/gradient_sync.py`) to `TrainOp.run`: the optimizers' updates average the gradients
over the replicas with it, and under FSDP the shards stand for the variables.
"""

from __future__ import annotations

from typing import Any

import torch

from torchestimator._engine import gradient_sync
from torchestimator._engine.backward import backward
from torchestimator._engine.gradient_sync import GradientSync

_current_sync = gradient_sync.current


def parameters_of(loss: torch.Tensor) -> list[torch.Tensor]:
    """Returns the leaf tensors requiring grad that `loss` depends on, in discovery order."""
    found: list[torch.Tensor] = []
    # The nodes themselves, not their ids: torch makes a node's Python object when it is asked
    # for and may free it once nothing holds it (torch 2.11 does), after which another node's
    # object can take its id; holding them keeps each id its own and each node the one object.
    seen_nodes: set = set()
    seen_params: set[int] = set()
    stack = [loss.grad_fn] if loss.grad_fn is not None else []
    while stack:
        node = stack.pop()
        if node is None or node in seen_nodes:
            continue
        seen_nodes.add(node)
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in seen_params:
            seen_params.add(id(variable))
            found.append(variable)
        for child, _ in reversed(node.next_functions):
            if child is not None:
                stack.append(child)
    return found


class TrainOp:
    """One training update: `(optimizer, loss, var_list)` entries run as one backward pass."""

    def __init__(self, entries: list[tuple[Any, torch.Tensor, Any]]):
        self.entries = list(entries)

    def run(self, resolved_vars: dict | None = None, sync: GradientSync | None = None) -> None:
        """Back-propagates the loss(es) and steps each optimizer over its variables.

        `resolved_vars` caches, per entry position, the variables found for an
        entry without `var_list` (the training loop keeps it across steps).
        `sync`: the `GradientSync` of the run (the training loop passes its strategy's;
        `gradient_sync.NONE` for one replica); None takes the current one
        (`gradient_sync.current()`, what an open `strategy.run` / training scope set).
        """
        if sync is None:
            sync = _current_sync()
        shards = sync.shards_of if sync.shards else None  # FSDPStrategy: shards stand for variables
        cache = resolved_vars if resolved_vars is not None else {}
        entries = self.entries
        if len(entries) == 1:
            optimizer, loss, var_list = entries[0]
            if not loss.requires_grad:
                _no_grad_error()
            variables = self._variables(0, loss, var_list, cache)
            if shards is not None:  # FSDP: back-propagate into its gathered weights (every leaf)
                variables = shards(variables)
                _backward(loss, variables, every_leaf=True)
            else:
                _backward(loss, variables, every_leaf=_covers_every_leaf(loss, variables, cache))
            plans = [(optimizer, variables)]
        else:
            plans = []
            losses: list[tuple[torch.Tensor, list]] = []  # each distinct loss, with its variables
            for index, (optimizer, loss, var_list) in enumerate(entries):
                if not loss.requires_grad:
                    _no_grad_error()
                variables = self._variables(index, loss, var_list, cache)
                if shards is not None:
                    variables = shards(variables)
                plans.append((optimizer, variables))
                for seen, seen_variables in losses:
                    if seen is loss:
                        seen_variables.extend(variables)
                        break
                else:
                    losses.append((loss, list(variables)))
            for position, (loss, variables) in enumerate(losses):
                # As TF: each loss's gradients go to its own var_list only (a GAN's generator
                # loss never reaches the discriminator's variables).
                _backward(loss, variables, retain_graph=position < len(losses) - 1,
                          every_leaf=shards is not None)
        for optimizer, var_list in plans:
            built = cache.get(("built", id(optimizer)))
            if built is not var_list:  # build() is idempotent; skip it for the same variables
                optimizer.build(var_list)
                cache[("built", id(optimizer))] = var_list
            synced_step = getattr(optimizer, "_synced_step", None)  # a Keras optimizer: told `sync`
            if synced_step is not None:
                synced_step(sync)
            elif sync is _current_sync():
                optimizer.step()
            else:  # e.g. a LossScaleOptimizer: its inner Keras optimizer finds `sync` in the context
                with gradient_sync.using(sync):
                    optimizer.step()
        for _, var_list in plans:
            for p in var_list:
                p.grad = None

    @staticmethod
    def _variables(index: int, loss: torch.Tensor, var_list: Any, cache: dict) -> list:
        if callable(var_list):
            var_list = var_list()
        if var_list is None:
            found = cache.get(index)
            if found is None:
                found = cache[index] = [p for p in parameters_of(loss) if p.requires_grad]
            return found
        return var_list if type(var_list) is list else list(var_list)


def _backward(loss: torch.Tensor, variables: list, retain_graph: bool = False,
              every_leaf: bool = False) -> None:
    """Accumulates d(loss)/d(variable) into `.grad` of `variables` only (other leaves the loss
    depends on get nothing, so no gradient goes stale across steps). `every_leaf`: the
    variables are every leaf the loss needs a gradient for, so a plain backward (no `inputs=`,
    about 10 us less on a small model) does the same (and under FSDP, whose gathered weights
    are the graph's leaves, the only way to reach its shards)."""
    if every_leaf:
        backward(loss, retain_graph=retain_graph)
        return
    inputs = [v for v in variables if v.requires_grad]
    if inputs:
        backward(loss, inputs, retain_graph=retain_graph)


def _covers_every_leaf(loss: torch.Tensor, variables: list, cache: dict) -> bool:
    """Whether `variables` hold every leaf requiring grad that `loss` depends on.

    Walked once for a list of variables and remembered while the entry's variables are the same
    tensors (the list object may be new each step). Assumes what `TrainOp.run`'s variable cache
    assumes: a model_fn's loss depends on the same leaves from step to step.
    """
    memo = cache.get("every_leaf")
    if memo is not None and (memo[0] is variables or (
            len(memo[0]) == len(variables) and all(a is b for a, b in zip(memo[0], variables)))):
        if memo[0] is not variables:
            cache["every_leaf"] = (variables, memo[1])
        return memo[1]
    held = {id(v) for v in variables}
    verdict = bool(held) and all(id(p) in held for p in parameters_of(loss) if p.requires_grad)
    cache["every_leaf"] = (variables, verdict)
    return verdict


def _no_grad_error() -> None:
    raise ValueError(
        "The loss given to optimizer.minimize() does not depend on any trainable "
        "weight; make sure model_fn computes it from layers created in model_fn."
    )


class NoOp(TrainOp):
    """An operation with nothing left to do: what `tf.no_op()` returns, and `tf.group` of ops
    that already ran eagerly (`var.assign_add(1)`). An `EstimatorSpec` accepts it as
    `train_op` (a step that does nothing more)."""

    def __init__(self, name: str | None = None):
        super().__init__([])
        self.name = name or "NoOp"

    def run(self, resolved_vars: dict | None = None) -> None:
        """Does nothing: the ops it stands for already ran."""

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type=NoOp>"


def group(*ops: Any) -> TrainOp:
    """Combines train ops (as `tf.group`) so that one step runs all of them.

    Tensors and variables (what `assign*` returned), None and no-ops stand for
    eager ops that already ran: they add nothing. With no train op left, the
    result is a `NoOp` (an `EstimatorSpec` accepts it as `train_op`).
    """
    entries = _group_entries(ops)
    if entries:
        return TrainOp(entries)
    return NoOp()


def _group_entries(ops: Any) -> list:
    entries: list = []
    for op in ops:
        if op is None or isinstance(op, torch.Tensor):
            continue
        if isinstance(op, (list, tuple)):
            entries.extend(_group_entries(op))
        elif isinstance(op, dict):
            entries.extend(_group_entries(list(op.values())))
        elif isinstance(op, TrainOp):
            entries.extend(op.entries)
        elif hasattr(op, "numpy") or hasattr(op, "__array__"):
            continue  # an eager value (a metric's state, a numpy array): already computed
        else:
            raise TypeError(
                "tf.group() takes train ops (what minimize() returns), no-ops, and the tensors or "
                f"variables eager ops returned; received {op!r:.200}"
            )
    return entries
