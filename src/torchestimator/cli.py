"""The `torchestimator` command (also `python -m torchestimator`).

    torchestimator --version
    torchestimator inspect-checkpoint MODEL_DIR_OR_PREFIX [--tensor NAME]

`inspect-checkpoint` lists a checkpoint's variables with their shapes (as
TensorFlow's `inspect_checkpoint` tool), or prints one tensor. Serving and
checkpoint conversion arrive with their issues.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np


def _version() -> str:
    from torchestimator import __version__

    return __version__


def _inspect_checkpoint(args: argparse.Namespace) -> int:
    from torchestimator._engine.checkpoint import list_variables, load_variable

    try:
        if args.tensor:
            value = load_variable(args.path, args.tensor)
            with np.printoptions(threshold=args.summarize, edgeitems=3):
                print(f"tensor_name:  {args.tensor}\n{value}")
            return 0
        for name, shape in list_variables(args.path):
            print(f"{name} ({','.join(str(d) for d in shape)})")
    except (FileNotFoundError, KeyError, ValueError, OSError) as error:
        print(f"torchestimator inspect-checkpoint: {error}", file=sys.stderr)
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchestimator",
        description="TensorFlow's high-level API (Keras, Estimator, feature columns, tf.data) "
        "on PyTorch: command-line tools.",
    )
    parser.add_argument("--version", action="version", version=f"torchestimator {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    inspect = commands.add_parser(
        "inspect-checkpoint",
        help="list a checkpoint's variables and shapes, or print one tensor",
        description="List the variables of the latest checkpoint in MODEL_DIR (or of the "
        "checkpoint PREFIX) with their shapes, or print one tensor with --tensor.",
    )
    inspect.add_argument("path", metavar="MODEL_DIR_OR_PREFIX")
    inspect.add_argument("--tensor", metavar="NAME", help="print this tensor's value")
    inspect.add_argument("--summarize", type=int, default=1000,
                         help="print at most this many values of a tensor (default 1000)")
    inspect.set_defaults(run=_inspect_checkpoint)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the `torchestimator` command with `argv` (default: the process's arguments);
    returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return args.run(args)


if __name__ == "__main__":  # pragma: no cover - `python -m torchestimator.cli`
    sys.exit(main())
