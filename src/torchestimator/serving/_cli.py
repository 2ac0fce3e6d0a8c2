"""`torchestimator serve`: the flags of `tensorflow_model_server`, and running the server."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

import torch

from torchestimator import __version__
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
from torchestimator.serving._model_config import parse_batching_parameters, parse_model_config
from torchestimator.serving._monitoring import read_monitoring_config
from torchestimator.serving._server import serve

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
    add("--port", type=int, default=None,
        help="gRPC port: TF Serving's PredictionService and ModelService (default 8500, left "
        "out with a warning when in use; 0: no gRPC)")
    add("--grpc_max_threads", type=int, default=0,
        help="threads answering the gRPC calls that do not run on the gRPC server's event "
        "loop (large ones, those naming a version, those measured expensive) (default 0: as "
        "many as --rest_api_num_threads)")
    add("--monitoring_config_file", help="TF Serving's text-format MonitoringConfig: with "
        "prometheus_config { enable: true, path: \"/monitoring/prometheus/metrics\" } that "
        "REST path answers Prometheus metrics")
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
        help="threads one op may use (torch.set_num_threads; default 0: one, as requests "
        "already run side by side on the server's threads)")
    add("--tensorflow_inter_op_parallelism", type=int, default=0,
        help="threads for independent ops (torch.set_num_interop_threads; default 0)")
    add("--model_config_file", help="TF Serving's text-format ModelServerConfig: several "
        "models, each with its base_path, model_version_policy and version_labels (then "
        "--model_name and --model_base_path are ignored)")
    add("--model_config_file_poll_wait_seconds", type=float, default=0.0,
        help="read --model_config_file again this often and apply its changes: new models "
        "loaded, removed ones unloaded, policies and labels changed (default 0: read once)")
    add("--allow_version_labels_for_unavailable_models", type=_bool, nargs="?", const=True,
        default=False, metavar="BOOL",
        help="let a version label name a version that is not loaded (yet) (default false)")
    add("--enable_batching", type=_bool, nargs="?", const=True, default=False, metavar="BOOL",
        help="join concurrent requests to the same model version and signature into one model "
        "call (default false)")
    add("--batching_parameters_file", help="TF Serving's text-format BatchingParameters "
        "(max_batch_size, batch_timeout_micros, num_batch_threads, max_enqueued_batches, "
        "allowed_batch_sizes); TF Serving's defaults without it: 1000, 0, one per core, 10")
    add("--device", default=None,
        help="the device the loaded models run on: 'cpu', 'cuda', 'cuda:1' (beyond TF Serving; "
        "default: $TORCHESTIMATOR_DEVICE, else CUDA when available, else the CPU). Exports "
        "hold no device: one written on a GPU loads on a CPU-only machine")
    add("--version", action="store_true", help="print the server's version and exit")
    add("--log_level", default="info", choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default info)")
    add_tf_serving_arguments(parser)


def _bool(text: str) -> bool:
    """A TF Serving boolean flag's value: true/false, 1/0, yes/no."""
    value = str(text).strip().lower()
    if value in ("true", "1", "yes", "t", "y"):
        return True
    if value in ("false", "0", "no", "f", "n"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false; got {text!r}")


# tensorflow_model_server's flags that have no meaning here: (flag, type, why). They are taken,
# so that launch scripts written for TF Serving keep working, and a warning names each one given.
IGNORED_FLAGS: tuple[tuple[str, Any, str], ...] = (
    ("grpc_socket_path", str, "gRPC is served on --port only, not on a UNIX socket"),
    ("rest_api_enable_cors_support", _bool, "no CORS headers are sent; put a proxy in front"),
    ("enable_per_model_batching_parameters", _bool,
     "one --batching_parameters_file applies to every model"),
    ("num_load_threads", int, "versions load one at a time, while the others serve"),
    ("num_unload_threads", int, "versions unload when their last request is answered"),
    ("max_num_load_retries", int,
     "a version that fails to load is tried again when its directory changes"),
    ("load_retry_interval_micros", int,
     "a version that fails to load is tried again when its directory changes"),
    ("flush_filesystem_caches", _bool, "there are no file-system caches to flush"),
    ("tensorflow_session_parallelism", int,
     "use --tensorflow_intra_op_parallelism and --tensorflow_inter_op_parallelism"),
    ("tensorflow_session_config_file", str, "there is no TensorFlow session"),
    ("use_alts_credentials", _bool, "gRPC is served without credentials"),
    ("ssl_config_file", str, "gRPC is served without TLS; put a TLS proxy in front"),
    ("platform_config_file", str, "exports of torchestimator are the only platform"),
    ("per_process_gpu_memory_fraction", float,
     "torch allocates GPU memory as needed (PYTORCH_CUDA_ALLOC_CONF tunes it)"),
    ("saved_model_tags", str, "an export has one graph, served whatever the tags"),
    ("grpc_channel_arguments", str, "gRPC channel arguments are not configurable"),
    ("enable_model_warmup", _bool, "exports carry no warmup requests"),
    ("num_request_iterations_for_warmup", int, "exports carry no warmup requests"),
    ("remove_unused_fields_from_bundle_metagraph", _bool, "there is no MetaGraphDef"),
    ("prefer_tflite_model", _bool, "TF Lite models are not served"),
    ("num_tflite_pools", int, "TF Lite models are not served"),
    ("num_tflite_interpreters_per_pool", int, "TF Lite models are not served"),
    ("enable_signature_method_name_check", _bool,
     ":classify and :regress always check the signature's method_name"),
    ("xla_cpu_compilation_enabled", _bool, "there is no XLA"),
    ("xla_gpu_compilation_enabled", _bool, "there is no XLA"),
    ("enable_profiler", _bool, "there is no profiler service"),
    ("thread_pool_factory_config_file", str, "thread pools are not configurable by file"),
    ("mixed_precision", str, "exports run in the precision they were saved in"),
    ("skip_initialize_tpu", _bool, "there are no TPUs"),
    ("enable_grpc_healthcheck_service", _bool, "there is no gRPC health service"),
    ("enable_serialization_as_tensor_content", _bool,
     "gRPC answers fill the typed value fields"),
)


def add_tf_serving_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the tensorflow_model_server flags that do not apply here (`IGNORED_FLAGS`, but
    those `parser` has already): taken, and warned about when given."""
    group = parser.add_argument_group(
        "TensorFlow Serving flags without effect here", "taken so that tensorflow_model_server "
        "command lines keep working; each one given is named in a warning")
    taken = set(parser._option_string_actions)  # (flags another part already added)
    for flag, kind, why in IGNORED_FLAGS:
        if f"--{flag}" in taken:
            continue
        if kind is _bool:
            group.add_argument(f"--{flag}", type=_bool, nargs="?", const=True, default=None,
                               metavar="BOOL", help=f"ignored: {why}")
        else:
            group.add_argument(f"--{flag}", type=kind, default=None, help=f"ignored: {why}")


def warn_ignored_flags(args: argparse.Namespace) -> list[str]:
    """Logs one warning per ignored TF Serving flag given in `args`; returns their names."""
    given = []
    for flag, _, why in IGNORED_FLAGS:
        value = getattr(args, flag, None)
        if value is not None and not isinstance(value, argparse.Action):
            given.append(flag)
            logging.getLogger("torchestimator.serving").warning(
                "--%s=%s is a tensorflow_model_server flag without effect here (ignored): %s",
                flag, value, why)
    return given


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


def _check_model_files(args: argparse.Namespace) -> str | None:
    """What is wrong with --model_config_file or --batching_parameters_file, or None."""

    if args.model_config_file_poll_wait_seconds < 0:
        return ("--model_config_file_poll_wait_seconds must be >= 0 (0: read once); got "
                f"{args.model_config_file_poll_wait_seconds}")
    try:
        if args.model_config_file:
            if not parse_model_config(args.model_config_file):
                return (f"--model_config_file {args.model_config_file!r} configures no model; "
                        "give model_config_list { config { name: ... base_path: ... } }")
        if args.batching_parameters_file and not args.enable_batching:
            logging.getLogger("torchestimator.serving").warning(
                "--batching_parameters_file is ignored without --enable_batching")
        elif args.enable_batching:
            parse_batching_parameters(args.batching_parameters_file)
    except ValueError as error:
        return str(error)
    return None


def _none_if_zero(value: float) -> float | None:
    return value if value > 0 else None


def run(args: argparse.Namespace) -> int:
    """Runs `torchestimator serve` with parsed `args`; returns the exit status."""
    def fail(message: str) -> int:
        print(f"torchestimator serve: {message}", file=sys.stderr)
        return 2

    if args.version:
        print(f"TensorFlow ModelServer: torchestimator {__version__}")
        return 0
    if not args.model_base_path and not args.model_config_file:
        return fail("--model_base_path is required (the directory of numbered versions), or "
                    "--model_config_file")
    problem = _check_model_files(args)
    if problem is not None:
        return fail(problem)
    if getattr(args, "device", None):
        try:
            device = torch.device(args.device)
        except RuntimeError:
            return fail(f"--device must be a torch device such as 'cpu' or 'cuda:0'; got {args.device!r}")
        if device.type == "cuda" and not torch.cuda.is_available():
            return fail(f"--device {args.device}: this machine has no CUDA device; use --device cpu")
        os.environ["TORCHESTIMATOR_DEVICE"] = str(device)  # the workers inherit it
    if not 0 < args.rest_api_port < 65536:
        return fail(f"--rest_api_port must be a port number 1..65535; got {args.rest_api_port}")
    if args.rest_api_workers < 1:
        return fail(f"--rest_api_workers must be >= 1; got {args.rest_api_workers}")
    problem = _check_limits(args)
    if problem is not None:
        return fail(problem)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(message)s")
    warn_ignored_flags(args)
    # gRPC (--port) and metrics (--monitoring_config_file): serving/_grpc.py, _monitoring.py
    grpc_port = 8500 if args.port is None else args.port
    if args.grpc_max_threads < 0:
        return fail(f"--grpc_max_threads must be >= 1 (0: as many as --rest_api_num_threads); "
                    f"got {args.grpc_max_threads}")
    if not 0 <= grpc_port < 65536 or grpc_port == args.rest_api_port:
        return fail(f"--port must be a port number 1..65535 other than --rest_api_port (0: no "
                    f"gRPC); got {grpc_port}")
    prometheus_path = None
    if args.monitoring_config_file:
        try:
            prometheus_path = read_monitoring_config(args.monitoring_config_file)
        except (OSError, ValueError) as error:
            return fail(f"--monitoring_config_file: {error}")

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
              max_requests_per_connection=args.max_requests_per_connection,
              model_config_file=args.model_config_file or None,
              model_config_file_poll_wait_seconds=args.model_config_file_poll_wait_seconds,
              allow_version_labels_for_unavailable_models=(
                  args.allow_version_labels_for_unavailable_models),
              enable_batching=args.enable_batching,
              batching_parameters_file=args.batching_parameters_file or None,
              grpc_port=grpc_port, grpc_port_optional=args.port is None,
              grpc_max_threads=args.grpc_max_threads or None,
              prometheus_path=prometheus_path)
    except OSError as error:  # a missing base path; the gRPC port in use (--port)
        return fail(str(error))
    except ValueError as error:  # a version label naming a version that did not load
        return fail(str(error))
    except ImportError as error:
        return fail(f"{error}; install the serving extra: pip install 'torchestimator[serving]'")
    return 0
