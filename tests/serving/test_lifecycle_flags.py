"""`torchestimator serve` takes every tensorflow_model_server flag: the ones that apply work,
the others are taken with a warning naming them (so TF Serving launch scripts keep working)."""

from __future__ import annotations

import logging

import pytest

from torchestimator.cli import _parser, main
from torchestimator.serving._cli import IGNORED_FLAGS, warn_ignored_flags

# tensorflow_model_server's flags (tensorflow_serving/model_servers/main.cc)
TF_SERVING_FLAGS = [
    "port", "grpc_socket_path", "rest_api_port", "rest_api_num_threads",
    "rest_api_timeout_in_ms", "rest_api_enable_cors_support", "enable_batching",
    "allow_version_labels_for_unavailable_models", "batching_parameters_file",
    "enable_per_model_batching_parameters", "model_config_file",
    "model_config_file_poll_wait_seconds", "model_name", "model_base_path", "num_load_threads",
    "num_unload_threads", "max_num_load_retries", "load_retry_interval_micros",
    "file_system_poll_wait_seconds", "flush_filesystem_caches", "tensorflow_session_parallelism",
    "tensorflow_session_config_file", "tensorflow_intra_op_parallelism",
    "tensorflow_inter_op_parallelism", "use_alts_credentials", "ssl_config_file",
    "platform_config_file", "per_process_gpu_memory_fraction", "saved_model_tags",
    "grpc_channel_arguments", "grpc_max_threads", "enable_model_warmup",
    "num_request_iterations_for_warmup", "version", "monitoring_config_file",
    "remove_unused_fields_from_bundle_metagraph", "prefer_tflite_model", "num_tflite_pools",
    "num_tflite_interpreters_per_pool", "enable_signature_method_name_check",
    "xla_cpu_compilation_enabled", "enable_profiler", "thread_pool_factory_config_file",
    "mixed_precision", "skip_initialize_tpu", "enable_grpc_healthcheck_service",
]


def test_help_lists_every_tf_serving_flag(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--help"])
    text = capsys.readouterr().out
    missing = [flag for flag in TF_SERVING_FLAGS if f"--{flag}" not in text]
    assert missing == []


def test_a_tf_serving_launch_script_parses_and_names_what_is_ignored(caplog):
    args = _parser().parse_args([
        "serve", "--port=8500", "--rest_api_port=8501", "--model_config_file=/models.config",
        "--model_config_file_poll_wait_seconds=60", "--enable_batching",
        "--batching_parameters_file=/batching.config", "--tensorflow_session_parallelism=4",
        "--enable_model_warmup=false", "--saved_model_tags=serve,gpu",
        "--per_process_gpu_memory_fraction=0.5", "--grpc_channel_arguments=a=1",
        "--ssl_config_file=/ssl.config", "--platform_config_file=/p.config",
        "--file_system_poll_wait_seconds=5", "--xla_cpu_compilation_enabled"])
    assert args.enable_batching is True and args.model_config_file == "/models.config"
    assert args.model_config_file_poll_wait_seconds == 60
    assert args.file_system_poll_wait_seconds == 5  # applies: the version poll interval
    assert args.enable_model_warmup is False and args.xla_cpu_compilation_enabled is True
    with caplog.at_level(logging.WARNING, logger="torchestimator.serving"):
        given = warn_ignored_flags(args)
    assert given == ["tensorflow_session_parallelism", "ssl_config_file",
                     "platform_config_file", "per_process_gpu_memory_fraction",
                     "saved_model_tags", "grpc_channel_arguments", "enable_model_warmup",
                     "xla_cpu_compilation_enabled"]
    for flag in given:
        assert f"--{flag}=" in caplog.text
    assert "--enable_batching" not in caplog.text  # that one applies


@pytest.mark.parametrize("value, expected", [("true", True), ("1", True), ("false", False),
                                             ("0", False)])
def test_boolean_flags_take_tf_serving_values(value, expected):
    args = _parser().parse_args(["serve", f"--enable_batching={value}"])
    assert args.enable_batching is expected
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--enable_batching=maybe"])


def test_unused_flags_stay_quiet_by_default():
    args = _parser().parse_args(["serve", "--model_base_path=/m"])
    assert warn_ignored_flags(args) == []
    assert args.enable_batching is False and args.model_config_file is None
    assert all(getattr(args, flag) is None for flag, _, _ in IGNORED_FLAGS
               if flag not in ("port", "monitoring_config_file"))


def test_version_flag(capsys):
    assert main(["serve", "--version"]) == 0
    assert "TensorFlow ModelServer" in capsys.readouterr().out


def test_bad_model_files_are_refused_before_serving(capsys, tmp_path):
    config = tmp_path / "models.config"
    config.write_text("model_config_list { config { name: 'm' } }")
    assert main(["serve", "--model_config_file", str(config), "--rest_api_port", "1"]) == 2
    err = capsys.readouterr().err
    assert "models.config" in err and "no base_path" in err
    config.write_text("model_config_list { }")
    assert main(["serve", "--model_config_file", str(config), "--rest_api_port", "1"]) == 2
    assert "configures no model" in capsys.readouterr().err
    params = tmp_path / "batching.config"
    params.write_text("max_batch_size { value: 0 }")
    assert main(["serve", "--model_base_path", str(tmp_path), "--enable_batching",
                 "--batching_parameters_file", str(params), "--rest_api_port", "1"]) == 2
    assert "max_batch_size must be >= 1" in capsys.readouterr().err
