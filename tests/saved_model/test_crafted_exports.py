"""Crafted exports: a real export altered by hand, as an attacker who can drop a version
directory into a served base path would, with the checksums in saved_model.json recomputed.

Each load must end in a ValueError naming the file, run no code (the payloads `touch` a canary
file; `crafted_guard` records processes, shells, writes and imports), and read no file outside
the export. One test drops the crafted version into a served base path: the old version keeps
serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import hashlib
import json
import os
import shutil
import sys
import time

import numpy as np
import pytest
import torch
from _export_testlib import Y_CLASS, input_fn

import torchestimator as tf
from _crafted_guard import crafted_guard
from torchestimator.saved_model import _layout

VOCAB = "a\nb\nc\n"


# ----------------------------------------------------------------------------- the export
@pytest.fixture(scope="module")
def export(tmp_path_factory) -> str:
    """A DNNClassifier on a numeric column and an embedding of a vocabulary-file column (so the
    export has assets/, an embedding and a shape expression for the batch)."""
    base = tmp_path_factory.mktemp("legit")
    vocab = base / "kinds.txt"
    vocab.write_text(VOCAB)
    fc = tf.feature_column
    kind = fc.categorical_column_with_vocabulary_file("kind", str(vocab))
    columns = [fc.numeric_column("x"), fc.embedding_column(kind, 2)]
    estimator = tf.estimator.DNNClassifier([3], columns, model_dir=str(base / "m"),
                                           config=tf.estimator.RunConfig(tf_random_seed=1))
    estimator.train(input_fn(Y_CLASS), steps=2)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.TensorSpec([None], tf.float32), "kind": tf.TensorSpec([None], tf.string)})
    return os.fsdecode(estimator.export_saved_model(str(base / "e"), receiver))


@pytest.fixture
def crafted(export, tmp_path) -> str:
    """A fresh copy of the export to alter, at `<tmp_path>/base/1`."""
    path = tmp_path / "base" / "1"
    shutil.copytree(export, path)
    return str(path)


def _canary(tmp_path) -> str:
    return str(tmp_path / "pwned")


def _touch(tmp_path) -> str:
    """A Python payload that creates the canary."""
    return f"__import__('os').system('touch {_canary(tmp_path)}')"


def _resum(path: str) -> None:
    """Recomputes the checksums saved_model.json records, as an attacker would."""
    document_path = os.path.join(path, "saved_model.json")
    with open(document_path) as f:
        document = json.load(f)
    for name in document["sha256"]:
        with open(os.path.join(path, name), "rb") as f:
            document["sha256"][name] = hashlib.sha256(f.read()).hexdigest()
    with open(document_path, "w") as f:
        json.dump(document, f)


def _edit_program(path: str, edit) -> None:
    program_path = os.path.join(path, "program.json")
    with open(program_path) as f:
        program = json.load(f)
    edit(program)
    with open(program_path, "w") as f:
        json.dump(program, f)
    _resum(path)


def _edit_document(path: str, edit) -> None:
    document_path = os.path.join(path, "saved_model.json")
    with open(document_path) as f:
        document = json.load(f)
    edit(document)
    with open(document_path, "w") as f:
        json.dump(document, f)


def _all(value, key):
    """Every dict inside `value` that has `key`."""
    if isinstance(value, dict):
        if key in value:
            yield value
        for item in value.values():
            yield from _all(item, key)
    elif isinstance(value, list):
        for item in value:
            yield from _all(item, key)


def _graph(program) -> dict:
    return program["graph_module"]["graph"]


def _features() -> dict:
    return {"x": np.array([0.5, -1.0], dtype=np.float32),
            "kind": np.array(["a", "z"], dtype=object)}


# --------------------------------------------------------------------- reads outside the export
_READS: list[list[str]] = []


def _read_hook(event: str, args: tuple) -> None:
    if not _READS:
        return
    if event == "open" and args and isinstance(args[0], (str, bytes)):
        _READS[-1].append(os.fsdecode(args[0]))
    elif event in ("os.listdir", "os.scandir", "glob.glob") and args and isinstance(args[0], (str, bytes)):
        _READS[-1].append(os.fsdecode(args[0]))


sys.addaudithook(_read_hook)


@contextlib.contextmanager
def _no_reads_outside(*allowed: str):
    """Fails if a file or folder outside `allowed` (nor Python's and the packages' own files)
    is opened or listed while the block runs."""
    opened: list[str] = []
    _READS.append(opened)
    try:
        yield
    finally:
        _READS.remove(opened)
    roots = tuple(os.path.realpath(a) for a in allowed)
    library = tuple(os.path.realpath(p) for p in sys.path if p) + (os.path.realpath(sys.prefix),)
    outside = [p for p in opened if p and not os.path.realpath(p).startswith(roots + library)
               and not p.startswith(("/proc/", "/dev/null", "/sys/"))]
    assert not outside, f"files outside the export were read: {outside}"


def _refused(path: str, tmp_path, match: str) -> pytest.ExceptionInfo:
    """Loads `path` under the guards; asserts a ValueError matching `match` and naming a file
    of the export, no canary, no read outside the test's directory."""
    with crafted_guard(tmp_path), _no_reads_outside(str(tmp_path)):
        with pytest.raises(ValueError, match=match) as info:
            tf.saved_model.load(path)
    assert path in str(info.value)
    assert not os.path.exists(_canary(tmp_path))
    return info


