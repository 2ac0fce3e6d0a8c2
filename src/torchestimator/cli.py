"""The `torchestimator` command (also `python -m torchestimator`).

    torchestimator --version
    torchestimator inspect-checkpoint MODEL_DIR_OR_PREFIX [--tensor NAME]
    torchestimator convert-checkpoint TF_MODEL_DIR_OR_PREFIX OUT_DIR
    torchestimator serve --rest_api_port=8501 --model_name=NAME --model_base_path=DIR
    torchestimator launch [--tf_config JSON] [torchrun options] train.py [ARGS]
    torchestimator demo [--steps 2000] [--model_dir DIR]

`inspect-checkpoint` lists a checkpoint's variables with their shapes and dtypes (as
TensorFlow's `inspect_checkpoint` tool), or prints one tensor. `serve` serves
exports with TensorFlow Serving's REST API (see `torchestimator.serving`).
`convert-checkpoint` writes a TensorFlow model_dir's checkpoints in our format
(`torchestimator.migration.convert_checkpoint`). Both read TensorFlow's
checkpoints as well as ours. `demo` runs the Iris demo (TensorFlow's premade-estimator
tutorial: train, evaluate, export, predict from the export; then the same with Keras).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

import numpy as np

from torchestimator import _demo as demo
from torchestimator.version import TORCHESTIMATOR_VERSION, VERSION


def _version() -> str:
    return f"{TORCHESTIMATOR_VERSION} (TensorFlow API {VERSION})"


def _inspect_checkpoint(args: argparse.Namespace) -> int:
    from torchestimator._engine.checkpoint import (  # lazy: heavy (torchestimator._engine.checkpoint, 109 ms)
        list_variables,
        load_variable,
    )

    # loading _tf_formats registers TensorFlow's checkpoint format with _engine.checkpoint
    from torchestimator._tf_formats.checkpoint_reader import (  # lazy: heavy (torchestimator._tf_formats.checkpoint_reader, 96 ms)
        dtype_names,
    )

    try:
        if args.tensor:
            value = load_variable(args.path, args.tensor)
            with np.printoptions(threshold=args.summarize, edgeitems=3):
                print(f"tensor_name:  {args.tensor}\n{value}")
            return 0
        dtypes = dtype_names(args.path)  # TF's or our format
        for name, shape in list_variables(args.path):
            print(f"{name} ({','.join(str(d) for d in shape)}) {dtypes.get(name, '')}".rstrip())
    except (FileNotFoundError, KeyError, ValueError, OSError) as error:
        print(f"torchestimator inspect-checkpoint: {error}", file=sys.stderr)
        return 1
    return 0


def _convert_checkpoint(args: argparse.Namespace) -> int:
    from torchestimator._tf_formats.convert import (  # lazy: heavy (torchestimator._tf_formats.convert, 94 ms)
        convert_checkpoint,
    )

    try:
        written = convert_checkpoint(args.source, args.output_dir)
    except (FileNotFoundError, ValueError, OSError) as error:
        print(f"torchestimator convert-checkpoint: {error}", file=sys.stderr)
        return 1
    for prefix in written:
        print(f"wrote {prefix}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    if args.steps < 1:
        print(f"torchestimator demo: --steps must be a positive number of training steps, "
              f"got {args.steps}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("torchestimator").setLevel(logging.INFO)  # TF's progress lines
    try:
        result = demo.run(model_dir=args.model_dir, steps=args.steps)
    except OSError as error:
        print(f"torchestimator demo: {error}", file=sys.stderr)
        return 1
    if not result.export_matches_estimator:
        print("torchestimator demo: the export predicts other classes than the Estimator "
              f"that wrote it ({result.export_path}); please report this", file=sys.stderr)
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
    convert = commands.add_parser(
        "convert-checkpoint",
        help="write a TensorFlow model_dir's checkpoints in torchestimator's format",
        description="Convert every checkpoint of the TensorFlow model_dir TF_MODEL_DIR (or the "
        "one checkpoint PREFIX) into OUT_DIR, in torchestimator's format, keeping TF's names.",
    )
    convert.add_argument("source", metavar="TF_MODEL_DIR_OR_PREFIX")
    convert.add_argument("output_dir", metavar="OUT_DIR")
    convert.set_defaults(run=_convert_checkpoint)
    from torchestimator.serving import (  # lazy: heavy (torchestimator.serving, 115 ms)
        _cli as serving_cli,
    )

    serve = commands.add_parser(
        "serve", help="serve exports over HTTP with TensorFlow Serving's REST API",
        description=serving_cli.DESCRIPTION)
    serving_cli.add_arguments(serve)
    serve.set_defaults(run=serving_cli.run)
    demo = commands.add_parser(
        "demo", help="run the Iris demo: train, evaluate, export, predict from the export",
        description="Run the Iris demo, TensorFlow's premade-estimator tutorial: train a "
        "DNNClassifier on the bundled Iris data, evaluate it, export it for serving and predict "
        "from the export; then the same with a Keras model. Exits 1 if the export does not "
        "predict what the Estimator predicts.")
    demo.add_argument("--model_dir", metavar="DIR", default=None,
                      help="where the data, checkpoints, export and Keras model are written "
                      "(default: a new temporary folder, printed at the end)")
    demo.add_argument("--steps", type=int, default=2000,
                      help="the Estimator's training steps (default 2000, as TF's tutorial); "
                      "the Keras model trains for steps/20 epochs")
    demo.set_defaults(run=_demo)
    commands.add_parser(  # parsed by torchestimator.distribute._launch (torchrun's options pass through)
        "launch", add_help=False, help="start a training script on several processes (torchrun; TF_CONFIG "
        "clusters too)", description="See `torchestimator launch --help`.")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the `torchestimator` command with `argv` (default: the process's arguments);
    returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["launch"]:
        from torchestimator.distribute._launch import (  # lazy: heavy (torchestimator.distribute._launch, 222 ms)
            run as launch,
        )

        return launch(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return args.run(args)


if __name__ == "__main__":  # pragma: no cover - `python -m torchestimator.cli`
    sys.exit(main())
