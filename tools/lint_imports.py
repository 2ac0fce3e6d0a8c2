"""Checks the package's import structure; exits non-zero when it is broken.

1. The contracts in `.importlinter` (docs/design.md section 8: dependencies point one way),
   with import-linter (the `lint-imports` command, run through `python3` so it works where
   that script is not on PATH).
2. No circle between the package's folders (`torchestimator.keras`, `torchestimator._ops`,
   ...) through the imports a module runs when it is imported (its top-level imports;
   imports inside functions run later and are not counted, nor `if TYPE_CHECKING:` blocks).
3. Every import inside a function gives its reason (`# lazy: ...`, `tools/lazy_imports.py`).
"""

from __future__ import annotations

import ast
import os
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
PACKAGE = "torchestimator"


def _modules() -> dict[str, str]:
    out = {}
    for folder, _, files in os.walk(os.path.join(ROOT, PACKAGE)):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                module = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                out[module[: -len(".__init__")] if module.endswith(".__init__") else module] = path
    return out


def _top_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    found = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, (ast.If, ast.Try)):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
                continue
            found.extend(n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
    return found


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, modules: dict) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([base] if base else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]


def _folder(module: str) -> str:
    return ".".join(module.split(".")[:2])


def folder_cycles() -> list[list[str]]:
    """The circles (strongly connected groups of more than one folder) of the folder graph of
    import-time imports."""
    modules = _modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in _top_level_imports(tree):
            for target in _targets(module, path.endswith("__init__.py"), node, modules):
                a, b = _folder(module), _folder(target)
                if b.startswith(PACKAGE + ".") and a != b and a != PACKAGE:
                    edges[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in list(edges):
        if v not in index:
            visit(v)
    return groups


def main() -> int:
    from importlinter.cli import lint_imports

    status = lint_imports()
    cycles = folder_cycles()
    for group in cycles:
        print(f"Import circle between folders at import time: {' <-> '.join(group)}", file=sys.stderr)
    if not cycles:
        print("No import circle between folders at import time.")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import lazy_imports

    missing = lazy_imports.unannotated([os.path.join(ROOT, PACKAGE)])
    for path, line, text in missing:
        print(f"{os.path.relpath(path)}:{line}: import inside a function without a "
              f"`# lazy: <reason>` comment: {text}", file=sys.stderr)
    if not missing:
        print("Every import inside a function gives its reason.")
    return 1 if status or cycles or missing else 0


if __name__ == "__main__":
    sys.exit(main())
