"""Writes tests/fixtures/tf_signatures_2.15.json: the call signature of every public function,
class constructor and public method in TensorFlow 2.15's namespaces that
tests/fixtures/tf_api_2.15.json lists, as `inspect.signature` reads them (parameter names,
kinds and defaults). Run it where TensorFlow 2.15 is installed (never a dependency):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_signatures_fixture.py

tests/test_signature_parity.py compares ours with it.
"""

from __future__ import annotations

import inspect
import json
import pathlib
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[1]
NAMES = ROOT / "tests" / "fixtures" / "tf_api_2.15.json"
OUT = ROOT / "tests" / "fixtures" / "tf_signatures_2.15.json"

_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional_only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional",
    inspect.Parameter.VAR_POSITIONAL: "var_positional",
    inspect.Parameter.KEYWORD_ONLY: "keyword_only",
    inspect.Parameter.VAR_KEYWORD: "var_keyword",
}


def encode_default(value: object) -> dict | None:
    """A default as JSON: None when the parameter is required; {"v": value} for a plain value
    (a dtype as 'dtype:<name>'); {"o": type name} for anything else (compared by presence)."""
    if value is inspect.Parameter.empty:
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"v": value}
    if isinstance(value, (tuple, list)) and all(
            v is None or isinstance(v, (bool, int, float, str)) for v in value):
        return {"v": list(value)}
    name = getattr(value, "name", None)
    if type(value).__name__ == "DType" and isinstance(name, str):
        return {"v": f"dtype:{name}"}
    return {"o": type(value).__name__}


def encode(params: list) -> list:
    """[[name, kind(, default)], ...] of a signature's parameters."""
    out = []
    for p in params:
        row = [p.name, _KINDS[p.kind]]
        default = encode_default(p.default)
        if default is not None:
            row.append(default)
        out.append(row)
    return out


def signature_of(obj: object) -> list | None:
    """The encoded parameters of `obj`'s call (a class: its constructor's, less `self`)."""
    try:
        target = obj.__init__ if inspect.isclass(obj) else obj
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return None
    if inspect.isclass(obj) and params and params[0].name == "self":
        params = params[1:]
    return encode(params)


def mro_of(cls: type, classes: dict) -> list:
    """The keys ('module.Qualname') of `cls`'s TensorFlow and Keras classes in method
    resolution order; the public methods each defines itself go into `classes` once, as
    {method name: encoded parameters less `self`/`cls`}."""
    keys = []
    for owner in cls.__mro__:
        module = getattr(owner, "__module__", "") or ""
        if not module.startswith(("tensorflow", "keras", "tf_keras")):
            continue
        key = f"{module}.{owner.__qualname__}"
        keys.append(key)
        if key in classes:
            continue
        methods = {}
        for name, attr in vars(owner).items():
            if name.startswith("_"):
                continue
            if isinstance(attr, (staticmethod, classmethod)):
                func = attr.__func__
            elif inspect.isfunction(attr):
                func = attr
            else:
                continue
            try:
                params = list(inspect.signature(func).parameters.values())
            except (TypeError, ValueError):
                continue
            if not isinstance(attr, staticmethod) and params:
                params = params[1:]
            methods[name] = encode(params)
        classes[key] = methods
    return keys


def main() -> None:
    import tensorflow as tf

    warnings.simplefilter("ignore")
    names = json.loads(NAMES.read_text())
    callables: dict = {}
    classes: dict = {}
    for module, members in names.items():
        try:
            namespace = tf
            for part in ([] if module == "tf" else module.split(".")):
                namespace = getattr(namespace, part)
        except AttributeError:
            continue
        rows: dict = {}
        for name in members:
            try:
                obj = getattr(namespace, name)
            except Exception:  # noqa: BLE001 - a lazy attribute that fails to load
                continue
            if inspect.ismodule(obj) or not callable(obj):
                continue
            entry: dict = {}
            sig = signature_of(obj)
            if sig is not None:
                entry["sig"] = sig
            if inspect.isclass(obj):
                entry["mro"] = mro_of(obj, classes)
            rows[name] = entry
        callables[module] = rows
    lines = ["{", '"callables": {']
    modules = sorted(callables)
    for i, module in enumerate(modules):
        lines.append(f"{json.dumps(module)}: {{")
        names_here = sorted(callables[module])
        for j, name in enumerate(names_here):
            comma = "," if j < len(names_here) - 1 else ""
            body = json.dumps(callables[module][name], sort_keys=True, separators=(",", ":"))
            lines.append(f"{json.dumps(name)}: {body}{comma}")
        lines.append("}," if i < len(modules) - 1 else "}")
    lines.append("},")
    lines.append('"classes": {')
    keys = sorted(classes)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        body = json.dumps(classes[key], sort_keys=True, separators=(",", ":"))
        lines.append(f"{json.dumps(key)}: {body}{comma}")
    lines.append("}")
    lines.append("}")
    OUT.write_text("\n".join(lines) + "\n")
    json.loads(OUT.read_text())
    print(f"wrote {OUT}: {sum(len(v) for v in callables.values())} callables, "
          f"{len(classes)} classes", file=sys.stderr)


if __name__ == "__main__":
    main()
