"""`RunConfig`: the configuration of an Estimator run, and the cluster it reads from `TF_CONFIG`.

As `tf.estimator.RunConfig` (TF 2.15): the same arguments, defaults, validation
and `replace()` rules; the cluster properties (`cluster_spec`, `task_type`,
`task_id`, `master`, `is_chief`, ...) are parsed from the `TF_CONFIG`
environment variable exactly as TensorFlow does. `session_config` (a TF
`ConfigProto`) is accepted and stored but has no effect here: PyTorch has no
session. `ClusterSpec` is a small stand-in for `tf.train.ClusterSpec`.
"""

from __future__ import annotations

import copy
import inspect
import json
import logging
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from torchestimator.train._cluster_spec import ClusterSpec

_log = logging.getLogger(__name__)

_USE_DEFAULT = object()
_VALID_DEVICE_FN_ARGS = {"op"}

# The RunConfig properties a user may change, with `replace()` or the constructor.
_DEFAULT_REPLACEABLE_LIST = [
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "train_distribute",
    "device_fn",
    "protocol",
    "eval_distribute",
    "experimental_distribute",
    "experimental_max_worker_delay_secs",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
]

# Held by reference (not deep-copied) by `replace()`: strategies own processes and devices.
_SHARED_ON_COPY = ("_train_distribute", "_eval_distribute", "_experimental_distribute", "_device_fn", "_session_config")

_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."

_TF_CONFIG_ENV = "TF_CONFIG"
_TASK_ENV_KEY = "task"
_TASK_TYPE_KEY = "type"
_TASK_ID_KEY = "index"
_CLUSTER_KEY = "cluster"
_SERVICE_KEY = "service"
_SESSION_MASTER_KEY = "session_master"
_EVAL_SESSION_MASTER_KEY = "eval_session_master"
_MODEL_DIR_KEY = "model_dir"
_LOCAL_MASTER = ""
_GRPC_SCHEME = "grpc://"

INDEPENDENT_WORKER = "independent_worker"
STANDALONE_CLIENT = "standalone_client"


class TaskType:
    """The task types of a training cluster (`tf.estimator.RunConfig`'s `TaskType`)."""

    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


def _path_to_str(path: Any) -> Any:
    return os.fspath(path) if hasattr(path, "__fspath__") else path


def _read_tf_config() -> dict[str, Any]:
    raw = os.environ.get(_TF_CONFIG_ENV, "{}")
    try:
        tf_config = json.loads(raw or "{}")
    except ValueError as e:
        raise ValueError(f"The TF_CONFIG environment variable is not valid JSON ({e}); received {raw!r}.") from e
    if not isinstance(tf_config, dict):
        raise ValueError(f"The TF_CONFIG environment variable must hold a JSON object; received {raw!r}.")
    return tf_config


def _get_model_dir(tf_config: dict[str, Any], model_dir: Any) -> Any:
    if model_dir == "":
        raise ValueError("model_dir should be non-empty; received ''. Pass a folder path or None.")
    in_tf_config = tf_config.get(_MODEL_DIR_KEY)
    if in_tf_config == "":
        raise ValueError("model_dir in TF_CONFIG should be non-empty; received ''.")
    if in_tf_config:
        if model_dir and in_tf_config != model_dir:
            raise ValueError(
                "`model_dir` provided in RunConfig construct, if set, must have the same value as "
                f"the model_dir in TF_CONFIG. model_dir: {model_dir}\n"
                f'TF_CONFIG["model_dir"]: {in_tf_config}.\n'
            )
        _log.info("Using model_dir in TF_CONFIG: %s", in_tf_config)
    return model_dir or in_tf_config


def _validate_service(service: Any) -> dict | None:
    if service is not None and not isinstance(service, dict):
        raise TypeError(f'If "service" is set in TF_CONFIG, it must be a dict. Given {type(service)}')
    return service