# ------------------------------------------------------------------------------ the legit case
def test_the_untouched_export_loads_under_the_guards(crafted, tmp_path):
    with crafted_guard(tmp_path), _no_reads_outside(str(tmp_path)):
        loaded = tf.saved_model.load(crafted)
        out = loaded.signatures["predict"](**_features())
    assert out["probabilities"].shape == (2, 2)


# ---------------------------------------------------------------------------- shape expressions
EXPRESSIONS = [
    "{touch}",
    "(lambda: {touch})()",
    "Symbol('s0').__class__",
    "Symbol('s0').__class__.__base__.__subclasses__()",
    "Symbol('s0')[0]",
    "'touch'",
    "Symbol('s0; {touch}')",
    "Symbol('s0', integer={touch})",
    "eval('1')",
    "exec('import os')",
    "open('{canary}', 'w')",
    "getattr(Symbol('s0'), 'name')",
    "Function('f')(Symbol('s0'))",
    "sympify('1')",
    "[Symbol('s0') for _ in range(3)]",
    "{{1: 2}}",
    "Symbol(name='s0')",
    "ｅｖａｌ('1')",  # fullwidth letters: NFKC makes them `eval`
    "Symbol('s0')\u2028+ 1",
    "Symbol('s0')\x00",
    "Symbol('s0')\r+ 1",
    "s0 + " * 3000 + "1",
    "(" * 2000 + "s0" + ")" * 2000,
    "Integer(10) ** Integer(10) ** Integer(10)",
    "Pow(Integer(10), Integer(10000000000))",
    "LShift(Integer(1), Integer(1000000000000))",
    "Pow(Pow(Pow(Integer(99), 64), 64), 64)",
    "Integer(" + "9" * 100 + ")",
    "Float('1' * 10)",
]


@pytest.mark.parametrize("expression", EXPRESSIONS, ids=range(len(EXPRESSIONS)))
def test_a_crafted_shape_expression_is_refused(crafted, tmp_path, expression):
    payload = expression.format(touch=_touch(tmp_path), canary=_canary(tmp_path))

    def edit(program):
        found = list(_all(program, "expr_str"))
        assert found, "the export should have a shape expression"
        for item in found:
            item["expr_str"] = payload

    _edit_program(crafted, edit)
    info = _refused(crafted, tmp_path, "program.json is refused")
    assert "expression" in str(info.value)


def test_shape_expressions_torch_writes_pass_the_check():
    from torchestimator.saved_model._program_check import _check_expression

    for text in ["Symbol('s29', positive=True, integer=True)", "s0 + 1", "2*s0*s1",
                 "Add(Mul(Integer(2), Symbol('s0', integer=True)), Integer(-1))",
                 "FloorDiv(Symbol('s0'), Integer(2))", "Max(Integer(1), Symbol('u0'))",
                 "Mod(s0, 8)", "Pow(Symbol('s0'), Integer(2))", "s0**(-1)",
                 "CeilToInt(IntTrueDiv(s0, 3))", "Eq(Mod(s0, 2), 0)", "Float('1.5', precision=53)",
                 "Rational(1, 2)*s0", "oo", "true"]:
        _check_expression(text)


