"""`torchestimator serve`: the flags of `tensorflow_model_server`, and running the server."""

from __future__ import annotations

import argparse
import logging
import sys

DESCRIPTION = (
    "Serve the newest export under --model_base_path (a directory of numbered version "
    "directories) over HTTP with TensorFlow Serving's REST API, started as "
    "tensorflow_model_server is: torchestimator serve --rest_api_port=8501 "
    "--model_name=NAME --model_base_path=DIR")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds `serve`'s flags (TF Serving's names) to `parser`."""
    add = parser.add_argument
    add("--model_name", default="default", help="the NAME in /v1/models/NAME (default 'default')")
    add("--model_base_path", help="directory holding the model's numbered version directories "
        "(an export_dir_base); the newest is served")
    add("--rest_api_port", type=int, default=8501, help="HTTP/REST port (default 8501)")
    add("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0, all)")
    add("--port", type=int, default=0,
        help="gRPC port: gRPC is not served yet; a non-zero value only logs a warning")
    add("--rest_api_num_threads", type=int, default=0,
        help="threads answering REST requests (default one per core, 2 to 16)")
    add("--rest_api_timeout_in_ms", type=int, default=30000,
        help="answer 504 when a request takes longer (default 30000; 0: no limit)")
    add("--file_system_poll_wait_seconds", type=float, default=1.0,
        help="how often to look for new versions (default 1; 0: load once at start)")
    add("--max_body_bytes", type=int, default=64 * 1024 * 1024,
        help="refuse larger request bodies with 413 (default 64 MiB)")
    add("--rest_api_workers", type=int, default=1,
        help="processes serving the port, each with the model loaded (beyond TF Serving; "
        "default 1)")
    add("--tensorflow_intra_op_parallelism", type=int, default=0,
        help="threads one op may use (torch.set_num_threads; default 0: torch's choice)")
    add("--tensorflow_inter_op_parallelism", type=int, default=0,
        help="threads for independent ops (torch.set_num_interop_threads; default 0)")
    add("--model_config_file", help="not supported yet: serve one model with --model_name and "
        "--model_base_path")
    add("--enable_batching", nargs="?", const="true", default="false",
        help="not supported yet (requests are not batched together)")
    add("--log_level", default="info", choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default info)")


def run(args: argparse.Namespace) -> int:
    """Runs `torchestimator serve` with parsed `args`; returns the exit status."""
    def fail(message: str) -> int:
        print(f"torchestimator serve: {message}", file=sys.stderr)
        return 2

    if args.model_config_file:
        return fail("--model_config_file is not supported yet; serve one model with "
                    "--model_name and --model_base_path")
    if str(args.enable_batching).lower() not in ("false", "0", "no"):
        return fail("--enable_batching is not supported yet; leave it out")
    if not args.model_base_path:
        return fail("--model_base_path is required (the directory of numbered versions)")
    if not 0 < args.rest_api_port < 65536:
        return fail(f"--rest_api_port must be a port number 1..65535; got {args.rest_api_port}")
    if args.rest_api_workers < 1:
        return fail(f"--rest_api_workers must be >= 1; got {args.rest_api_workers}")
    if args.max_body_bytes <= 0:
        return fail(f"--max_body_bytes must be > 0; got {args.max_body_bytes}")
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(message)s")
    if args.port:
        logging.getLogger("torchestimator.serving").warning(
            "--port=%d: gRPC is not served yet; serving HTTP/REST on port %d only", args.port,
            args.rest_api_port)
    from torchestimator.serving._server import serve

    timeout = args.rest_api_timeout_in_ms / 1000.0 if args.rest_api_timeout_in_ms > 0 else None
    try:
        serve(args.model_name, args.model_base_path, rest_api_port=args.rest_api_port,
              host=args.host, num_threads=args.rest_api_num_threads or None,
              max_body_bytes=args.max_body_bytes, timeout_seconds=timeout,
              poll_seconds=args.file_system_poll_wait_seconds, log_level=args.log_level,
              workers=args.rest_api_workers,
              intra_op_threads=args.tensorflow_intra_op_parallelism,
              inter_op_threads=args.tensorflow_inter_op_parallelism)
    except FileNotFoundError as error:
        return fail(str(error))
    except ImportError as error:
        return fail(f"{error}; install the serving extra: pip install 'torchestimator[serving]'")
    return 0