def _validate_task_type_and_task_id(
    cluster_spec: ClusterSpec, task_env: dict[str, Any], chief_task_type: str
) -> tuple[str, int]:
    if chief_task_type not in cluster_spec.jobs:
        raise ValueError(
            f'If "cluster" is set in TF_CONFIG, it must have one "{chief_task_type}" node; '
            f"received jobs {cluster_spec.jobs}."
        )
    if cluster_spec.num_tasks(chief_task_type) > 1:
        raise ValueError(
            f'The "cluster" in TF_CONFIG must have only one "{chief_task_type}" node; received '
            f"{cluster_spec.num_tasks(chief_task_type)}: {cluster_spec.job_tasks(chief_task_type)}."
        )
    task_type = task_env.get(_TASK_TYPE_KEY)
    task_id = task_env.get(_TASK_ID_KEY)
    if not task_type:
        raise ValueError(
            'If "cluster" is set in TF_CONFIG, task type must be set: add "task": '
            '{"type": ..., "index": ...} to TF_CONFIG.'
        )
    if task_id is None:
        raise ValueError('If "cluster" is set in TF_CONFIG, task index must be set ("task": {"index": ...}).')
    try:
        task_id = int(task_id)
    except (TypeError, ValueError):
        raise ValueError(f"Task index in TF_CONFIG must be an integer; received {task_id!r}.") from None
    if task_id < 0:
        raise ValueError(f"Task index must be non-negative number; received {task_id}.")
    if task_type == TaskType.EVALUATOR:
        return task_type, task_id  # The evaluator is not part of the training cluster.
    if task_type not in cluster_spec.jobs:
        raise ValueError(
            f"{task_type} is not a valid task_type in the cluster_spec:\n{cluster_spec}\n\n"
            "Note that these values may be coming from the TF_CONFIG environment variable."
        )
    if not 0 <= task_id < cluster_spec.num_tasks(task_type):
        raise ValueError(
            f"{task_id} is not a valid task_id for task_type {task_type} in the cluster_spec:\n"
            f"{cluster_spec}\n\nNote that these values may be coming from the TF_CONFIG "
            "environment variable."
        )
    return task_type, task_id


def _get_session_master(cluster_spec: ClusterSpec, task_type: str, task_id: int, tf_config: dict) -> str:
    if _SESSION_MASTER_KEY in tf_config:
        return tf_config[_SESSION_MASTER_KEY]
    jobs = cluster_spec.jobs
    # A single-node cluster runs in process.
    if len(jobs) == 1 and cluster_spec.num_tasks(jobs[0]) == 1:
        return _LOCAL_MASTER
    return _GRPC_SCHEME + cluster_spec.job_tasks(task_type)[task_id]


def _get_eval_session_master(task_type: str, tf_config: dict) -> str:
    if task_type == TaskType.EVALUATOR:
        return tf_config.get(_EVAL_SESSION_MASTER_KEY, _LOCAL_MASTER)
    return _LOCAL_MASTER


def _count_ps(cluster_spec: ClusterSpec) -> int:
    return len(cluster_spec.as_dict().get(TaskType.PS, []))


def _count_worker(cluster_spec: ClusterSpec, chief_task_type: str) -> int:
    as_dict = cluster_spec.as_dict()
    return len(as_dict.get(TaskType.WORKER, [])) + len(as_dict.get(chief_task_type, []))


def _get_global_id_in_cluster(cluster_spec: ClusterSpec, task_type: str, task_id: int, chief_task_type: str) -> int:
    # Chief first, then the other task types alphabetically, `ps` last.
    ordered = [chief_task_type] if chief_task_type in cluster_spec.jobs else []
    ordered += [t for t in sorted(cluster_spec.jobs) if t not in (chief_task_type, TaskType.PS)]
    if TaskType.PS in cluster_spec.jobs:
        ordered.append(TaskType.PS)
    next_global_id = 0
    for t in ordered:
        if t == task_type:
            return next_global_id + task_id
        next_global_id += len(cluster_spec.job_tasks(t))
    raise ValueError(f"task_type {task_type!r} is not in the cluster_spec {cluster_spec}.")


def _read_only(name: str, doc: str) -> property:
    """A read-only property returning the attribute `_<name>`."""
    return property(lambda self: getattr(self, "_" + name), doc=doc)


def _fn_args(fn: Callable) -> set[str]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return set()
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return {p.name for p in params if p.kind in kinds}


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer))


