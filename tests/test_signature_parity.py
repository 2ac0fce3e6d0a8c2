"""Every public function, class constructor and public method that TensorFlow 2.15 has and we
have takes the same arguments: the same names, positional ones in the same order (a call
that passes them by position binds them as TF's does), and the same defaults. The reference
is tests/fixtures/tf_signatures_2.15.json, written by tools/make_tf_signatures_fixture.py
with TF 2.15.1's `inspect.signature`.

Rules, for each TF parameter:
- a positional one is ours at the same position (unless ours takes `*args`);
- a named one is accepted by ours by that name (unless ours takes `**kwargs`);
- an optional one is optional in ours, with TF's default where TF's is a plain value (None,
  bool, number, string, dtype, a tuple of those); `name`'s default is not compared.
Methods are compared where ours defines the method (not where torch.nn.Module's or
object's comes first). Deliberate differences are listed, with why, in
tests/signature_parity/_exceptions_*.py; an exception that no longer differs fails too.
"""

from __future__ import annotations

import inspect
import json
import pathlib
import warnings

import pytest
import torch

import torchestimator as tf
from signature_parity import EXCEPTIONS
from torchestimator import _dtypes

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "tf_signatures_2.15.json"
REFERENCE = json.loads(FIXTURE.read_text())
CALLABLES = REFERENCE["callables"]
CLASSES = REFERENCE["classes"]
_POSITIONAL = ("positional", "positional_only")


def _namespace(module: str):
    namespace = tf
    for part in ([] if module == "tf" else module.split(".")):
        namespace = getattr(namespace, part)
    return namespace


def _ours(namespace, name: str):
    """Our object for a TF name, or None when we do not have it (or refuse it: TF1 graph
    machinery raises on any attribute)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj = getattr(namespace, name)
        inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
    except Exception:  # noqa: BLE001 - missing, refused, or no signature
        return None
    return obj


def _parameters(func, drop_first: bool) -> list[inspect.Parameter] | None:
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    return params[1:] if drop_first and params else params


def _plain(value):
    """Our default as the fixture writes TF's: a dtype as 'dtype:<name>', a tuple as a list."""
    if isinstance(value, (torch.dtype, _dtypes.ExtraDType)) or value is _dtypes.string:
        return f"dtype:{_dtypes.dtype_name(value)}"
    if isinstance(value, tuple):
        return list(value)
    return value


def _same(tf_value, ours) -> bool:
    ours = _plain(ours)
    if isinstance(tf_value, bool) or isinstance(ours, bool):
        return type(tf_value) is type(ours) and tf_value == ours
    if isinstance(tf_value, (int, float)) and isinstance(ours, (int, float)):
        return float(tf_value) == float(ours)
    return tf_value == ours


def differences(tf_params: list, params: list[inspect.Parameter]) -> list[str]:
    """How `params` (ours) differ from the fixture's `tf_params`, in words."""
    problems = []
    by_name = {p.name: p for p in params}
    var_keyword = any(p.kind is p.VAR_KEYWORD for p in params)
    var_positional = any(p.kind is p.VAR_POSITIONAL for p in params)
    ours_positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                            p.POSITIONAL_OR_KEYWORD)]
    tf_positional = [row[0] for row in tf_params if row[1] in _POSITIONAL]
    if not var_positional:
        for index, name in enumerate(tf_positional):
            if index >= len(ours_positional):
                if name in by_name:
                    problems.append(f"`{name}` is keyword-only in ours, positional {index} in TF")
                elif not var_keyword:
                    problems.append(f"no positional `{name}` (TF's position {index})")
                break
            if ours_positional[index] != name:
                problems.append(f"position {index} is `{ours_positional[index]}` in ours, "
                                f"`{name}` in TF")
                break
    for row in tf_params:
        name, kind = row[0], row[1]
        if kind in ("var_positional", "var_keyword"):
            continue
        ours = by_name.get(name)
        if ours is None:
            if not var_keyword:
                problems.append(f"no argument `{name}`")
            continue
        if len(row) < 3:
            continue  # required in TF
        if ours.default is inspect.Parameter.empty:
            problems.append(f"`{name}` is required in ours; TF's default is "
                            f"{row[2].get('v', row[2].get('o'))!r}")
            continue
        if "v" in row[2] and name != "name" and not _same(row[2]["v"], ours.default):
            problems.append(f"`{name}` defaults to {_plain(ours.default)!r} in ours, "
                            f"{row[2]['v']!r} in TF")
    return problems


def _tf_methods(mro: list[str]) -> dict[str, list]:
    methods: dict[str, list] = {}
    for key in mro:
        for name, params in CLASSES.get(key, {}).items():
            methods.setdefault(name, params)
    return methods


def _our_method(cls: type, name: str):
    """(function, drop_first) of our class's method `name` when one of our classes (not
    torch's or object's) defines it; else None."""
    for owner in cls.__mro__:
        if name in vars(owner):
            if not (getattr(owner, "__module__", "") or "").startswith("torchestimator"):
                return None
            attr = vars(owner)[name]
            if isinstance(attr, staticmethod):
                return attr.__func__, False
            if isinstance(attr, classmethod):
                return attr.__func__, True
            if inspect.isfunction(attr):
                return attr, True
            return None
    return None


def module_differences(module: str) -> dict[str, list[str]]:
    """{'<module>.<Name>[.<method>]': differences} for the TF callables of `module` we have."""
    try:
        namespace = _namespace(module)
    except AttributeError:
        return {}
    found: dict[str, list[str]] = {}
    for name, entry in CALLABLES[module].items():
        obj = _ours(namespace, name)
        if obj is None:
            continue
        key = f"{module}.{name}"
        if "sig" in entry:
            is_class = inspect.isclass(obj)
            params = _parameters(obj.__init__ if is_class else obj, drop_first=is_class)
            if params is not None and (problems := differences(entry["sig"], params)):
                found[key] = problems
        if inspect.isclass(obj) and "mro" in entry:
            for method, tf_params in _tf_methods(entry["mro"]).items():
                ours = _our_method(obj, method)
                if ours is None:
                    continue
                params = _parameters(*ours)
                if params is not None and (problems := differences(tf_params, params)):
                    found[f"{key}.{method}"] = problems
    return found


@pytest.mark.parametrize("module", sorted(CALLABLES))
def test_signatures_match_tensorflow(module):
    found = module_differences(module)
    unexplained = {k: v for k, v in found.items() if k not in EXCEPTIONS}
    stale = sorted(k for k in EXCEPTIONS if _exception_module(k) == module and k not in found)
    lines = [f"{k}: " + "; ".join(v) for k, v in sorted(unexplained.items())]
    lines += [f"{k}: listed in tests/signature_parity as differing, but it matches TF now: "
              "remove the exception" for k in stale]
    assert not lines, f"{len(lines)} signatures differ from TF 2.15's:\n" + "\n".join(lines)


def _exception_module(key: str) -> str:
    """The fixture module an exception key belongs to (the longest module prefix)."""
    return max((m for m in CALLABLES if key.startswith(f"{m}.")), key=len, default="")


def test_every_exception_names_a_tf_callable_and_says_why():
    for key, reason in EXCEPTIONS.items():
        module = _exception_module(key)
        assert module, f"{key}: no TF module of the fixture is its prefix"
        rest = key[len(module) + 1:].split(".")
        assert rest[0] in CALLABLES[module], f"{key}: TF's {module} has no {rest[0]}"
        assert isinstance(reason, str) and len(reason) > 20, f"{key}: say why it differs"
