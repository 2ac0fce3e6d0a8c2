"""Checks an export's `program.json` before torch's reader sees it, so loading runs no code
from the file.

torch's export deserializer (`torch._export.serde.serialize`) trusts its input. Text from the
file reaches code in these places, each checked here against what torch itself writes:

- shape expressions (`expr_str`) go to `sympy.sympify`, which evaluates them as Python: each
  must parse (`ast`, mode "eval") to sympy constructors and torch's sympy functions applied
  to symbol names, numbers and arithmetic (`_check_expression`);
- node targets and operator arguments are resolved by `getattr` chains from `torch`,
  `operator` and `math`, and the result is called when the program runs: each must name an
  `OpOverload` under `torch.ops`, a higher-order operator, or one of torch's symbolic-shape
  operators (`_check_operator`);
- node, argument and input names, `forward_arg_names` and parameter/buffer names are pasted
  into the Python source torch.fx generates and executes: each must be an identifier (or a
  dotted path of them);
- tree specs' contexts are read with a JSON hook that imports the module an `"__enum__"`
  object names: contexts may hold no objects;
- `guards_code` is Python that torch compiles when a module is made with guards: it must be
  an expression over `L[...]` inputs, their sizes and numbers (and `_loaded` makes modules
  without guards besides);
- node metadata (`stack_trace`, `source_fn_stack`, `from_node`, `custom`) goes into generated
  comments, `getattr` chains and JSON hooks, and is not needed to run the program: it is
  dropped; `nn_module_stack` and `torch_fn` are kept when they are plain one-line text.

Every other string must be short plain text. A failed check is a ValueError naming the file
and the offending value.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Callable
from typing import Any

import torch
from torch.utils import _pytree as pytree

#: sympy constructors that `sympy.srepr` writes for the expressions of exported shapes.
_SYMPY_FUNCTIONS = frozenset({
    "Symbol", "Integer", "Rational", "Float", "Add", "Mul", "Pow", "Mod", "Max", "Min", "Abs",
    "floor", "ceiling", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "Equality", "Unequality",
    "StrictLessThan", "LessThan", "StrictGreaterThan", "GreaterThan", "And", "Or", "Not",
    "Piecewise", "ExprCondPair", "ITE", "Tuple", "IntInfinity", "NegativeIntInfinity",
    "Infinity", "NegativeInfinity",
})
#: torch's sympy functions (`torch.utils._sympy.functions`): the names its deserializer passes
#: to `sympify` as locals.
_TORCH_FUNCTIONS = frozenset({
    "FloorDiv", "ModularIndexing", "Where", "PythonMod", "Mod", "CleanDiv", "CeilToInt",
    "FloorToInt", "CeilDiv", "LShift", "RShift", "PowByNatural", "FloatPow", "FloatTrueDiv",
    "IntTrueDiv", "IsNonOverlappingAndDenseIndicator", "TruncToFloat", "TruncToInt",
    "RoundToInt", "RoundDecimal", "ToFloat", "Identity",
})
_FUNCTIONS = _SYMPY_FUNCTIONS | _TORCH_FUNCTIONS
#: Functions whose second argument is an exponent or shift: it must be a small literal or a
#: symbol, so that no expression evaluates to a number of unbounded size.
_POWERS = frozenset({"Pow", "PowByNatural", "FloatPow", "LShift", "RShift"})
_MAX_EXPONENT = 64
_MAX_POWER_NESTING = 2
#: Names an expression may use as values: sympy's constants.
_CONSTANT_NAMES = frozenset({"oo", "zoo", "nan", "true", "false", "True", "False", "int_oo"})
#: Keyword arguments of `Symbol(...)`: sympy assumptions, with True/False values.
_ASSUMPTIONS = frozenset({
    "integer", "positive", "negative", "nonnegative", "nonpositive", "real", "finite", "zero",
    "nonzero", "rational", "commutative", "even", "odd", "extended_real", "infinite",
})
_BINARY_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
                     ast.BitAnd, ast.BitOr)
_UNARY_OPERATORS = (ast.UAdd, ast.USub, ast.Invert)
_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
_MAX_EXPRESSION_CHARS = 10_000
_MAX_EXPRESSION_NODES = 2_000
_MAX_INT = 2**64
_SYMBOL = re.compile(r"[a-z]{1,4}_?[0-9]{1,7}", re.ASCII)
_FLOAT = re.compile(r"[-+]?[0-9]{1,40}(\.[0-9]{0,40})?([eE][-+]?[0-9]{1,4})?", re.ASCII)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,254}", re.ASCII)
_DOTTED = re.compile(r"[A-Za-z0-9_]{1,255}(\.[A-Za-z0-9_]{1,255}){0,63}", re.ASCII)
_PLAIN = re.compile(r"[A-Za-z0-9_.:+/ -]{0,256}", re.ASCII)
_GUARD_STRING = re.compile(r"[A-Za-z0-9_./: -]{0,256}", re.ASCII)
_OPERATOR = re.compile(r"torch\.ops\.([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)"
                       r"(?:\.([A-Za-z_][A-Za-z0-9_]*))?", re.ASCII)
#: Operator namespaces a program may use besides those already loaded in this process.
_OPERATOR_NAMESPACES = frozenset({"aten", "prims"})
#: Node metadata kept (checked as one-line text); other keys are dropped.
_KEPT_METADATA = frozenset({"nn_module_stack", "torch_fn"})
_MAX_METADATA_CHARS = 100_000
#: Keys whose string values (or dict keys) are names torch.fx pastes into generated source.
_NAME_KEYS = frozenset({"name", "as_name", "user_input_name", "custom_obj_name"})
_NAME_MAP_KEYS = frozenset({"tensor_values", "sym_int_values", "sym_bool_values",
                            "sym_float_values", "as_string_to_argument"})
_DOTTED_KEYS = frozenset({"parameter_name", "buffer_name", "tensor_constant_name", "fqn"})
#: Keys whose string values are data torch passes to `repr` only.
_DATA_KEYS = frozenset({"as_string", "as_strings"})
_GUARD_METHODS = frozenset({"size", "stride", "storage_offset", "dim", "numel"})
_GUARD_MATH = frozenset({"isnan", "isinf", "inf", "floor", "ceil", "trunc", "sqrt"})


class _Reject(ValueError):
    """One failed check: what is wrong with which value (the file is added by the caller)."""


def check_program(document: Any, source: str) -> None:
    """Checks the parsed `program.json` of an export (see the module docstring) and drops the
    node metadata torch does not need to run it, in place. Raises ValueError naming `source`
    and the offending value."""
    try:
        if not isinstance(document, dict) or not isinstance(document.get("graph_module"), dict):
            raise _Reject("it is not a torch.export program (no graph_module object)")
        _walk(document, "")
    except _Reject as e:
        raise ValueError(
            f"{source} is refused: {e}. Loading an export runs no code from it; this file was "
            "not written by torchestimator's export (or was altered). Export the model again "
            "from trusted code."
        ) from None
    except RecursionError:
        raise ValueError(f"{source} is refused: it is nested too deeply to be an export's "
                         "program. Export the model again.") from None


def _walk(value: Any, key: str) -> None:
    """Checks `value`, found under `key`, and everything inside it."""
    if isinstance(value, dict):
        if key in _NAME_MAP_KEYS:
            for name in value:
                _check_name(name, key)
        for k, v in list(value.items()):
            if k == "metadata":
                value[k] = _checked_metadata(v)
            else:
                _check_field(k, v, key)
    elif isinstance(value, list):
        for item in value:
            _walk(item, key)
    elif isinstance(value, str):
        _check_string(value, key)


def _check_field(key: str, value: Any, parent: str) -> None:
    """Checks one field of an object by its key."""
    checks: dict[str, Callable[[Any], None]] = {
        "expr_str": _check_expression_value,
        "target": _check_operator_value,
        "as_operator": _check_operator_value,
        "in_spec": _check_treespec,
        "out_spec": _check_treespec,
        "guards_code": _check_guards,
        "range_constraints": _check_range_constraints,
        "custom_obj_values": _check_empty,
        "custom_obj": _no_custom_objects,
        "as_custom_obj": _no_custom_objects,
        "forward_arg_names": _check_forward_arg_names,
        "treespec_namedtuple_fields": _check_namedtuple_fields,
    }
    check = checks.get(key)
    if check is not None:
        check(value)
    elif key in _DATA_KEYS:
        _check_data(value, key)
    else:
        _walk(value, key)


def _check_string(value: str, key: str) -> None:
    if key in _NAME_KEYS:
        _check_name(value, key)
    elif key in _DOTTED_KEYS:
        if value and not _DOTTED.fullmatch(value):
            raise _Reject(f"{key} {value[:200]!r} is not a dotted name of identifiers")
    elif not _PLAIN.fullmatch(value):
        raise _Reject(f"field {key!r} holds {value[:200]!r}, which is not a plain name")


def _check_name(value: Any, key: str) -> None:
    if not isinstance(value, str) or not _IDENTIFIER.fullmatch(value):
        raise _Reject(f"{key} {str(value)[:200]!r} is not an identifier")


def _check_data(value: Any, key: str) -> None:
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, str) or len(item) > _MAX_METADATA_CHARS:
            raise _Reject(f"{key} holds {str(item)[:200]!r}, which is not a string of at most "
                          f"{_MAX_METADATA_CHARS} characters")


def _checked_metadata(value: Any) -> dict[str, str]:
    """The node metadata torch may keep: `_KEPT_METADATA` entries that are one-line text."""
    if not isinstance(value, dict):
        raise _Reject(f"metadata {str(value)[:200]!r} is not an object")
    kept = {}
    for k in _KEPT_METADATA & set(value):
        text = value[k]
        if (not isinstance(text, str) or len(text) > _MAX_METADATA_CHARS or not text.isprintable()
                or not text.isascii()):
            raise _Reject(f"node metadata {k!r} holds {str(text)[:200]!r}, which is not "
                          "one line of plain text")
        kept[k] = text
    return kept


def _check_empty(value: Any) -> None:
    if value:
        raise _Reject("it holds custom objects (custom_obj_values), which exports never hold")


def _no_custom_objects(value: Any) -> None:
    raise _Reject(f"it refers to a custom object {str(value)[:200]!r}, which exports never hold")


def _check_forward_arg_names(value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        raise _Reject(f"forward_arg_names {str(value)[:200]!r} is not a list")
    for name in value:
        _check_name(name, "forward_arg_names entry")


def _check_namedtuple_fields(value: Any) -> None:
    if not isinstance(value, dict):
        raise _Reject("treespec_namedtuple_fields is not an object")
    for type_name, definition in value.items():
        if not _DOTTED.fullmatch(type_name):
            raise _Reject(f"named tuple type {type_name[:200]!r} is not a dotted name")
        fields = definition.get("field_names") if isinstance(definition, dict) else None
        if not isinstance(fields, list):
            raise _Reject(f"named tuple {type_name!r} has no field_names list")
        for name in fields:
            _check_name(name, "named tuple field")


def _check_range_constraints(value: Any) -> None:
    if not isinstance(value, dict):
        raise _Reject("range_constraints is not an object")
    for name, bounds in value.items():
        if not _SYMBOL.fullmatch(name):
            raise _Reject(f"range constraint symbol {name[:200]!r} is not a symbol name like s0")
        if not isinstance(bounds, dict) or set(bounds) - {"min_val", "max_val"}:
            raise _Reject(f"range constraint of {name!r} is not {{min_val, max_val}}")
        for bound in bounds.values():
            if bound is not None and (type(bound) is not int or abs(bound) > _MAX_INT):
                raise _Reject(f"range constraint of {name!r} has bound {str(bound)[:100]!r}")


# ----------------------------------------------------------------------------- expressions
def _check_expression_value(value: Any) -> None:
    if not isinstance(value, str):
        raise _Reject(f"expr_str {str(value)[:200]!r} is not a string")
    _check_expression(value)


@functools.lru_cache(maxsize=4096)
def _check_expression(text: str) -> None:
    """Raises _Reject unless `text` is a shape expression as torch writes them (see the
    module docstring). Cached: a program repeats the same few expressions."""
    tree = _parse(text, "shape expression")
    if sum(1 for _ in ast.walk(tree)) > _MAX_EXPRESSION_NODES:
        raise _Reject(f"shape expression {text[:200]!r}... has more than "
                      f"{_MAX_EXPRESSION_NODES} parts")
    try:
        _expression_node(tree.body, 0)
    except _Reject as e:
        raise _Reject(f"shape expression {text[:200]!r}{'...' if len(text) > 200 else ''} is "
                      f"not one torch writes ({e})") from None


def _parse(text: str, what: str) -> ast.Expression:
    """`text` parsed as one Python expression after checking it is short printable ASCII."""
    if len(text) > _MAX_EXPRESSION_CHARS:
        raise _Reject(f"{what} {text[:80]!r}... is {len(text)} characters long (at most "
                      f"{_MAX_EXPRESSION_CHARS})")
    if not (text.isascii() and text.isprintable()):
        raise _Reject(f"{what} {text[:200]!r} holds characters other than printable ASCII")
    try:
        return ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise _Reject(f"{what} {text[:200]!r} is not a valid expression") from None


def _expression_node(node: ast.AST, powers: int) -> None:
    """Checks one node of a shape expression; `powers` counts the enclosing powers."""
    if isinstance(node, ast.Constant):
        _numeric_constant(node.value)
    elif isinstance(node, ast.Name):
        if node.id not in _CONSTANT_NAMES and not _SYMBOL.fullmatch(node.id):
            raise _Reject(f"name {node.id!r} is not a symbol like s0")
    elif isinstance(node, ast.BinOp) and isinstance(node.op, _BINARY_OPERATORS):
        if isinstance(node.op, ast.Pow):
            _power(node.left, node.right, powers)
        else:
            _expression_node(node.left, powers)
            _expression_node(node.right, powers)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, _UNARY_OPERATORS):
        _expression_node(node.operand, powers)
    elif isinstance(node, ast.Compare) and all(isinstance(o, _COMPARISONS) for o in node.ops):
        for part in (node.left, *node.comparators):
            _expression_node(part, powers)
    elif isinstance(node, ast.Call):
        _call(node, powers)
    else:
        raise _Reject(f"{type(node).__name__} is not allowed")


def _numeric_constant(value: Any) -> None:
    if type(value) is bool or (type(value) is int and abs(value) <= _MAX_INT):
        return
    if type(value) is float:
        return
    raise _Reject(f"constant {str(value)[:100]!r} is not a number of at most 64 bits")


def _call(node: ast.Call, powers: int) -> None:
    if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
        name = node.func.id if isinstance(node.func, ast.Name) else type(node.func).__name__
        raise _Reject(f"call of {name!r} is not a sympy or torch shape function")
    name = node.func.id
    if name == "Symbol":
        _symbol_call(node)
    elif name == "Float":
        _float_call(node)
    elif node.keywords:
        raise _Reject(f"{name} takes no keyword arguments here")
    elif name in _POWERS:
        if len(node.args) != 2:
            raise _Reject(f"{name} takes two arguments")
        _power(node.args[0], node.args[1], powers)
    else:
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise _Reject("starred arguments are not allowed")
            _expression_node(arg, powers)


def _symbol_call(node: ast.Call) -> None:
    if (len(node.args) != 1 or not isinstance(node.args[0], ast.Constant)
            or not isinstance(node.args[0].value, str) or not _SYMBOL.fullmatch(node.args[0].value)):
        raise _Reject("Symbol takes one symbol name like 's0'")
    for keyword in node.keywords:
        if (keyword.arg not in _ASSUMPTIONS or not isinstance(keyword.value, ast.Constant)
                or type(keyword.value.value) is not bool):
            raise _Reject(f"Symbol assumption {keyword.arg!r} is not a sympy assumption set "
                          "to True or False")


def _float_call(node: ast.Call) -> None:
    if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
        raise _Reject("Float takes one number")
    value = node.args[0].value
    if not (type(value) in (int, float) or (isinstance(value, str) and _FLOAT.fullmatch(value))):
        raise _Reject(f"Float of {str(value)[:100]!r} is not a decimal number")
    if type(value) is int:
        _numeric_constant(value)
    for keyword in node.keywords:
        if (keyword.arg != "precision" or not isinstance(keyword.value, ast.Constant)
                or type(keyword.value.value) is not int or not 1 <= keyword.value.value <= 1024):
            raise _Reject("Float takes only a precision of at most 1024 bits")


def _power(base: ast.AST, exponent: ast.AST, powers: int) -> None:
    """A power or shift: the exponent a small literal or a symbol, few powers nested."""
    if powers >= _MAX_POWER_NESTING:
        raise _Reject(f"powers nested more than {_MAX_POWER_NESTING} deep")
    if not (_small_literal(exponent) or _is_symbol(exponent)):
        raise _Reject(f"an exponent or shift must be a symbol or a literal of at most "
                      f"{_MAX_EXPONENT}")
    _expression_node(base, powers + 1)
    _expression_node(exponent, powers + 1)


def _small_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _small_literal(node.operand)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id == "Integer" and len(node.args) == 1:
            return _small_literal(node.args[0])
        if node.func.id == "Rational" and len(node.args) == 2:
            return all(_small_literal(a) for a in node.args)
    return (isinstance(node, ast.Constant) and type(node.value) is int
            and abs(node.value) <= _MAX_EXPONENT)


def _is_symbol(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return bool(_SYMBOL.fullmatch(node.id))
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Symbol"


# ------------------------------------------------------------------------------- operators
def _check_operator_value(value: Any) -> None:
    if not isinstance(value, str) or not _operator_allowed(value):
        raise _Reject(f"operator {str(value)[:200]!r} is not a torch operator (an OpOverload "
                      "under torch.ops, a higher-order operator or a symbolic-shape operator)")


@functools.lru_cache(maxsize=4096)
def _operator_allowed(target: str) -> bool:
    """Whether `target` names what torch's reader may resolve and call: an `OpOverload` under
    `torch.ops`, a higher-order operator, or one of its symbolic-shape operators."""
    from torch._export.serde import (  # lazy: heavy (torch._export.serde.serialize, 5500 ms)
        serialize as _serde,
    )

    if target in _symbolic_operators(tuple(_serde._SYM_OPS)):
        return True
    match = _OPERATOR.fullmatch(target)
    if match is None:
        return False
    namespace, name, overload = match.groups()
    if namespace == "higher_order":
        found = getattr(torch.ops.higher_order, name, None) if overload is None else None
        return isinstance(found, torch._ops.HigherOrderOperator)
    if overload is None or (namespace not in _OPERATOR_NAMESPACES
                            and namespace not in getattr(torch.ops, "_dir", ())):
        return False
    try:
        found = getattr(getattr(getattr(torch.ops, namespace), name), overload)
    except (AttributeError, RuntimeError):
        return False
    return isinstance(found, torch._ops.OpOverload)


@functools.lru_cache(maxsize=1)
def _symbolic_operators(operators: tuple) -> frozenset[str]:
    """The names torch's serializer writes for its symbolic-shape operators."""
    return frozenset(f"{op.__module__}.{op.__name__}" for op in operators)