def _validate_properties(config: RunConfig) -> None:
    """Checks every property; raises ValueError naming the property and the received value."""

    def check(name: str, cond: Callable[[Any], bool], message: str) -> None:
        value = getattr(config, "_" + name)
        if value is None:
            return
        try:
            ok = cond(value)
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(f"{message}; received {name}={value!r}.")

    def number(cond: Callable[[Any], bool]) -> Callable[[Any], bool]:
        return lambda v: isinstance(v, (int, float, np.number)) and not isinstance(v, bool) and cond(v)

    check("model_dir", lambda d: bool(d), "model_dir should be non-empty")
    check("save_summary_steps", number(lambda s: s >= 0), "save_summary_steps should be >= 0")
    check("save_checkpoints_steps", number(lambda s: s >= 0), "save_checkpoints_steps should be >= 0")
    check("save_checkpoints_secs", number(lambda s: s >= 0), "save_checkpoints_secs should be >= 0")
    check("keep_checkpoint_max", number(lambda k: k >= 0), "keep_checkpoint_max should be >= 0")
    check(
        "keep_checkpoint_every_n_hours",
        number(lambda h: h > 0),
        "keep_checkpoint_every_n_hours should be > 0",
    )
    check("log_step_count_steps", number(lambda n: n > 0), "log_step_count_steps should be > 0")
    check("tf_random_seed", _is_int, "tf_random_seed must be integer")
    check(
        "experimental_max_worker_delay_secs",
        _is_int,
        "experimental_max_worker_delay_secs must be an integer if set",
    )
    check(
        "session_creation_timeout_secs",
        number(lambda t: t > 0),
        "session_creation_timeout_secs should be > 0",
    )
    check(
        "device_fn",
        lambda fn: callable(fn) and _fn_args(fn) == _VALID_DEVICE_FN_ARGS,
        'device_fn must be callable with exactly one argument "op"',
    )
    check("protocol", lambda p: p in ("grpc", "grpc+verbs"), "protocol should be grpc or grpc+verbs")


def _validate_save_ckpt_with_replaced_keys(config: RunConfig, replaced_keys: Any) -> None:
    # Setting one of steps/secs alone clears the other.
    steps = config._save_checkpoints_steps
    secs = config._save_checkpoints_secs
    if "save_checkpoints_steps" in replaced_keys and "save_checkpoints_secs" in replaced_keys:
        if steps is not None and secs is not None:
            raise ValueError(f"{_SAVE_CKPT_ERR} Received save_checkpoints_steps={steps!r}, save_checkpoints_secs={secs!r}.")
    elif "save_checkpoints_steps" in replaced_keys and steps is not None:
        config._save_checkpoints_secs = None
    elif "save_checkpoints_secs" in replaced_keys and secs is not None:
        config._save_checkpoints_steps = None