# ------------------------------------------------------------------------------- other text
def _set_target(target):
    def edit(program):
        node = _graph(program)["nodes"][0]
        node["target"] = target
    return edit


def _rename_first_node(program):
    node = next(n for n in _graph(program)["nodes"] if n["outputs"][0].get("as_tensor"))
    old = node["outputs"][0]["as_tensor"]["name"]
    new = f"{old}=__import__('os').system('touch pwned');{old}"
    text = json.dumps(program).replace(json.dumps(old), json.dumps(new))
    program.clear()
    program.update(json.loads(text))


def _forward_arg_names(tmp_path):
    def edit(program):
        signature = program["graph_module"]["module_call_graph"][0]["signature"]
        signature["forward_arg_names"][-1] += f"={_touch(tmp_path)}"
    return edit


def _guards(tmp_path):
    # a guard whose string breaks out of the message torch pastes it into
    payload = '"+str(__import__(chr(111)+chr(115)).system(chr(116)))+"'

    def edit(program):
        program["guards_code"] = [f"L['features']['x'] == '{payload}'", f"{_touch(tmp_path)} == 0"]
    return edit


def _enum_context(program):
    spec = program["graph_module"]["module_call_graph"][0]["signature"]
    context = json.dumps([{"__enum__": True, "fqn": "this:x", "name": "y"}])
    spec["in_spec"] = json.dumps([1, {"type": "builtins.dict", "context": context,
                                      "children_spec": [{"type": None, "context": None,
                                                         "children_spec": []}]}])


def _unregistered_treespec(program):
    spec = program["graph_module"]["module_call_graph"][0]["signature"]
    spec["out_spec"] = json.dumps([1, {"type": "os.system", "context": "null", "children_spec": []}])


def _parameter_name(program):
    spec = next(s for s in program["graph_module"]["signature"]["input_specs"] if "parameter" in s)
    spec["parameter_name"] = 'dnn"), __import__("os").system("touch pwned"), getattr(self, "x'
    spec["parameter"]["parameter_name"] = spec["parameter_name"]


def _custom_object(program):
    _graph(program)["custom_obj_values"] = {"obj": {"name": "obj", "class_fqn": "os.system"}}


def _range_constraint(name):
    def edit(program):
        program["range_constraints"][name] = {"min_val": 0, "max_val": None}
    return edit


def _device(program):
    next(iter(_graph(program)["tensor_values"].values()))["device"]["type"] = "cpu'); import os; ('"


def _tensor_name_key(program):
    values = _graph(program)["tensor_values"]
    values["a b; import os"] = next(iter(values.values()))


CRAFTED_PROGRAMS = {
    "target torch.os.system": (lambda t: _set_target("torch.os.system"), "not a torch operator"),
    "target builtins.eval": (lambda t: _set_target("builtins.eval"), "not a torch operator"),
    "target torch.ops.load_library": (lambda t: _set_target("torch.ops.load_library"), "not a torch operator"),
    "target torch.ops.import_module": (lambda t: _set_target("torch.ops.import_module"), "not a torch operator"),
    "target an attribute of a namespace": (lambda t: _set_target("torch.ops.aten.name.upper"), "not a torch operator"),
    "target dunder chain": (lambda t: _set_target("torch.ops.aten.__class__.__init__"), "not a torch operator"),
    "target _operator.attrgetter": (lambda t: _set_target("_operator.attrgetter"), "not a torch operator"),
    "target math.prod": (lambda t: _set_target("math.prod"), "not a torch operator"),
    "target extension op": (lambda t: _set_target("#os:system"), "not a torch operator"),
    "node name into generated code": (lambda t: _rename_first_node, "not an identifier"),
    "forward_arg_names into generated code": (_forward_arg_names, "not an identifier"),
    "guards_code": (_guards, "guard"),
    "tree spec enum hook imports a module": (lambda t: _enum_context, "names only"),
    "tree spec of an unregistered type": (lambda t: _unregistered_treespec, "registered pytree"),
    "parameter name into generated code": (lambda t: _parameter_name, "dotted name"),
    "custom object": (lambda t: _custom_object, "custom object"),
    "range constraint with a huge unbacked index": (lambda t: _range_constraint("u99999999999999"),
                                                     "symbol name"),
    "range constraint with code": (lambda t: _range_constraint("s0; import os"), "symbol name"),
    "device text": (lambda t: _device, "plain name"),
    "tensor name key": (lambda t: _tensor_name_key, "not an identifier"),
}


