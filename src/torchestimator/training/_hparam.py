"""`HParams`: a set of named, typed hyperparameters, as TF 1.15's
`tf.contrib.training.HParams` (`tensorflow/contrib/training/python/training/hparam.py`).

    hparams = HParams(learning_rate=0.1, num_hidden_units=100, layers=[64, 32], name="abc")
    hparams.parse("learning_rate=0.3,layers=[128,64]")
    hparams.learning_rate        # 0.3
    hparams.values()             # {'learning_rate': 0.3, 'num_hidden_units': 100, ...}

Each hyperparameter keeps the type of its first value (a list: the type of its first
element): `set_hparam`, `parse`, `parse_json` and `override_from_dict` convert or refuse
new values by TF's rules (an int may become a float, never the reverse; bools, strings
and numbers do not mix). The `parse` grammar is TF's: comma-separated `name=value`,
`name=[v1,v2]` for lists, `name[i]=v` for one list element (which, as in TF 1.15,
`parse` refuses for list hyperparameters), bools as `true`/`false`/`True`/`False`/ints.
TF's `HParamDef` protocol buffer (`hparam_def`, `to_proto`, `from_proto`) is not provided.
"""

from __future__ import annotations

import json
import numbers
import re
from typing import Any

PARAM_RE = re.compile(r"""
  (?P<name>[a-zA-Z][\w\.]*)      # variable name: "var" or "x"
  (\[\s*(?P<index>\d+)\s*\])?  # (optional) index: "1" or None
  \s*=\s*
  ((?P<val>[^,\[]*)            # single value: "a" or None
   |
   \[(?P<vals>[^\]]*)\])       # list of values: None or "1,2,3"
  ($|,\s*)""", re.VERBOSE)


def _parse_fail(name: str, var_type: type, value: Any, values: str) -> None:
    raise ValueError(
        f"Could not parse hparam '{name}' of type '{var_type.__name__}' with value '{value}' in {values}"
    )


def _reuse_fail(name: str, values: str) -> None:
    raise ValueError(f"Multiple assignments to variable '{name}' in {values}")


def _process_scalar_value(name: str, parse_fn: Any, var_type: type, m_dict: dict, values: str,
                          results_dictionary: dict) -> None:
    """Adds the scalar of a `name=value` or `name[i]=value` clause to `results_dictionary`."""
    try:
        parsed_value = parse_fn(m_dict["val"])
    except ValueError:
        _parse_fail(name, var_type, m_dict["val"], values)
    if not m_dict["index"]:
        if name in results_dictionary:
            _reuse_fail(name, values)
        results_dictionary[name] = parsed_value
        return
    if name in results_dictionary:
        if not isinstance(results_dictionary.get(name), dict):
            _reuse_fail(name, values)
    else:
        results_dictionary[name] = {}
    index = int(m_dict["index"])
    if index in results_dictionary[name]:
        _reuse_fail(f"{name}[{index}]", values)
    results_dictionary[name][index] = parsed_value


def _process_list_value(name: str, parse_fn: Any, var_type: type, m_dict: dict, values: str,
                        results_dictionary: dict) -> None:
    """Adds the list of a `name=[v1,v2]` clause to `results_dictionary`."""
    if m_dict["index"] is not None:
        raise ValueError("Assignment of a list to a list index.")
    elements = filter(None, re.split("[ ,]", m_dict["vals"]))
    if name in results_dictionary:
        _reuse_fail(name, values)
    try:
        results_dictionary[name] = [parse_fn(e) for e in elements]
    except ValueError:
        _parse_fail(name, var_type, m_dict["vals"], values)


def _cast_to_type_if_compatible(name: str, param_type: type, value: Any) -> Any:
    """`value` converted to `param_type`, or ValueError when the types do not mix (a string and
    a non-string, a bool and a non-bool, a float into an int, a non-number into a number)."""
    fail_msg = f"Could not cast hparam '{name}' of type '{param_type}' from value {value!r}"
    if type(value) is param_type:
        return value
    if issubclass(param_type, type(None)):
        return value
    if issubclass(param_type, (str, bytes)) and not isinstance(value, (str, bytes)):
        raise ValueError(fail_msg)
    if issubclass(param_type, bool) != isinstance(value, bool):
        raise ValueError(fail_msg)
    if issubclass(param_type, numbers.Integral) and not isinstance(value, numbers.Integral):
        raise ValueError(fail_msg)
    if issubclass(param_type, numbers.Number) and not isinstance(value, numbers.Number):
        raise ValueError(fail_msg)
    return param_type(value)


