"""`tf.distribute.experimental.FSDPStrategy`: fully sharded data parallelism with PyTorch's FSDP2.

Beyond TF (TensorFlow had no such strategy). Each process is one replica, as with
`MultiWorkerMirroredStrategy`, but while training the replicas do not each hold the
whole model: `torch.distributed.fsdp.fully_shard` splits every trainable weight (dim 0,
one part per replica), and the optimizer's slots are created on the parts. A layer's
forward pass all-gathers its weights, its backward pass reduce-scatters the gradients
(their mean over the replicas), and each replica's optimizer updates its own part.

When FSDP is active (`Sharded`):

* Keras `fit`: during each epoch's steps. Each Keras layer that owns trainable weights is
  one FSDP unit, the model the root unit; non-trainable weights (BatchNormalization's
  moving statistics) are not sharded and stay per replica, as in TF.
* `Estimator.train` (`RunConfig(train_distribute=FSDPStrategy())`): from the start of
  `train()` (after model_fn's first call built its layers) to its end. Every layer model_fn
  used at its top level is a root unit, its sub-layers with weights units of their own. The
  train op back-propagates into FSDP's gathered weights and its optimizers update the
  parts (`GradientSync.shards_of`, `_engine/gradient_sync.py`).

Outside those spans the model is an ordinary one: its layers hold their full
`tf.Variable`s and its optimizers full slots (gathered on every replica), so evaluate,
predict, export, `get_weights` and one replica calling the model alone need no
collective.

Checkpoints: **gather-on-save into the project's own checkpoint formats**. Where a
checkpoint may be written (the end of each Keras epoch, before the callbacks; every
checkpoint of the Estimator's saver, whose trigger the chief shares with the other
replicas; the end of `train`), every replica gathers the parts into the full variables
and slots, and the chief writes them as it writes any checkpoint (safetensors + JSON).
A single process without a process group reads them (`tf.train.load_checkpoint`,
`Estimator.predict`, `load_weights`, `load_model`, `inspect-checkpoint`), and any
number of replicas resumes from them. `torch.distributed.checkpoint` was not chosen:
its sharded files need its own reader (and a process group or a conversion step),
which would break the one-checkpoint-format promise (DESIGN section 4). The price: at a
save, each replica materialises the full weights and slots (on the model's device),
which a model bigger than one device cannot afford -- see the module's limits below.

Limits: a CheckpointSaverHook passed to `train(hooks=...)` is refused (use RunConfig's
`save_checkpoints_*`); Keras callbacks that save in the middle of an epoch
(`ModelCheckpoint` or `BackupAndRestore` with `save_freq=N`) are refused; a model_fn with several losses each minimising its own variables (a
GAN) back-propagates every loss into every weight; weight regularizers and `use_ema`
optimizers are untested under FSDP.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

from torchestimator._engine.gradient_sync import GradientSync
from torchestimator.distribute import _collectives
from torchestimator.distribute._communication import CommunicationOptions
from torchestimator.distribute._data_parallel import DataParallel
from torchestimator.distribute._strategies import MultiWorkerMirroredStrategy

_KERAS_ATTRIBUTES = ("_tf_name", "_tf_trainable", "_tf_constraint", "_keras_trainable", "_keras_name",
                     "_keras_regularizer", "_keras_constraint")

_DTYPES = {"bfloat16": torch.bfloat16, "mixed_bfloat16": torch.bfloat16, "float16": torch.float16,
           "mixed_float16": torch.float16, "float32": None}


def _mixed_precision_policy(mixed_precision: Any) -> Any:
    from torch.distributed.fsdp import (  # lazy: heavy (torch.distributed.fsdp, 1211 ms)
        MixedPrecisionPolicy,
    )

    if mixed_precision is None:
        return MixedPrecisionPolicy()
    if isinstance(mixed_precision, MixedPrecisionPolicy):
        return mixed_precision
    name = mixed_precision
    if isinstance(name, torch.dtype):
        return MixedPrecisionPolicy(param_dtype=name, reduce_dtype=torch.float32)
    if isinstance(name, str) and name in _DTYPES:
        dtype = _DTYPES[name]
        return MixedPrecisionPolicy() if dtype is None else MixedPrecisionPolicy(param_dtype=dtype,
                                                                                 reduce_dtype=torch.float32)
    raise ValueError(
        "FSDPStrategy(mixed_precision=...) must be None, 'bfloat16', 'float16' ('mixed_bfloat16', "
        "'mixed_float16'), a torch dtype or a torch.distributed.fsdp.MixedPrecisionPolicy; received "
        f"{mixed_precision!r}."
    )


class FSDPStrategy(MultiWorkerMirroredStrategy):
    """Fully sharded data-parallel training (PyTorch FSDP2) on the processes of a cluster.

    `tf.distribute.experimental.FSDPStrategy` is this project's own strategy (TF had
    none like it). The cluster is found as `MultiWorkerMirroredStrategy` finds it
    (torchrun's variables, else `TF_CONFIG`, else one replica); constructing it joins
    the process group. Each replica holds 1/N of every trainable weight and of the
    optimizer state; training gives the same result as `MultiWorkerMirroredStrategy`
    (the gradients are averaged over the replicas) within float tolerance.

    Checkpoints are gathered: the chief writes the full weights into the ordinary
    checkpoint format, readable by a single process (see the module docstring).
    Evaluation and prediction run on full weights and are not sharded: use it as
    `train_distribute` only (`eval_distribute` raises ValueError). With one process
    it trains as the default strategy.

    Args:
        cluster_resolver: a `TFConfigClusterResolver` or `SimpleClusterResolver` (None:
            torchrun's variables or `TF_CONFIG`).
        communication_options: a `tf.distribute.experimental.CommunicationOptions`
            (AUTO/RING: gloo on CPU, NCCL on GPU; NCCL: NCCL).
        reshard_after_forward: free each layer's gathered weights after its forward pass
            (True: least memory, gathers again for backward) or keep them until its
            backward pass (False: one gather less per step).
        mixed_precision: None (float32), 'bfloat16' / 'float16' (compute in that dtype,
            reduce gradients in float32), or a `torch.distributed.fsdp.MixedPrecisionPolicy`.
    """

    _train_only = True  # RunConfig(eval_distribute=FSDPStrategy()) is refused

    def __init__(self, cluster_resolver: Any = None, communication_options: CommunicationOptions | None = None,
                 reshard_after_forward: bool = True, mixed_precision: Any = None) -> None:
        if not isinstance(reshard_after_forward, bool):
            raise TypeError("FSDPStrategy(reshard_after_forward=...) must be True or False; received "
                            f"{reshard_after_forward!r}.")
        self._mp_policy = _mixed_precision_policy(mixed_precision)
        self._reshard_after_forward = reshard_after_forward
        super().__init__(communication_options=communication_options, cluster_resolver=cluster_resolver)

    @property
    def reshard_after_forward(self) -> bool:
        """Whether each layer frees its gathered weights after its forward pass."""
        return self._reshard_after_forward

    @property
    def mixed_precision(self) -> Any:
        """The `torch.distributed.fsdp.MixedPrecisionPolicy` the layers are sharded with."""
        return self._mp_policy

    def _data_parallel(self) -> FSDPParallel:
        return FSDPParallel(self)


def _units(root: torch.nn.Module) -> list[torch.nn.Module]:
    """The sub-modules of `root` that directly own a trainable parameter, deepest first (each
    becomes one FSDP unit: its weights are gathered together, just before it runs)."""
    return [module for module in reversed(list(root.modules()))
            if module is not root and any(p is not None and p.requires_grad for p in module._parameters.values())]


def _keep_variables_visible(module: torch.nn.Module) -> None:
    """A Keras layer keeps listing its original variables as its weights (FSDP replaces the
    module's registered parameters by shards): the checkpoints and `get_weights` read those."""
    own = module.__dict__.get("_own_weights")
    if own is None:
        return
    ids = {id(v) for v in own}
    own.extend(p for p in module._parameters.values() if p is not None and id(p) not in ids)
    module.__dict__["_fsdp_managed"] = True


def _state_dict_of_variables(module: torch.nn.Module, originals: dict[str, torch.Tensor]) -> None:
    """`module.state_dict()` gives the original variables (the gathered full weights) in place
    of FSDP's shards, so checkpoint writers see full tensors."""
    if not originals:
        return

    def hook(module: torch.nn.Module, state_dict: dict, prefix: str, local_metadata: Any) -> None:
        for attr, original in originals.items():
            value = state_dict.get(prefix + attr)
            if value is not None:  # state_dict(keep_vars=True) holds the Parameter itself
                state_dict[prefix + attr] = original if isinstance(value, torch.nn.Parameter) else original.detach()

    module._register_state_dict_hook(hook)


def _hook_dicts(module: torch.nn.Module) -> dict[str, dict]:
    return {name: value for name, value in vars(module).items() if "hook" in name and isinstance(value, dict)}


def _fully_shard_keeping_hooks(module: torch.nn.Module, kwargs: dict) -> dict[str, dict]:
    """`fully_shard(module)`; returns the hooks it registered on `module` (by hook dict), so that
    they can be taken off while FSDP is not active and put back."""
    from torch.distributed.fsdp import fully_shard  # lazy: heavy (torch.distributed.fsdp, 1173 ms)

    before = {name: set(d) for name, d in _hook_dicts(module).items()}
    fully_shard(module, **kwargs)
    added = {}
    for name, d in _hook_dicts(module).items():
        new = {key: d[key] for key in d if key not in before.get(name, ())}
        if new:
            added[name] = new
    return added


def _to_shard(value: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """`value` (a full tensor, the same on every replica) as a DTensor placed like `like`: this
    replica's part, without communication."""
    from torch.distributed.tensor import (  # lazy: heavy (torch.distributed.tensor, 2402 ms)
        DTensor,
        distribute_tensor,
    )

    if not isinstance(like, DTensor) or tuple(value.shape) != tuple(like.shape):
        return value
    return distribute_tensor(value.detach().to(like.device, like.dtype), like.device_mesh, like.placements,
                             src_data_rank=None)


def _to_full(value: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """`value` whole (an all-gather when it is a DTensor), on the device of `like`."""
    from torch.distributed.tensor import DTensor  # lazy: heavy (torch.distributed.tensor, 3127 ms)

    if isinstance(value, DTensor):
        return value.full_tensor().to(like.device)
    return value


def _move_optimizer(optimizer: Any, new_vars: list[torch.Tensor], convert: Any) -> None:
    """Rebuilds a Keras `optimizer` on `new_vars` (one per variable it trains, in build order:
    the shards, or the full variables), its slots converted by `convert(slot, new_variable)`."""
    state = optimizer.state_dict()
    slots = {key: {name: convert(value, new_vars[int(key)]) if isinstance(value, torch.Tensor) else value
                   for name, value in values.items()}
             for key, values in (state.get("variables") or {}).items()}
    old_ids = {id(v): id(n) for v, n in zip(optimizer._vars, new_vars)}
    optimizer._exclude_ids = {old_ids.get(i, i) for i in optimizer._exclude_ids}
    optimizer._vars, optimizer._index_dict, optimizer._kernel, optimizer._group = [], {}, None, None
    optimizer._ema, optimizer._constraints, optimizer._decay_vars, optimizer._pending = [], [], [], {}
    optimizer.build(new_vars)
    optimizer.load_state_dict({**state, "variables": slots})


class Sharded:
    """The modules of one model after `fully_shard`, and the original (full) `tf.Variable`s
    that FSDP's shards stand for.

    FSDP is *active* while training: the modules hold the shards, the optimizers train the
    shards and the originals wait on the host. `deactivate()` (at the end of training and
    around a checkpoint write, on every replica) gathers the shards into the originals and the
    optimizers' slots into full tensors, and gives the modules their originals back (the model
    is then an ordinary one: evaluate, predict, export and restore work as without FSDP);
    `activate()` shards the (possibly restored) originals again, without communication.
    """

    def __init__(self, roots: list[torch.nn.Module], strategy: FSDPStrategy, what: str) -> None:
        trainable = [p for root in roots for p in root.parameters() if p.requires_grad]
        if not trainable:
            raise ValueError(
                f"FSDPStrategy: {what} has no trainable weights to shard. Build the model (give it an "
                "input shape or call it once) before training, or use MultiWorkerMirroredStrategy for a "
                "model without weights.")
        ignored = {p for root in roots for p in root.parameters() if not p.requires_grad}
        kwargs = {"reshard_after_forward": strategy.reshard_after_forward, "mp_policy": strategy.mixed_precision,
                  "ignored_params": ignored or None}
        self.entries: list[tuple[torch.nn.Module, str, torch.Tensor, torch.Tensor]] = []
        self._hooks: list[tuple[torch.nn.Module, dict[str, dict]]] = []
        self._classes: list[tuple[torch.nn.Module, type, type]] = []
        for root in roots:
            for module in [*_units(root), root]:
                if getattr(module, "_is_fsdp_managed_module", False) and module is not root:
                    continue
                _keep_variables_visible(module)
                variables = {a: p for a, p in module._parameters.items() if p is not None and p.requires_grad}
                own_class = type(module)
                self._hooks.append((module, _fully_shard_keeping_hooks(module, kwargs)))
                self._classes.append((module, own_class, type(module)))  # FSDP's subclass, while active
                _state_dict_of_variables(module, variables)
                for attr, original in variables.items():
                    shard = module._parameters[attr]
                    for attribute in _KERAS_ATTRIBUTES:
                        if hasattr(original, attribute):
                            setattr(shard, attribute, getattr(original, attribute))
                    self.entries.append((module, attr, original, shard))
        self._devices = [original.device for _, _, original, _ in self.entries]
        self.by_original = {id(original): shard for _, _, original, shard in self.entries}
        self.optimizers: list = []
        self.active = True
        self._to_host()

    def shards_of(self, variables: list[torch.Tensor]) -> list[torch.Tensor]:
        """`variables` with each full weight replaced by its shard (while active)."""
        if not self.active:
            return variables
        by_original = self.by_original
        return [by_original.get(id(v), v) for v in variables]

    def _to_host(self) -> None:
        for _, _, original, _ in self.entries:  # the full copy waits on the host, not the device
            if original.device.type != "cpu":
                original.data = original.data.to("cpu")

    def attach_optimizers(self, optimizers: list) -> None:
        """Makes `optimizers` (built on the full variables) train the shards while active."""
        for optimizer in optimizers:
            if any(optimizer is o for o in self.optimizers):
                continue
            self.optimizers.append(optimizer)
            if self.active:
                _move_optimizer(optimizer, self.shards_of(list(optimizer._vars)), _to_shard)

    def gather_(self) -> None:
        """Copies the full value of every shard into its original variable (an all-gather per
        weight: every replica calls it)."""
        with torch.no_grad():
            for _, _, original, shard in self.entries:
                original.data.copy_(shard.full_tensor().to(original.device))

    def deactivate(self) -> None:
        """Gathers weights and optimizer slots; the modules hold the full variables again."""
        if not self.active:
            return
        self.gather_()
        for (_, _, original, _), device in zip(self.entries, self._devices):
            if original.device != device:
                original.data = original.data.to(device)
        originals = {id(shard): original for _, _, original, shard in self.entries}
        for optimizer in self.optimizers:
            _move_optimizer(optimizer, [originals.get(id(v), v) for v in optimizer._vars], _to_full)
        for module, attr, original, _ in self.entries:
            module._parameters[attr] = original
        for module, added in self._hooks:
            dicts = _hook_dicts(module)
            for name, hooks in added.items():
                for key in hooks:
                    dicts[name].pop(key, None)
        for module, own_class, _ in self._classes:  # its own class again (Keras saves its name)
            module.__class__ = own_class
        self.active = False

    def activate(self) -> None:
        """Shards the full variables again (their current values) and gives the modules and the
        optimizers the shards."""
        if self.active:
            return
        with torch.no_grad():
            for module, attr, original, shard in self.entries:
                shard.to_local().copy_(_to_shard(original, shard).to_local())
                module._parameters[attr] = shard
        for module, added in self._hooks:
            dicts = _hook_dicts(module)
            for name, hooks in added.items():
                dicts[name].update(hooks)
        for module, _, fsdp_class in self._classes:
            module.__class__ = fsdp_class
        self._to_host()
        self.active = True
        for optimizer in self.optimizers:
            _move_optimizer(optimizer, self.shards_of(list(optimizer._vars)), _to_shard)


class FSDPParallel(DataParallel):
    """What the training fronts do under `FSDPStrategy` (see `DataParallel` for the steps):
    the model is sharded instead of replicated, the sharded weights' gradients are already
    averaged by FSDP's reduce-scatter, and the weights are gathered for checkpoints."""

    shards_weights = True
    sharded: Sharded | None = None

    def _average(self, grads: list[torch.Tensor], variables: list[torch.Tensor] | None = None
                 ) -> list[torch.Tensor]:
        """FSDP averaged the shards' gradients in backward; the others (a variable outside the
        layers) are averaged here."""
        from torch.distributed.tensor import (  # lazy: heavy (torch.distributed.tensor, 3127 ms)
            DTensor,
        )

        if variables is None:
            return grads
        plain = [i for i, v in enumerate(variables) if not isinstance(v, DTensor)]
        if not plain:
            return grads
        out = list(grads)
        for i, g in zip(plain, _collectives.average_gradients([grads[i] for i in plain])):
            out[i] = g
        return out

    def sync(self) -> GradientSync:
        """The `GradientSync` of this run's training steps: the shards stand for the model's
        variables (`shards_of`); the gradients of the others are averaged over the replicas."""
        sharded = self.sharded
        return GradientSync(reduce=self._average, shards_of=sharded.shards_of if sharded is not None else None)

    @contextlib.contextmanager
    def averaging_gradients(self) -> Iterator[GradientSync]:
        """While open, optimizers update the shards of the variables they are given, and
        train ops back-propagate into FSDP's gathered weights (`sync()`'s object, yielded)."""
        sharded = self.sharded
        if sharded is not None:
            sharded.activate()  # Keras: each epoch's steps train the shards
        with super().averaging_gradients() as sync:
            yield sync

    @contextlib.contextmanager
    def full_state(self) -> Iterator[None]:
        """The full weights and optimizer slots in the model while open (every replica enters
        it together: gathering is collective); the shards again after."""
        sharded = self.sharded
        if sharded is None or not sharded.active:
            yield
            return
        sharded.deactivate()
        try:
            yield
        finally:
            sharded.activate()

    def end_training(self) -> None:
        """The end of `fit` / `train` (every replica): the model holds its full weights again."""
        if self.sharded is not None:
            self.sharded.deactivate()

    # Keras ------------------------------------------------------------------------------------

    def broadcast_module_(self, module: torch.nn.Module) -> None:
        """At the start of `fit`: the chief's weights on every replica, then the model sharded
        and its optimizer moved onto the shards."""
        super().broadcast_module_(module)
        sharded = module.__dict__.get("_fsdp_sharded")
        if sharded is None:
            sharded = Sharded([module], self.strategy, f"Keras model {getattr(module, 'name', module)!r}")
            module.__dict__["_fsdp_sharded"] = sharded
        else:
            sharded.activate()
        self.sharded = sharded
        optimizer = getattr(module, "optimizer", None)
        if optimizer is not None:
            weights = list(module.trainable_weights)
            if not any(optimizer is o for o in sharded.optimizers):  # else activate() moved it already
                optimizer.build(weights)
                sharded.attach_optimizers([optimizer])
            module._optimizer_built_for = len(weights)

    def sum_metric_state(self, metrics: list) -> None:
        """The metric state summed over the replicas; then, during `fit` (which calls this at the
        end of each epoch, on every replica, before validation and the callbacks), FSDP ends for
        the epoch: the model holds its full weights and the optimizer its full slots, so
        `ModelCheckpoint`, `BackupAndRestore` and validation see an ordinary model. The next
        epoch's steps shard them again (`averaging_gradients`)."""
        super().sum_metric_state(metrics)
        if self.sharded is not None:
            self.sharded.deactivate()

    # Estimator --------------------------------------------------------------------------------

    def begin_training(self, state: Any) -> None:
        """At the start of `Estimator.train`, after the chief's weights were broadcast: the
        layers model_fn created sharded (the first time) or sharded again, and its optimizers
        moved onto the shards."""
        sharded = state.__dict__.get("_fsdp_sharded")
        if sharded is None:
            layers = [layer for layer in state.layers() if any(True for _ in layer.parameters())]
            sharded = Sharded(layers, self.strategy, "the layers model_fn created")
            state.__dict__["_fsdp_sharded"] = sharded
        else:
            sharded.activate()
        self.sharded = sharded
        sharded.attach_optimizers([opt for opt in state.optimizers() if getattr(opt, "_built", False)])


__all__ = ["FSDPParallel", "FSDPStrategy", "Sharded"]
