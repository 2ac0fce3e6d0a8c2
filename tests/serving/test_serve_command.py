"""`torchestimator serve`'s flags and refusals (in process: nothing here binds a port)."""

from __future__ import annotations

import pytest

from torchestimator.cli import main


def _serve(capsys, *args: str) -> tuple[int, str]:
    status = main(["serve", *args])
    return status, capsys.readouterr().err


def test_serve_refuses_a_missing_base_path(capsys, tmp_path):
    status, err = _serve(capsys, "--model_name", "m", "--model_base_path",
                         str(tmp_path / "nowhere"), "--rest_api_port", "1")
    assert status == 2
    assert "nowhere" in err and "not a directory" in err and "export_dir_base" in err


def test_serve_refuses_an_export_dir_given_as_base_path(capsys, tmp_path):
    (tmp_path / "saved_model.json").write_text("{}")
    status, err = _serve(capsys, "--model_base_path", str(tmp_path), "--rest_api_port", "1")
    assert status == 2 and "parent directory" in err


@pytest.mark.parametrize("args, words", [
    (["--model_config_file", "models.config"], ["--model_config_file", "models.config",
                                                 "cannot be read"]),
    (["--model_base_path", ".", "--enable_batching",
      "--batching_parameters_file", "no.params"], ["--batching_parameters_file", "no.params"]),
    (["--model_name", "m"], ["--model_base_path is required"]),
    (["--model_base_path", ".", "--rest_api_port", "0"], ["--rest_api_port", "got 0"]),
    (["--model_base_path", ".", "--max_body_bytes", "0"], ["--max_body_bytes"]),
    (["--model_base_path", ".", "--rest_api_workers", "0"], ["--rest_api_workers", "got 0"]),
    (["--model_base_path", "/no/such/dir", "--rest_api_workers", "2"], ["not a directory"]),
    (["--model_base_path", ".", "--max_request_rows", "-1"], ["--max_request_rows", "got -1"]),
    (["--model_base_path", ".", "--rest_api_max_queue", "0"], ["--rest_api_max_queue"]),
    (["--model_base_path", ".", "--header_timeout_seconds", "-2"], ["--header_timeout_seconds"]),
    (["--model_base_path", ".", "--max_header_bytes", "0"], ["--max_header_bytes"]),
])
def test_serve_refuses_what_it_does_not_support(capsys, args, words):
    status, err = _serve(capsys, *args)
    assert status == 2
    for word in words:
        assert word in err


def test_serve_takes_tensorflow_model_server_flags():
    from torchestimator.cli import _parser

    args = _parser().parse_args(
        ["serve", "--port=8500", "--rest_api_port=8501", "--model_name=iris",
         "--model_base_path=/models/iris", "--rest_api_num_threads=4",
         "--rest_api_timeout_in_ms=5000", "--file_system_poll_wait_seconds=2",
         "--tensorflow_intra_op_parallelism=1", "--tensorflow_inter_op_parallelism=1"])
    assert (args.port, args.rest_api_port, args.model_name, args.model_base_path) == (
        8500, 8501, "iris", "/models/iris")
    assert args.rest_api_num_threads == 4 and args.rest_api_timeout_in_ms == 5000
    assert args.file_system_poll_wait_seconds == 2.0


def test_serve_takes_the_limit_flags_and_documents_them(capsys):
    from torchestimator.cli import _parser

    args = _parser().parse_args(
        ["serve", "--model_base_path=/m", "--max_request_rows=10", "--max_response_bytes=1000",
         "--rest_api_max_queue=5", "--body_timeout_seconds=2", "--header_timeout_seconds=3",
         "--max_header_bytes=2048", "--keep_alive_timeout_seconds=4",
         "--rest_api_max_connections=7", "--max_requests_per_connection=9"])
    assert (args.max_request_rows, args.max_response_bytes, args.rest_api_max_queue) == (
        10, 1000, 5)
    assert (args.body_timeout_seconds, args.header_timeout_seconds, args.max_header_bytes) == (
        2.0, 3.0, 2048)
    assert (args.keep_alive_timeout_seconds, args.rest_api_max_connections,
            args.max_requests_per_connection) == (4.0, 7, 9)
    defaults = _parser().parse_args(["serve"])
    assert defaults.host == "0.0.0.0" and defaults.max_request_rows == 100_000
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("--max_request_rows", "default 100000", "--max_response_bytes",
                  "--header_timeout_seconds", "--body_timeout_seconds",
                  "--rest_api_max_connections", "no authentication"):
        assert words in text, words