# ------------------------------------------------------------------------- tree specs, guards
def _check_treespec(value: Any) -> None:
    """A `pytree.treespec_dumps` string: types are looked up in pytree's registry; contexts
    hold only names and numbers (an object in a context would reach pytree's enum hook, which
    imports the module it names); the kwargs names of a call are identifiers."""
    try:
        protocol, tree = json.loads(value)
    except (TypeError, ValueError, RecursionError):
        raise _Reject(f"tree spec {str(value)[:200]!r} is not a pytree spec") from None
    if type(protocol) is not int:
        raise _Reject(f"tree spec {str(value)[:200]!r} has no protocol number")
    _check_spec_node(tree)
    children = tree.get("children_spec") or []
    if tree.get("type") == "builtins.tuple" and len(children) == 2:
        kwargs = children[1]
        if kwargs.get("type") == "builtins.dict":
            for name in json.loads(kwargs["context"]):
                _check_name(name, "keyword argument in the program's input spec")


def _check_spec_node(node: Any) -> None:
    if not isinstance(node, dict) or set(node) != {"type", "context", "children_spec"}:
        raise _Reject(f"tree spec node {str(node)[:200]!r} is not {{type, context, children_spec}}")
    kind, context, children = node["type"], node["context"], node["children_spec"]
    if kind is not None and kind not in pytree.SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise _Reject(f"tree spec type {str(kind)[:200]!r} is not a registered pytree type")
    if context is not None:
        if not isinstance(context, str):
            raise _Reject(f"tree spec context {str(context)[:200]!r} is not JSON text")
        try:
            parsed = json.loads(context)
        except (ValueError, RecursionError):
            raise _Reject(f"tree spec context {context[:200]!r} is not JSON") from None
        _check_context(parsed)
    if not isinstance(children, list):
        raise _Reject("tree spec children_spec is not a list")
    for child in children:
        _check_spec_node(child)