class RunConfig:
    """This class specifies the configurations for an `Estimator` run.

    The distributed-training properties (`cluster_spec`, `task_type`, `task_id`,
    `master`, `evaluation_master`, `is_chief`, `num_ps_replicas`,
    `num_worker_replicas`, `global_id_in_cluster`, `service`) come from the
    `TF_CONFIG` environment variable: `{"cluster": {job: [addresses]}, "task":
    {"type": ..., "index": ...}}`. A cluster needs exactly one `chief` (or, in the
    legacy layout, one `master`); an `evaluator` task is not part of the cluster.

    Checkpointing: if neither `save_checkpoints_steps` nor `save_checkpoints_secs` is
    given, checkpoints are saved every 600 seconds; giving one sets the other to
    None; giving both (non-None) is an error; both explicitly None disables them.

    `session_config` is accepted and stored for compatibility and has no effect.
    `train_distribute` / `eval_distribute` are stored as given.
    """

    def __init__(
        self,
        model_dir: str | os.PathLike | None = None,
        tf_random_seed: int | None = None,
        save_summary_steps: int = 100,
        save_checkpoints_steps: int | None = _USE_DEFAULT,  # type: ignore[assignment]
        save_checkpoints_secs: float | None = _USE_DEFAULT,  # type: ignore[assignment]
        session_config: Any = None,
        keep_checkpoint_max: int | None = 5,
        keep_checkpoint_every_n_hours: float = 10000,
        log_step_count_steps: int | None = 100,
        train_distribute: Any = None,
        device_fn: Callable | None = None,
        protocol: str | None = None,
        eval_distribute: Any = None,
        experimental_distribute: Any = None,
        experimental_max_worker_delay_secs: int | None = None,
        session_creation_timeout_secs: float = 7200,
        checkpoint_save_graph_def: bool = True,
    ) -> None:
        if save_checkpoints_steps is _USE_DEFAULT and save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_steps = None
            save_checkpoints_secs = 600
        elif save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps = None
        elif save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError(
                f"{_SAVE_CKPT_ERR} Received save_checkpoints_steps={save_checkpoints_steps!r}, "
                f"save_checkpoints_secs={save_checkpoints_secs!r}; pass only one."
            )

        tf_config = _read_tf_config()
        if tf_config:
            _log.info("TF_CONFIG environment variable: %s", tf_config)
        model_dir = _get_model_dir(tf_config, _path_to_str(model_dir))

        self._distribute_coordinator_mode: str | None = None
        RunConfig._replace(
            self,
            allowed_properties_list=_DEFAULT_REPLACEABLE_LIST,
            model_dir=model_dir,
            tf_random_seed=tf_random_seed,
            save_summary_steps=save_summary_steps,
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs,
            session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps,
            train_distribute=train_distribute,
            device_fn=device_fn,
            protocol=protocol,
            eval_distribute=eval_distribute,
            experimental_distribute=experimental_distribute,
            experimental_max_worker_delay_secs=experimental_max_worker_delay_secs,
            session_creation_timeout_secs=session_creation_timeout_secs,
            checkpoint_save_graph_def=checkpoint_save_graph_def,
        )

        if getattr(eval_distribute, "_train_only", False):  # FSDPStrategy shards training only
            raise ValueError(
                f"RunConfig(eval_distribute={type(eval_distribute).__name__}()): this strategy distributes "
                "training only. Evaluate with eval_distribute=tf.distribute.MultiWorkerMirroredStrategy() "
                "(every replica reads the full checkpoint) or with none.")

        def non_tpu(strategy: Any) -> bool:
            return bool(strategy) and not type(strategy).__name__.startswith("TPUStrategy")

        if non_tpu(train_distribute) or non_tpu(eval_distribute) or experimental_distribute:
            _log.info("Initializing RunConfig with distribution strategies.")
            self._init_run_config_with_strategies(tf_config)
        else:
            self._init_distributed_setting_from_environment_var(tf_config)

    # -- TF_CONFIG parsing ----------------------------------------------------------------

    def _init_distributed_setting_from_environment_var(self, tf_config: dict[str, Any]) -> None:
        self._service = _validate_service(tf_config.get(_SERVICE_KEY))
        self._cluster_spec = ClusterSpec(tf_config.get(_CLUSTER_KEY, {}))
        task_env = tf_config.get(_TASK_ENV_KEY, {}) or {}
        if not isinstance(task_env, dict):
            raise ValueError(f'"task" in TF_CONFIG must be a dict {{"type": ..., "index": ...}}; received {task_env!r}.')

        if self._cluster_spec and TaskType.MASTER in self._cluster_spec.jobs:
            self._init_distributed_setting_with_master(tf_config, task_env)
            return

        if self._cluster_spec:
            self._task_type, self._task_id = _validate_task_type_and_task_id(
                self._cluster_spec, task_env, TaskType.CHIEF
            )
            self._evaluation_master = _get_eval_session_master(self._task_type, tf_config)
            if self._task_type != TaskType.EVALUATOR:
                self._master = _get_session_master(self._cluster_spec, self._task_type, self._task_id, tf_config)
                self._num_ps_replicas = _count_ps(self._cluster_spec)
                self._num_worker_replicas = _count_worker(self._cluster_spec, TaskType.CHIEF)
                self._global_id_in_cluster: int | None = _get_global_id_in_cluster(
                    self._cluster_spec, self._task_type, self._task_id, TaskType.CHIEF
                )
            else:
                # The evaluator is not part of the training cluster.
                self._cluster_spec = ClusterSpec({})
                self._master = _LOCAL_MASTER
                self._num_ps_replicas = 0
                self._num_worker_replicas = 0
                self._global_id_in_cluster = None
            self._is_chief = self._task_type == TaskType.CHIEF
        else:
            # Local mode.
            self._task_type = task_env.get(_TASK_TYPE_KEY, TaskType.WORKER)
            try:
                self._task_id = int(task_env.get(_TASK_ID_KEY, 0))
            except (TypeError, ValueError):
                raise ValueError(
                    f"Task index in TF_CONFIG must be an integer; received {task_env.get(_TASK_ID_KEY)!r}."
                ) from None
            self._global_id_in_cluster = 0
            if self._task_type != TaskType.WORKER:
                raise ValueError(
                    'If "cluster" is not set in TF_CONFIG, task type must be WORKER; received '
                    f"{self._task_type!r}."
                )
            if self._task_id != 0:
                raise ValueError(
                    f'If "cluster" is not set in TF_CONFIG, task index must be 0; received {self._task_id}.'
                )
            self._master = tf_config.get(_SESSION_MASTER_KEY, _LOCAL_MASTER)
            self._evaluation_master = tf_config.get(_EVAL_SESSION_MASTER_KEY, _LOCAL_MASTER)
            self._is_chief = True
            self._num_ps_replicas = 0
            self._num_worker_replicas = 1

    def _init_distributed_setting_with_master(self, tf_config: dict[str, Any], task_env: dict[str, Any]) -> None:
        """The legacy cluster layout, with a `master` job instead of `chief`."""
        if TaskType.CHIEF in self._cluster_spec.jobs:
            raise ValueError(
                "If `master` node exists in `cluster`, job `chief` is not supported; received jobs "
                f"{self._cluster_spec.jobs}."
            )
        self._task_type, self._task_id = _validate_task_type_and_task_id(
            self._cluster_spec, task_env, TaskType.MASTER
        )
        if self._task_type == TaskType.EVALUATOR:
            raise ValueError("If `master` node exists in `cluster`, task_type `evaluator` is not supported.")
        self._global_id_in_cluster = _get_global_id_in_cluster(
            self._cluster_spec, self._task_type, self._task_id, TaskType.MASTER
        )
        self._master = _get_session_master(self._cluster_spec, self._task_type, self._task_id, tf_config)
        self._evaluation_master = _get_eval_session_master(self._task_type, tf_config)
        self._num_ps_replicas = _count_ps(self._cluster_spec)
        self._num_worker_replicas = _count_worker(self._cluster_spec, TaskType.MASTER)
        self._is_chief = self._task_type == TaskType.MASTER

    def _init_run_config_with_strategies(self, tf_config: dict[str, Any]) -> None:
        """TF's distribute-coordinator path, taken when a strategy is given."""
        experimental = self._experimental_distribute
        for kind in ("train_distribute", "eval_distribute"):
            nested = getattr(experimental, kind, None) if experimental is not None else None
            if nested:
                if getattr(self, "_" + kind):
                    raise ValueError(f"Either `{kind}` or `experimental_distribute.{kind}` can be set.")
                setattr(self, "_" + kind, nested)

        cluster_spec = ClusterSpec(tf_config.get(_CLUSTER_KEY, {}))
        self._init_distributed_setting_from_environment_var({})

        remote_cluster = getattr(experimental, "remote_cluster", None) if experimental is not None else None
        if self._train_distribute and remote_cluster:
            if cluster_spec:
                raise ValueError('Cannot set both "cluster_spec" of TF_CONFIG and `experimental_distribute.remote_cluster`')
            self._distribute_coordinator_mode = STANDALONE_CLIENT
            self._cluster_spec = ClusterSpec(remote_cluster)
            return

        if not tf_config or TaskType.MASTER in cluster_spec.jobs or not self._train_distribute:
            self._distribute_coordinator_mode = None
            self._init_distributed_setting_from_environment_var(tf_config)
            return

        # Independent workers: each worker's role is set later from its worker context.
        self._cluster_spec = cluster_spec
        self._distribute_coordinator_mode = INDEPENDENT_WORKER

    def _init_from_worker_context(self, task_type: str | None, task_id: int | None, is_chief: bool, master_target: str = "") -> None:
        """Sets the role of this worker once a distribution strategy has assigned it
        (TF's `_init_run_config_from_worker_context`)."""
        self._service = None
        self._task_type = task_type
        self._task_id = task_id
        self._evaluation_master = master_target
        self._master = master_target
        self._is_chief = is_chief
        if self._cluster_spec:
            if task_type != TaskType.EVALUATOR:
                self._num_ps_replicas = _count_ps(self._cluster_spec)
                self._num_worker_replicas = _count_worker(self._cluster_spec, TaskType.CHIEF)
                self._global_id_in_cluster = (
                    0
                    if not task_type
                    else _get_global_id_in_cluster(self._cluster_spec, task_type, int(task_id or 0), TaskType.CHIEF)
                )
            else:
                self._cluster_spec = ClusterSpec({})
                self._num_ps_replicas = 0
                self._num_worker_replicas = 0
                self._global_id_in_cluster = None
        else:
            self._global_id_in_cluster = 0
            self._num_ps_replicas = 0
            self._num_worker_replicas = 1

    # -- read-only properties -----------------------------------------------------------------

    model_dir = _read_only("model_dir", "The folder for checkpoints and summaries, or None (the Estimator picks one).")
    tf_random_seed = _read_only("tf_random_seed", "The random seed set before the model is built, or None.")
    save_summary_steps = _read_only("save_summary_steps", "Save summaries every this many steps (0: never).")
    save_checkpoints_steps = _read_only("save_checkpoints_steps", "Save a checkpoint every this many steps, or None.")
    save_checkpoints_secs = _read_only("save_checkpoints_secs", "Save a checkpoint every this many seconds, or None.")
    session_config = _read_only("session_config", "The `session_config` as given (unused: PyTorch has no session).")
    keep_checkpoint_max = _read_only("keep_checkpoint_max", "How many recent checkpoints to keep (0 or None: all).")
    keep_checkpoint_every_n_hours = _read_only(
        "keep_checkpoint_every_n_hours", "Also keep one checkpoint per this many hours of training."
    )
    log_step_count_steps = _read_only("log_step_count_steps", "Log loss and global_step/sec every this many steps.")
    train_distribute = _read_only("train_distribute", "The optional distribution strategy for training.")
    eval_distribute = _read_only("eval_distribute", "The optional distribution strategy for evaluation.")
    device_fn = _read_only("device_fn", "A function of `op` returning its device, overriding placement, or None.")
    protocol = _read_only("protocol", "The optional server protocol ('grpc' or 'grpc+verbs').")
    experimental_max_worker_delay_secs = _read_only(
        "experimental_max_worker_delay_secs", "The cap on a worker's start delay in seconds, or None."
    )
    session_creation_timeout_secs = _read_only(
        "session_creation_timeout_secs", "How long a worker waits for the model to be ready, in seconds."
    )
    checkpoint_save_graph_def = _read_only("checkpoint_save_graph_def", "Whether to write the graph with checkpoints.")
    cluster_spec = _read_only("cluster_spec", "The training cluster (empty when local, and for the evaluator).")
    task_type = _read_only("task_type", "This task's job name ('worker' when local).")
    task_id = _read_only("task_id", "This task's index within its job.")
    master = _read_only("master", "This task's master address: 'grpc://host:port' in a cluster, '' when local.")
    evaluation_master = _read_only(
        "evaluation_master", "The evaluation master ('' unless TF_CONFIG's eval_session_master sets it)."
    )
    is_chief = _read_only("is_chief", "True for the chief (or legacy master) task, and when training locally.")
    num_ps_replicas = _read_only("num_ps_replicas", "The number of `ps` tasks in the cluster.")
    num_worker_replicas = _read_only(
        "num_worker_replicas", "The number of `worker` tasks plus the chief (1 when local, 0 for the evaluator)."
    )
    global_id_in_cluster = _read_only(
        "global_id_in_cluster",
        "The global id in the training cluster: the chief is 0, then the other task types "
        "alphabetically by type and index, `ps` last; None for the evaluator.",
    )
    service = _read_only("service", "The platform-defined `service` dict from TF_CONFIG, or None.")

    # -- replace / copying / display ----------------------------------------------------------

    def replace(self, **kwargs: Any) -> RunConfig:
        """Returns a new instance of `RunConfig` replacing the given properties.

        Only the constructor arguments may be replaced. Replacing only
        `save_checkpoints_steps` sets `save_checkpoints_secs` to None, and vice versa.

        Raises:
          ValueError: a property may not be replaced, a value is invalid, or both
            `save_checkpoints_steps` and `save_checkpoints_secs` are set.
        """
        return RunConfig._replace(copy.deepcopy(self), allowed_properties_list=_DEFAULT_REPLACEABLE_LIST, **kwargs)

    @staticmethod
    def _replace(config: RunConfig, allowed_properties_list: list[str] | None = None, **kwargs: Any) -> RunConfig:
        allowed = allowed_properties_list or []
        for key, value in kwargs.items():
            if key not in allowed:
                raise ValueError(f"Replacing {key} is not supported. Allowed properties are {allowed}.")
            if key == "model_dir":
                value = _path_to_str(value)
            setattr(config, "_" + key, value)
        _validate_save_ckpt_with_replaced_keys(config, kwargs.keys())
        _validate_properties(config)
        return config

    def __deepcopy__(self, memo: dict) -> RunConfig:
        new = RunConfig.__new__(RunConfig)
        memo[id(self)] = new
        for key, value in vars(self).items():
            setattr(new, key, value if key in _SHARED_ON_COPY else copy.deepcopy(value, memo))
        return new

    def _asdict(self) -> dict[str, Any]:
        """The stored fields as TF logs them ("Using config: {...}", the keys of `vars(config)`)."""
        return dict(vars(self))

    def __repr__(self) -> str:
        fields = ", ".join(f"{k.lstrip('_')}={v!r}" for k, v in vars(self).items())
        return f"RunConfig({fields})"