@pytest.mark.parametrize("case", sorted(CRAFTED_PROGRAMS))
def test_crafted_program_text_is_refused(crafted, tmp_path, case):
    make_edit, match = CRAFTED_PROGRAMS[case]
    _edit_program(crafted, make_edit(tmp_path))
    _refused(crafted, tmp_path, match)


def test_node_metadata_torch_would_paste_into_code_is_dropped(crafted, tmp_path):
    def edit(program):
        for node in _graph(program)["nodes"]:
            node["metadata"]["stack_trace"] = f'File "x", line 1, in f\r{_touch(tmp_path)}\n    y'
            node["metadata"]["source_fn_stack"] = "x,torch.os.system"
            node["metadata"]["from_node"] = json.dumps([{"name": {"__enum__": 1, "fqn": "this:x"}}])

    _edit_program(crafted, edit)
    with crafted_guard(tmp_path), _no_reads_outside(str(tmp_path)):
        loaded = tf.saved_model.load(crafted)
        loaded.signatures["predict"](**_features())
    assert not os.path.exists(_canary(tmp_path))
    for node in loaded._runtime.program.graph.nodes:
        assert "source_fn_stack" not in node.meta and not node.meta.get("stack_trace")


def test_node_metadata_with_line_breaks_is_refused(crafted, tmp_path):
    def edit(program):
        _graph(program)["nodes"][0]["metadata"]["nn_module_stack"] = f"a,b,c\r{_touch(tmp_path)}"

    _edit_program(crafted, edit)
    _refused(crafted, tmp_path, "one line of plain text")


# ---------------------------------------------------------------------------------------- assets
def _set_vocabulary_file(value):
    def edit(document):
        for item in _all(document["preprocessing"], "vocabulary_file"):
            item["vocabulary_file"] = value
    return edit


@pytest.mark.parametrize("reference", [
    "/etc/hostname", "asset:../../../etc/hostname", "asset:/etc/hostname", "../kinds.txt",
    "asset:..", "asset:sub/kinds.txt", "asset:", "asset:kinds.txt\x00",
])
def test_a_vocabulary_file_outside_the_assets_is_refused(crafted, tmp_path, reference):
    _edit_document(crafted, _set_vocabulary_file(reference))
    info = _refused(crafted, tmp_path, "is refused")
    assert "saved_model.json" in str(info.value)


