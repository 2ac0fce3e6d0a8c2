"""`torchestimator serve`: the flags of `tensorflow_model_server`, and running the server."""

from __future__ import annotations

import argparse
import logging
import sys

from torchestimator.serving._limits import (
    DEFAULT_BODY_TIMEOUT_SECONDS,
    DEFAULT_HEADER_TIMEOUT_SECONDS,
    DEFAULT_KEEP_ALIVE_SECONDS,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_MAX_QUEUE,
    DEFAULT_MAX_REQUESTS_PER_CONNECTION,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_MAX_ROWS,
)

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
    add("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: every "
        "interface, as TF Serving; there is no authentication, so pass 127.0.0.1 to serve this "
        "machine only)")
    add("--port", type=int, default=0,
        help="gRPC port: gRPC is not served yet; a non-zero value only logs a warning")
    add("--rest_api_num_threads", type=int, default=0,
        help="threads answering REST requests (default one per core, 2 to 16)")
    add("--rest_api_timeout_in_ms", type=int, default=30000,
        help="answer 504 when a request takes longer, and stop its work (default 30000; 0: no "
        "limit)")
    add("--file_system_poll_wait_seconds", type=float, default=1.0,
        help="how often to look for new versions (default 1; 0: load once at start)")
    add_limit_arguments(parser)
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


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the flags of the server's limits (beyond TF Serving, but for --max_body_bytes)."""
    limits = parser.add_argument_group(
        "limits", "what one request or connection may cost; past a limit the answer says which "
        "limit and flag (see torchestimator.serving._limits)")
    add = limits.add_argument
    add("--max_body_bytes", type=int, default=DEFAULT_MAX_BODY_BYTES,
        help="refuse larger request bodies with 413, unread (default 64 MiB)")
    add("--max_request_rows", type=int, default=DEFAULT_MAX_ROWS,
        help="refuse requests with more instances/examples/rows with 413 (default "
        f"{DEFAULT_MAX_ROWS}; 0: no limit)")
    add("--max_response_bytes", type=int, default=DEFAULT_MAX_RESPONSE_BYTES,
        help="refuse requests whose answer would be larger with 413 (default 64 MiB; 0: no "
        "limit)")
    add("--rest_api_max_queue", type=int, default=DEFAULT_MAX_QUEUE,
        help="answer 503 at once past this many requests queued or running (default "
        f"{DEFAULT_MAX_QUEUE})")
    add("--body_timeout_seconds", type=float, default=DEFAULT_BODY_TIMEOUT_SECONDS,
        help="answer 408 and close the connection when a request body takes longer to arrive "
        f"(default {DEFAULT_BODY_TIMEOUT_SECONDS:g}; 0: no limit)")
    add("--header_timeout_seconds", type=float, default=DEFAULT_HEADER_TIMEOUT_SECONDS,
        help="answer 408 and close the connection when a request's headers take longer to "
        f"arrive, or a new connection sends nothing (default "
        f"{DEFAULT_HEADER_TIMEOUT_SECONDS:g}; 0: no limit)")
    add("--max_header_bytes", type=int, default=DEFAULT_MAX_HEADER_BYTES,
        help="answer 431 and close the connection past this many bytes of request headers "
        "(default 64 KiB)")
    add("--keep_alive_timeout_seconds", type=float, default=DEFAULT_KEEP_ALIVE_SECONDS,
        help=f"close idle keep-alive connections after this long (default "
        f"{DEFAULT_KEEP_ALIVE_SECONDS:g})")
    add("--rest_api_max_connections", type=int, default=0,
        help="answer 503 past this many open connections, and close new ones at once past 1.25x "
        "it (default 0: 4/5 of the process's file-descriptor limit less 128, 8 to 1024)")
    add("--max_requests_per_connection", type=int, default=DEFAULT_MAX_REQUESTS_PER_CONNECTION,
        help="close a keep-alive connection after answering this many requests (default 0: no "
        "limit)")


def _check_limits(args: argparse.Namespace) -> str | None:
    """What is wrong with the limit flags, or None."""
    for flag in ("max_body_bytes", "max_header_bytes", "rest_api_max_queue",
                 "keep_alive_timeout_seconds"):
        if getattr(args, flag) <= 0:
            return f"--{flag} must be > 0; got {getattr(args, flag)}"
    for flag in ("max_request_rows", "max_response_bytes", "body_timeout_seconds",
                 "header_timeout_seconds", "rest_api_max_connections",
                 "max_requests_per_connection", "rest_api_timeout_in_ms"):
        if getattr(args, flag) < 0:
            return f"--{flag} must be >= 0 (0: no limit); got {getattr(args, flag)}"
    return None


def _none_if_zero(value: float) -> float | None:
    return value if value > 0 else None


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
    problem = _check_limits(args)
    if problem is not None:
        return fail(problem)
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
              inter_op_threads=args.tensorflow_inter_op_parallelism,
              max_rows=_none_if_zero(args.max_request_rows),
              max_response_bytes=_none_if_zero(args.max_response_bytes),
              max_queue=args.rest_api_max_queue,
              body_timeout_seconds=_none_if_zero(args.body_timeout_seconds),
              header_timeout_seconds=_none_if_zero(args.header_timeout_seconds),
              max_header_bytes=args.max_header_bytes,
              keep_alive_seconds=args.keep_alive_timeout_seconds,
              max_connections=_none_if_zero(args.rest_api_max_connections),
              max_requests_per_connection=args.max_requests_per_connection)
    except FileNotFoundError as error:
        return fail(str(error))
    except ImportError as error:
        return fail(f"{error}; install the serving extra: pip install 'torchestimator[serving]'")
    return 0