def parse_values(values: str, type_map: dict[str, type], ignore_unknown: bool = False) -> dict:
    """Parses `"name=value,..."` into `{name: value}` with the types of `type_map`.

    A value is a scalar (`x=5`), a list (`L=[1,2]`) or one list element (`arr[1]=3`, giving
    `{'arr': {1: 3}}`). Raises ValueError for malformed text, unknown names (unless
    `ignore_unknown`), values that do not parse as their type, and repeated assignments.
    """
    results_dictionary: dict = {}
    pos = 0
    while pos < len(values):
        m = PARAM_RE.match(values, pos)
        if not m:
            raise ValueError(f"Malformed hyperparameter value: {values[pos:]}")
        pos = m.end()
        m_dict = m.groupdict()
        name = m_dict["name"]
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError(f"Unknown hyperparameter type for {name}")
        type_ = type_map[name]
        if type_ is bool:
            def parse_bool(value: str, name: str = name, type_: type = type_) -> bool:
                if value in ("true", "True"):
                    return True
                if value in ("false", "False"):
                    return False
                try:
                    return bool(int(value))
                except ValueError:
                    _parse_fail(name, type_, value, values)
                    raise  # unreachable: _parse_fail raises

            parse: Any = parse_bool
        else:
            parse = type_
        if m_dict["val"] is not None:
            _process_scalar_value(name, parse, type_, m_dict, values, results_dictionary)
        elif m_dict["vals"] is not None:
            _process_list_value(name, parse, type_, m_dict, values, results_dictionary)
        else:
            _parse_fail(name, type_, "", values)
    return results_dictionary


class HParams:
    """Class to hold a set of hyperparameters as name-value pairs (TF's
    `tf.contrib.training.HParams`): attribute access, typed updates, TF's `parse` grammar,
    JSON round trips. Pass one to an Estimator as `params`.

    Args:
        hparam_def: TF's `HParamDef` proto: not supported here (TypeError).
        model_structure: an optional object kept with the hyperparameters.
        **kwargs: the hyperparameters and their initial values.
    """

    _HAS_DYNAMIC_ATTRIBUTES = True

    def __init__(self, hparam_def: Any = None, model_structure: Any = None, **kwargs: Any):
        self._hparam_types: dict[str, tuple[type, bool]] = {}
        self._model_structure = model_structure
        if hparam_def is not None:
            raise TypeError(
                "HParams(hparam_def=...) reads TensorFlow's HParamDef protocol buffer, which "
                "torchestimator does not provide; build HParams from keywords or parse_json()."
            )
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name: str, value: Any) -> None:
        """Adds hyperparameter `name` with `value` (int, float, str, bool or a non-empty list of
        one of those). Raises ValueError if the name is taken or the list empty."""
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name: str, value: Any) -> None:
        """Sets an existing hyperparameter, converted to its type. Raises KeyError for an
        unknown name, ValueError for a value of an incompatible type or list-ness."""
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast_to_type_if_compatible(name, param_type, v) for v in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast_to_type_if_compatible(name, param_type, value))

    def del_hparam(self, name: str) -> None:
        """Removes hyperparameter `name`; does nothing if it is not there."""
        if hasattr(self, name) and name in self._hparam_types:
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values: str) -> HParams:
        """Overrides hyperparameters from `"name=value,..."` (see `parse_values`); returns self.
        Raises ValueError when `values` does not parse or names an unknown hyperparameter."""
        type_map = {name: param_type for name, (param_type, _) in self._hparam_types.items()}
        return self.override_from_dict(parse_values(values, type_map))

    def override_from_dict(self, values_dict: dict) -> HParams:
        """Overrides hyperparameters from a dict (each through `set_hparam`); returns self."""
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_model_structure(self, model_structure: Any) -> None:
        """Keeps `model_structure` with the hyperparameters."""
        self._model_structure = model_structure

    def get_model_structure(self) -> Any:
        """The model structure given to the constructor or `set_model_structure`."""
        return self._model_structure

    def to_json(self, indent: int | None = None, separators: tuple | None = None,
                sort_keys: bool = False) -> str:
        """The hyperparameters as a JSON object string (`json.dumps` options)."""
        return json.dumps(self.values(), indent=indent, separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json: str) -> HParams:
        """Overrides hyperparameters from a JSON object string; returns self."""
        return self.override_from_dict(json.loads(values_json))

    def values(self) -> dict:
        """The hyperparameters as a dict name -> value."""
        return {n: getattr(self, n) for n in self._hparam_types}

    def get(self, key: str, default: Any = None) -> Any:
        """The value of `key`, or `default` when there is no such hyperparameter. Raises
        ValueError when `default` has a type the hyperparameter could not take."""
        if key in self._hparam_types:
            if default is not None:
                param_type, is_param_list = self._hparam_types[key]
                type_str = f"list<{param_type}>" if is_param_list else str(param_type)
                fail_msg = f"Hparam '{key}' of type '{type_str}' is incompatible with default={default}"
                is_default_list = isinstance(default, list)
                if is_param_list != is_default_list:
                    raise ValueError(fail_msg)
                try:
                    for value in default if is_default_list else [default]:
                        _cast_to_type_if_compatible(key, param_type, value)
                except ValueError as e:
                    raise ValueError(f"{fail_msg}. {e}") from None
            return getattr(self, key)
        return default

    def __contains__(self, key: str) -> bool:
        return key in self._hparam_types

    def __str__(self) -> str:
        return ",".join(f"{key}={value}" for key, value in self.values().items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({sorted(self.values().items())})"