def _check_context(value: Any) -> None:
    if isinstance(value, list):
        for item in value:
            _check_context(item)
    elif isinstance(value, dict):
        raise _Reject(f"tree spec context holds an object {str(value)[:200]!r}; contexts hold "
                      "names only")


def _check_guards(value: Any) -> None:
    if not isinstance(value, list):
        raise _Reject("guards_code is not a list")
    for guard in value:
        if not isinstance(guard, str):
            raise _Reject(f"guard {str(guard)[:200]!r} is not a string")
        _check_guard(guard)


@functools.lru_cache(maxsize=1024)
def _check_guard(text: str) -> None:
    """A guard as torch writes them: comparisons of `L[...]` inputs, their `.size()[i]` and
    similar, numbers and shape functions."""
    tree = _parse(text, "guard")
    for node in ast.walk(tree):
        if not _guard_node_allowed(node):
            raise _Reject(f"guard {text[:200]!r} is not one torch writes "
                          f"({type(node).__name__} {ast.unparse(node)[:80]!r} is not allowed)")


def _guard_node_allowed(node: ast.AST) -> bool:
    if isinstance(node, (ast.Expression, ast.Load, ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp,
                         ast.Tuple, ast.cmpop, ast.boolop, ast.operator, ast.unaryop, ast.Subscript)):
        return True
    if isinstance(node, ast.Constant):
        return (node.value is None or type(node.value) in (bool, int, float)
                or (isinstance(node.value, str) and bool(_GUARD_STRING.fullmatch(node.value))))
    if isinstance(node, ast.Name):
        return node.id in ("L", "math") or node.id in _FUNCTIONS or node.id in _CONSTANT_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in _GUARD_METHODS or (
            isinstance(node.value, ast.Name) and node.value.id == "math" and node.attr in _GUARD_MATH)
    if isinstance(node, ast.Call):
        return not node.keywords and (isinstance(node.func, ast.Attribute) or (
            isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS))
    return False
