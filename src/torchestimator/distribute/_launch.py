"""`torchestimator launch`: `torch.distributed.run` (torchrun), also driven by a TF_CONFIG cluster.

    torchestimator launch --nproc_per_node=2 train.py --epochs 3
    TF_CONFIG='{"cluster": {...}, "task": {"type": "worker", "index": 0}}' torchestimator launch train.py
    torchestimator launch --tf_config=cluster.json --max_restarts=2 train.py

Every option of torchrun is passed through unchanged. What this adds:

* `--tf_config JSON_OR_FILE` (or the `TF_CONFIG` variable): a TF cluster. Its
  training tasks (chief, then workers by index) become torchrun's nodes: `--nnodes`
  is their number, `--node_rank` this task's place, the chief's `host:port` is the
  rendezvous (`--master_addr`/`--master_port`). A `ps` task has nothing to do and
  exits with status 0; an `evaluator` runs the program once, without torchrun.
* One machine without rendezvous options gets `--standalone` (a free local port).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Sequence

from torchestimator.distribute._cluster import position_from_tf_config

_log = logging.getLogger("torchestimator")

USAGE = """usage: torchestimator launch [--tf_config JSON_OR_FILE] [torchrun options] SCRIPT [ARGS...]

Starts SCRIPT on every process of a training job with torch.distributed.run (torchrun);
tf.distribute strategies in SCRIPT then join the job. All of torchrun's options are accepted
(--nproc_per_node, --nnodes, --node_rank, --master_addr, --master_port, --max_restarts, ...).
--tf_config (or the TF_CONFIG environment variable) describes a TensorFlow cluster instead:
its chief and workers become torchrun's nodes, ps tasks exit 0, an evaluator runs SCRIPT alone.
"""

_RENDEZVOUS_OPTIONS = ("--rdzv_endpoint", "--rdzv-endpoint", "--master_addr", "--master-addr", "--master_port",
                       "--master-port", "--nnodes", "--standalone", "--rdzv_backend", "--rdzv-backend")


def _split_options(argv: list[str]) -> tuple[list[str], list[str]]:
    """(launcher options, [script, *script args]): the script is the first argument that is not an
    option or an option's value."""
    from torch.distributed.run import get_args_parser  # lazy: heavy (torch.distributed.run, 320 ms)

    parser = get_args_parser()
    takes_value = {s for a in parser._actions if a.option_strings and a.nargs != 0 for s in a.option_strings}
    takes_value |= {"--tf_config", "--tf-config"}
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            return argv[:index], argv[index + 1:]
        if not arg.startswith("-"):
            return argv[:index], argv[index:]
        index += 1 if ("=" in arg or arg not in takes_value) else 2
    return argv, []


def _pop_option(options: list[str], names: Sequence[str]) -> str | None:
    for i, arg in enumerate(options):
        for name in names:
            if arg == name and i + 1 < len(options):
                value = options[i + 1]
                del options[i:i + 2]
                return value
            if arg.startswith(name + "="):
                del options[i]
                return arg.split("=", 1)[1]
    return None


def _read_tf_config(value: str | None) -> dict:
    if value is None:
        value = os.environ.get("TF_CONFIG", "")
        where = "the TF_CONFIG environment variable"
    else:
        where = "--tf_config"
        if os.path.isfile(value):
            with open(value, encoding="utf-8") as f:
                value = f.read()
            where = f"--tf_config file {value!r:.60}"
    if not value.strip():
        return {}
    try:
        config = json.loads(value)
    except ValueError as e:
        raise ValueError(f"{where} is not valid JSON ({e}); received {value!r:.200}.") from None
    if not isinstance(config, dict):
        raise ValueError(f"{where} must hold a JSON object; received {value!r:.200}.")
    return config


def torchrun_argv(argv: Sequence[str]) -> tuple[list[str] | None, dict]:
    """The arguments for `torch.distributed.run.main`, and the TF_CONFIG read (its role decides
    what to run). None instead of arguments when this task runs no torchrun (ps, evaluator)."""
    options, script = _split_options(list(argv))
    if not script:
        raise ValueError("torchestimator launch: name the training script to run, e.g. "
                         "`torchestimator launch --nproc_per_node=2 train.py`.")
    tf_config = _read_tf_config(_pop_option(options, ("--tf_config", "--tf-config")))
    if tf_config.get("cluster"):
        position = position_from_tf_config(tf_config)
        if position.task_type in ("ps", "evaluator"):
            return None, tf_config
        if not any(o.split("=")[0] in _RENDEZVOUS_OPTIONS for o in options):
            options += [f"--nnodes={position.world_size}", f"--node_rank={position.rank}",
                        f"--master_addr={position.master_addr}", f"--master_port={position.master_port}"]
    elif not any(o.split("=")[0] in _RENDEZVOUS_OPTIONS for o in options):
        options.append("--standalone")
    return options + script, tf_config


def run(argv: Sequence[str]) -> int:
    """Runs `torchestimator launch ARGV`; returns the exit status."""
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    try:
        args, tf_config = torchrun_argv(argv)
    except ValueError as e:
        print(f"torchestimator launch: {e}", file=sys.stderr)
        return 2
    if args is None:
        task = tf_config.get("task", {})
        if task.get("type") == "ps":
            print(f"torchestimator launch: ps task {task.get('index', 0)} is not needed (chief and workers train "
                  "synchronously with torch.distributed); exiting with status 0.", file=sys.stderr)
            return 0
        options, script = _split_options(list(argv))
        command = [sys.executable, *script] if script[0].endswith(".py") or os.path.isfile(script[0]) else script
        return subprocess.call(command)
    from torch.distributed.elastic.multiprocessing.errors import (  # lazy: heavy (torch.distributed.elastic.multiprocessing.errors, 108 ms)
        ChildFailedError,
    )
    from torch.distributed.run import (  # lazy: heavy (torch.distributed.run, 65 ms)
        main as torchrun_main,
    )

    try:
        torchrun_main(args)
    except ChildFailedError as e:
        print(f"torchestimator launch: a training process failed:\n{e}", file=sys.stderr)
        return 1
    return 0