def test_a_symlink_in_assets_leading_out_is_refused(crafted, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (name,) = os.listdir(os.path.join(crafted, "assets"))
    os.remove(os.path.join(crafted, "assets", name))
    os.symlink(outside, os.path.join(crafted, "assets", name))
    _refused(crafted, tmp_path, "outside")


def test_an_assets_folder_that_is_a_symlink_leading_out_is_refused(crafted, tmp_path):
    outside = tmp_path / "elsewhere"
    shutil.copytree(os.path.join(crafted, "assets"), outside)
    shutil.rmtree(os.path.join(crafted, "assets"))
    os.symlink(outside, os.path.join(crafted, "assets"))
    _refused(crafted, tmp_path, "outside")


def test_a_symlink_inside_the_assets_is_followed(crafted, tmp_path):
    (name,) = os.listdir(os.path.join(crafted, "assets"))
    assets = os.path.join(crafted, "assets")
    os.rename(os.path.join(assets, name), os.path.join(assets, "real.txt"))
    os.symlink("real.txt", os.path.join(assets, name))
    with crafted_guard(tmp_path):
        tf.saved_model.load(crafted).signatures["predict"](**_features())


def test_a_vocabulary_given_as_a_file_path_is_refused(crafted, tmp_path):
    def edit(document):
        column = next(_all(document["preprocessing"], "vocabulary_file"))
        column["vocabulary"] = "/etc/hostname"

    _edit_document(crafted, edit)
    _refused(crafted, tmp_path, "vocabulary is the file path")


def test_an_embedding_checkpoint_path_is_not_read(crafted, tmp_path):
    outside = tmp_path / "ckpt"
    outside.mkdir()

    def edit(document):
        for item in _all(document["preprocessing"], "ckpt_to_load_from"):
            item["ckpt_to_load_from"] = str(outside)
            item["tensor_name_in_ckpt"] = "t"

    _edit_document(crafted, edit)
    with crafted_guard(tmp_path), _no_reads_outside(crafted, os.path.dirname(_layout.__file__)):
        tf.saved_model.load(crafted).signatures["predict"](**_features())


def test_a_preprocessing_layer_of_another_class_is_refused(crafted, tmp_path):
    def edit(document):
        document["preprocessing"][0]["layer"] = {
            "class_name": "StringLookup", "registered_name": "StringLookup",
            "config": {"vocabulary": "/etc/hostname"}}

    _edit_document(crafted, edit)
    _refused(crafted, tmp_path, "is not one of the feature-column layers")


# ----------------------------------------------------------------------------------------- sizes
def test_a_huge_vocabulary_size_is_refused_before_building(crafted, tmp_path):
    def edit(document):
        for item in _all(document["preprocessing"], "vocabulary_file"):
            item["vocabulary_size"] = 10**12

    _edit_document(crafted, edit)
    _refused(crafted, tmp_path, "asks for")


def test_a_huge_embedding_dimension_is_refused_before_building(crafted, tmp_path):
    def edit(document):
        for item in _all(document["preprocessing"], "dimension"):
            item["dimension"] = 2**26

    _edit_document(crafted, edit)
    _refused(crafted, tmp_path, "asks for")


def test_a_huge_asset_is_refused_before_reading(crafted, tmp_path, monkeypatch):
    monkeypatch.setattr(_layout, "MAX_ASSET_BYTES", 1 << 20)
    (name,) = os.listdir(os.path.join(crafted, "assets"))
    with open(os.path.join(crafted, "assets", name), "ab") as f:
        f.truncate(2 << 20)
    _refused(crafted, tmp_path, "bytes, more than an asset may")


def test_an_asset_with_too_many_lines_is_refused(crafted, tmp_path, monkeypatch):
    monkeypatch.setattr(_layout, "MAX_ASSET_LINES", 100)
    (name,) = os.listdir(os.path.join(crafted, "assets"))
    with open(os.path.join(crafted, "assets", name), "a") as f:
        f.write("\n" * 200)
    _refused(crafted, tmp_path, "more than 100 lines")


def test_a_gzip_bomb_vocabulary_is_refused(crafted, tmp_path, monkeypatch):
    monkeypatch.setattr(_layout, "MAX_ASSET_BYTES", 1 << 20)
    (name,) = os.listdir(os.path.join(crafted, "assets"))
    with gzip.open(os.path.join(crafted, "assets", name), "wb") as f:
        f.write(b"\0" * (4 << 20))

    def edit(document):
        for item in _all(document["preprocessing"], "vocabulary_file"):
            item["file_format"] = "tfrecord_gzip"

    _edit_document(crafted, edit)
    _refused(crafted, tmp_path, "more than an asset may")


@pytest.mark.parametrize("name", ["saved_model.json", "program.json"])
def test_a_huge_document_is_refused_before_reading(crafted, tmp_path, name):
    with open(os.path.join(crafted, name), "ab") as f:
        f.truncate(_layout.MAX_DOCUMENT_BYTES + 1)  # sparse: no disk used
    _refused(crafted, tmp_path, "bytes, more than an export's")


@pytest.mark.parametrize("name", ["saved_model.json", "program.json", "variables.safetensors"])
def test_a_fifo_in_place_of_a_file_is_refused_without_blocking(crafted, tmp_path, name):
    os.remove(os.path.join(crafted, name))
    os.mkfifo(os.path.join(crafted, name))
    _refused(crafted, tmp_path, "not a regular file")


@pytest.mark.parametrize("name", ["program.json", "variables.safetensors"])
def test_an_export_file_linked_out_of_the_export_is_refused(crafted, tmp_path, name):
    outside = tmp_path / f"outside-{name}"
    shutil.move(os.path.join(crafted, name), outside)
    os.symlink(outside, os.path.join(crafted, name))
    _refused(crafted, tmp_path, "outside the export directory")


def _edit_safetensors_header(path: str, edit) -> None:
    file = os.path.join(path, "variables.safetensors")
    with open(file, "rb") as f:
        data = f.read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    edit(header)
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with open(file, "wb") as f:
        f.write(len(raw).to_bytes(8, "little") + raw + data[8 + size:])
    _resum(path)


def test_a_safetensors_header_length_past_the_file_is_refused(crafted, tmp_path):
    file = os.path.join(crafted, "variables.safetensors")
    with open(file, "r+b") as f:
        f.write((2**62).to_bytes(8, "little"))
    _resum(crafted)
    _refused(crafted, tmp_path, "variables.safetensors is not a valid safetensors file")


def test_a_safetensors_tensor_shape_past_its_bytes_is_refused(crafted, tmp_path):
    def edit(header):
        name = next(k for k in header if k != "__metadata__")
        header[name]["shape"] = [10**12, 10**6]

    _edit_safetensors_header(crafted, edit)
    _refused(crafted, tmp_path, "variables.safetensors is not a valid safetensors file")


# --------------------------------------------------------------------------------------- serving
def _shutdown(app) -> None:
    async def run():
        messages = [{"type": "lifespan.shutdown"}]

        async def receive():
            return messages.pop() if messages else {"type": "lifespan.shutdown"}

        async def send(message):
            pass

        await app({"type": "lifespan"}, receive, send)

    asyncio.run(run())


def _serving_helpers():
    """tests/reliability/_serving_helpers.py (that folder is on sys.path only for its tests)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "reliability", "_serving_helpers.py")
    spec = importlib.util.spec_from_file_location("_crafted_serving_helpers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_crafted_version_dropped_into_a_served_base_path_runs_nothing(export, tmp_path):
    from torchestimator.serving import create_app

    asgi_request = _serving_helpers().asgi_request

    base = tmp_path / "base"
    shutil.copytree(export, base / "1")
    body = json.dumps({"signature_name": "predict",
                       "instances": [{"x": 0.5, "kind": "a"}]}).encode()
    app = create_app("m", str(base), poll_seconds=0.05, num_threads=1)
    try:
        assert asgi_request(app, "POST", "/v1/models/m:predict", body)[0] == 200
        staging = tmp_path / "staging"
        shutil.copytree(export, staging)

        def edit(program):
            for item in _all(program, "expr_str"):
                item["expr_str"] = _touch(tmp_path)

        _edit_program(str(staging), edit)
        with crafted_guard(tmp_path):
            os.rename(staging, base / "2")
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                status, document = asgi_request(app, "GET", "/v1/models/m")
                states = {v["version"]: v for v in document.get("model_version_status", [])}
                if "2" in states:
                    break
                time.sleep(0.05)
            time.sleep(0.3)  # a few more polls
            status, out = asgi_request(app, "POST", "/v1/models/m:predict", body)
        assert status == 200, out
        assert len(out["predictions"]) == 1
        assert not os.path.exists(_canary(tmp_path))
    finally:
        _shutdown(app)


def test_checked_loading_stays_fast(crafted):
    tf.saved_model.load(crafted)  # warm: imports
    start = time.perf_counter()
    for _ in range(3):
        tf.saved_model.load(crafted)
    assert (time.perf_counter() - start) / 3 < 2.0
    assert torch.is_tensor(tf.saved_model.load(crafted).signatures["predict"](**_features())["logits"])
