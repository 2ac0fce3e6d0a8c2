"""Checks and annotates the imports that run inside a function body (docs/design.md section 8).

An import inside a function is allowed only for an optional extra or a heavy module, for a
subclass that a base class's method builds (the subclass's module imports the base class at
load time, so the base's module cannot import it at its top: TF defers the same imports), or
for the one upward import `.importlinter` lists; its first line must end with
`# lazy: <reason>`, the reason in one of these forms:

    # lazy: optional extra (<distribution>)
    # lazy: heavy (<module>, N ms)
    # lazy: subclass (<module> subclasses <BaseClass>, which builds it)
    # lazy: subclass (<module> subclasses <BaseClass>; this method calls its <function>)
    # lazy: upward dependency (<folder> → <folder>), ...   (only what .importlinter ignores)

An import that only breaks some other load-time circle is not allowed: move the code both
modules need into a lower module, merge the two, or have the later module register itself.

    python3 tools/lazy_imports.py --check
        lists every import inside a function or method under src/torchestimator whose first
        line has no `# lazy: <reason>` comment; exits 1 when there is one.

    python3 tools/lazy_imports.py --annotate PATH...
        for each such import in the files and folders given, computes the reason from facts
        and writes it, or moves the import to the module's top level:

        a. a third-party module that pyproject.toml's [project].dependencies does not require
           -> `# lazy: optional extra (<dist>)`
        b. a torchestimator module whose load-time import closure (top-level imports,
           transitively, with parent packages' __init__) reaches the importing module (or a
           package __init__ that is being executed while the importing module loads)
           -> listed to fix by hand (a load-time circle: not a reason to stay lazy), unless
              it is the subclass case, which is written by hand too
        c. a torchestimator module in a folder above the importer (the layer rule of
           .importlinter and docs/design.md section 8, and the folder graph of load-time
           imports) -> `# lazy: upward dependency (<importer folder> → <target folder>), ...`
        d. a module that costs more than 50 ms to import (`python3 -X importtime`, in a fresh
           process, after the importing module is imported) -> `# lazy: heavy (<module>, N ms)`
        e. otherwise the import moves to the module's top level (merged and sorted by
           `ruff check --select I --fix`), unless moving it would change what a name means
           there or add a public name to a package; those are listed to decide by hand and
           left unannotated (so --check still reports them).

    Lines that already carry `# lazy:` are left alone, so running it twice changes nothing.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(REPO, "src")
PACKAGE = "torchestimator"
LAZY = re.compile(r"#\s*lazy:\s*\S")
ALLOWED_REASON = re.compile(
    r"#\s*lazy:\s*(optional extra \(|heavy \(|subclass \([^)]* subclasses [^)]*\)"
    r"|upward dependency \()")
HEAVY_MS = 50.0
LINE_LENGTH = 100  # pyproject.toml [tool.ruff] line-length: isort wraps longer imports



def _layer_ranks() -> dict[str, int]:
    """The layer rule (.importlinter's layers contract, docs/design.md section 8): each folder's
    height, 0 for the lowest; a folder never imports a higher one."""
    import configparser

    parser = configparser.ConfigParser(inline_comment_prefixes=(";",))
    parser.read(os.path.join(REPO, ".importlinter"))
    layers = parser.get("importlinter:contract:folder-layers", "layers", fallback="").split()
    return {name: len(layers) - i for i, name in enumerate(layers)}


_RANKS = _layer_ranks()


# --------------------------------------------------------------------------------------------
# the package's modules and their load-time imports


def _modules() -> dict[str, str]:
    out = {}
    for folder, _, files in os.walk(os.path.join(SRC, PACKAGE)):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                module = os.path.relpath(path, SRC)[:-3].replace(os.sep, ".")
                out[module[: -len(".__init__")] if module.endswith(".__init__") else module] = path
    return out


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test)


def _load_time_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported: everything outside function bodies and
    `if TYPE_CHECKING:` blocks (class bodies, `if` and `try` blocks included)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if _is_type_checking(child):
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            else:
                visit(child)

    visit(tree)
    return found


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([base] if base else []))
    return base


def _import_targets(module: str, is_package: bool, node, modules) -> list[str]:
    """The modules an import statement loads (submodules named in `from x import y` included),
    absolute names, internal or not."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = _base(module, is_package, node)
    out = []
    for a in node.names:
        sub = f"{base}.{a.name}"
        if sub in modules:
            out.append(sub)
        elif base.split(".")[0] != PACKAGE and _is_submodule(sub):
            out.append(sub)
        else:
            out.append(base)
    return list(dict.fromkeys(out))


_SUBMODULE: dict[str, bool] = {}


def _is_submodule(name: str) -> bool:
    if name not in _SUBMODULE:
        try:
            _SUBMODULE[name] = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError, AttributeError):
            _SUBMODULE[name] = False
    return _SUBMODULE[name]


def _folder(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _short(module: str) -> str:
    return module[len(PACKAGE) + 1 :] if module.startswith(PACKAGE + ".") else module


class Graph:
    """The load-time import graph of the package's modules, with memoized closures."""

    def __init__(self) -> None:
        self.modules = _modules()
        self.trees: dict[str, ast.Module] = {}
        self.edges: dict[str, set[str]] = defaultdict(set)
        for module, path in self.modules.items():
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            self.trees[module] = tree
            for node in _load_time_imports(tree):
                for target in _import_targets(module, self.is_package(module), node, self.modules):
                    if target.split(".")[0] == PACKAGE:
                        self.edges[module].add(self._known(target))
        self._closure: dict[str, frozenset[str]] = {}
        self._folder_reach: dict[str, frozenset[str]] | None = None

    def is_package(self, module: str) -> bool:
        return self.modules.get(module, "").endswith("__init__.py")

    def _known(self, name: str) -> str:
        while name not in self.modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    def add_edge(self, importer: str, target: str) -> None:
        self.edges[importer].add(self._known(target))
        self._closure.clear()
        self._folder_reach = None

    def _next(self, module: str) -> set[str]:
        """What loading `module` loads next: its load-time imports and its parent packages
        (not the root package, which is always loaded, or being loaded, first)."""
        out = set(self.edges.get(module, ()))
        parts = module.split(".")
        for i in range(2, len(parts)):
            out.add(".".join(parts[:i]))
        return out

    def closure(self, module: str) -> frozenset[str]:
        """Every package module that importing `module` loads (itself and its parents
        included, the root package only where something imports it by name)."""
        module = self._known(module)
        if module not in self._closure:
            seen = {module}
            parts = module.split(".")
            seen.update(".".join(parts[:i]) for i in range(2, len(parts)))
            todo = list(seen)
            while todo:
                for nxt in self._next(todo.pop()):
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
            self._closure[module] = frozenset(seen)
        return self._closure[module]

    def in_progress(self, module: str) -> list[str]:
        """The modules being executed while `module` loads: itself, and each parent package
        whose __init__ (transitively) imports it."""
        parts = module.split(".")
        chain = [module]
        for i in range(len(parts) - 1, 0, -1):
            parent = ".".join(parts[:i])
            if parent in self.modules and module in self.closure(parent):
                chain.append(parent)
        return chain

    def folder_reach(self, folder: str) -> frozenset[str]:
        if self._folder_reach is None:
            fedges: dict[str, set[str]] = defaultdict(set)
            for module, targets in self.edges.items():
                for target in targets:
                    a, b = _folder(module), _folder(target)
                    if a != b:
                        fedges[a].add(b)
            reach = {}
            for start in list(fedges):
                seen = {start}
                todo = [start]
                while todo:
                    for nxt in fedges.get(todo.pop(), ()):
                        if nxt not in seen:
                            seen.add(nxt)
                            todo.append(nxt)
                reach[start] = frozenset(seen)
            self._folder_reach = reach
        return self._folder_reach.get(folder, frozenset({folder}))


# --------------------------------------------------------------------------------------------
# imports inside function bodies


@dataclass
class LazyImport:
    path: str
    module: str
    node: ast.Import | ast.ImportFrom
    functions: list[ast.AST]  # enclosing function chain, outermost first
    parent_body: list[ast.stmt] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.node.lineno


def function_imports(path: str, tree: ast.Module, module: str) -> list[LazyImport]:
    found: list[LazyImport] = []

    def visit(node: ast.AST, chain: list[ast.AST]) -> None:
        for _field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if not isinstance(child, ast.AST):
                    continue
                if isinstance(child, (ast.Import, ast.ImportFrom)) and chain:
                    found.append(LazyImport(path, module, child, list(chain), value))
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    visit(child, chain + [child])
                else:
                    visit(child, chain)

    visit(tree, [])
    return found


def _files(paths: list[str]) -> list[str]:
    out = []
    for p in paths:
        p = os.path.abspath(p)
        if os.path.isdir(p):
            for folder, _, files in os.walk(p):
                out.extend(os.path.join(folder, n) for n in files if n.endswith(".py"))
        elif p.endswith(".py"):
            out.append(p)
    return sorted(set(out))


def _module_of(path: str) -> str:
    module = os.path.relpath(path, SRC)[:-3].replace(os.sep, ".")
    return module[: -len(".__init__")] if module.endswith(".__init__") else module


def has_reason(lines: list[str], line: int, pattern: re.Pattern = LAZY) -> bool:
    """Whether the import starting on 1-based `line` gives its reason: a `# lazy:` comment on one
    of its own lines (ruff may wrap a long import and keep the comment on a later line), or on
    a comment line just above it."""
    above = lines[line - 2].strip() if line >= 2 else ""
    if above.startswith("#") and pattern.search(above):
        return True
    depth = 0
    for text in lines[line - 1:]:
        if pattern.search(text):
            return True
        code = text.split("#", 1)[0]
        depth += code.count("(") - code.count(")")
        if depth <= 0:
            return False
    return False


def unannotated(paths: list[str]) -> list[tuple[str, int, str]]:
    out = []
    for path in _files(paths):
        with open(path, encoding="utf-8") as f:
            source = f.read()
        lines = source.splitlines()
        for imp in function_imports(path, ast.parse(source, path), _module_of(path)):
            if not has_reason(lines, imp.line, ALLOWED_REASON):
                out.append((path, imp.line, lines[imp.line - 1].strip()))
    return out


# --------------------------------------------------------------------------------------------
# facts: required dependencies, distributions, import cost


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def required_dists() -> set[str]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        deps = tomllib.load(f)["project"]["dependencies"]
    return {_norm(re.split(r"[ <>=!~;\[]", d, maxsplit=1)[0]) for d in deps}


_DISTS: dict[str, list[str]] | None = None


def dist_of(module: str) -> str:
    """The distribution that provides `module` (its top-level name when none is installed)."""
    global _DISTS
    if _DISTS is None:
        _DISTS = importlib.metadata.packages_distributions()
    top = module.split(".")[0]
    dists = _DISTS.get(top, [])
    if len(dists) > 1:  # a namespace package (google.*): find the one holding the module
        spec = _find_spec(module)
        origin = spec.origin if spec and spec.origin else ""
        for d in dists:
            for f in importlib.metadata.files(d) or ():
                if origin and str(f.locate()) == origin:
                    return d
    return dists[0] if dists else top


def _find_spec(name: str):
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None


_WORKER = r"""
import importlib, json, os, sys
plan = json.load(open(sys.argv[1]))
import torchestimator  # every importer loads the root package first; load it once, then fork


def cost(mods):
    best = once(mods)
    for _ in range(2):
        total = sum(v for k, v in best.items() if k != "@resolved")
        if not 25 < total < 150:
            break
        again = once(mods)
        if sum(v for k, v in again.items() if k != "@resolved") < total:
            best = again
    return best


def once(mods):
    fd, log = tempfile.mkstemp()
    pid = os.fork()
    if pid == 0:
        os.dup2(fd, 2)
        os.write(2, b"@@MARK@@\n")
        resolved = []
        for m, fromlist in mods:
            try:
                module = __import__(m, fromlist=fromlist or [])
            except Exception:
                continue
            for name in fromlist or []:
                obj = getattr(module, name, None)
                where = getattr(obj, "__name__", None) if type(obj) is type(os) else getattr(obj, "__module__", None)
                if isinstance(where, str):
                    resolved.append(where)
        os.write(2, ("\n@@RESOLVED@@" + json.dumps(resolved) + "\n").encode())
        os._exit(0)
    os.waitpid(pid, 0)
    os.close(fd)
    with open(log) as f:
        text = f.read().split("@@MARK@@\n", 1)[-1]
    os.unlink(log)
    text, _, tail = text.partition("\n@@RESOLVED@@")
    resolved = json.loads(tail.splitlines()[0]) if tail else []
    rows = []
    for line in text.splitlines():
        parts = line.split(":", 1)[-1].split("|")
        if line.startswith("import time:") and len(parts) == 3 and parts[0].strip().isdigit():
            rows.append((len(parts[2]) - len(parts[2].lstrip()), int(parts[1]), parts[2].strip()))
    if not rows:
        return {"@resolved": resolved}
    top = min(r[0] for r in rows)
    return {**{n: c / 1000 for d, c, n in rows if d == top}, "@resolved": resolved}


import tempfile
out = {}
for importer, jobs in plan.items():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        try:
            importlib.import_module(importer)
            res = {key: cost(mods) for key, mods in jobs.items()}
        except Exception as e:
            res = {"error": f"{type(e).__name__}: {e}"}
        data = json.dumps(res).encode()
        while data:
            data = data[os.write(w, data):]
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    try:
        out[importer] = json.loads(b"".join(chunks))
    except json.JSONDecodeError:
        out[importer] = {"error": "the measuring process died"}
print(json.dumps(out))
"""


def measure(jobs: dict[str, dict[str, list]], workers: int = 2) -> dict[str, dict[str, dict]]:
    """For each importer, the import cost (ms, per top-level module loaded) of each job, in a
    `python3 -X importtime` process forked after the importer was imported (fresh for each
    importer and each job: a fork of a process that imported only the root package)."""
    importers = sorted(jobs)
    shares = [importers[i::workers] for i in range(workers)]

    def one(share: list[str]) -> dict:
        if not share:
            return {}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({k: jobs[k] for k in share}, f)
        try:
            proc = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", _WORKER, f.name],
                capture_output=True, text=True, cwd=tempfile.gettempdir(), timeout=1800,
            )
        finally:
            os.unlink(f.name)
        try:
            return json.loads(proc.stdout.strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError):
            return {k: {"error": proc.stderr[-500:]} for k in share}

    out: dict = {}
    with ThreadPoolExecutor(workers) as pool:
        for part in pool.map(one, shares):
            out.update(part)
    return out


# --------------------------------------------------------------------------------------------
# deciding


def _bound(alias: ast.alias, node) -> str:
    if alias.asname:
        return alias.asname
    return alias.name.split(".")[0] if isinstance(node, ast.Import) else alias.name


def _identity(module: str, is_package: bool, node, alias: ast.alias) -> tuple:
    if isinstance(node, ast.Import):
        return ("import", alias.name if alias.asname else alias.name.split(".")[0])
    return ("from", _base(module, is_package, node), alias.name)


def _module_bindings(tree: ast.Module) -> dict[str, list]:
    """Names bound at module level: name -> list of identities (None for a non-import)."""
    out: dict[str, list] = defaultdict(list)

    def targets(t):
        for n in ast.walk(t):
            if isinstance(n, ast.Name):
                yield n.id

    def visit(stmts, guarded=False):
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out[s.name].append(None)
            elif isinstance(s, (ast.Import, ast.ImportFrom)):
                for a in s.names:
                    out[_bound(a, s)].append(("tc",) if guarded else ("node", s, a))
            elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for t in s.targets if isinstance(s, ast.Assign) else [s.target]:
                    for n in targets(t):
                        out[n].append(None)
            elif isinstance(s, (ast.For, ast.AsyncFor)):
                for n in targets(s.target):
                    out[n].append(None)
                visit(s.body, guarded)
                visit(s.orelse, guarded)
            elif isinstance(s, (ast.With, ast.AsyncWith)):
                for item in s.items:
                    if item.optional_vars is not None:
                        for n in targets(item.optional_vars):
                            out[n].append(None)
                visit(s.body, guarded)
            elif isinstance(s, ast.If):
                visit(s.body, guarded or _is_type_checking(s))
                visit(s.orelse, guarded)
            elif isinstance(s, ast.Try):
                visit(s.body, guarded)
                for h in s.handlers:
                    if h.name:
                        out[h.name].append(None)
                    visit(h.body, guarded)
                visit(s.orelse, guarded)
                visit(s.finalbody, guarded)
        return out

    visit(tree.body)
    for n in ast.walk(tree):
        if isinstance(n, ast.Global):
            for name in n.names:
                out[name].append(None)
        elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            pass
    return out


def _local_bindings(func: ast.AST, name: str) -> list[ast.AST]:
    """The nodes inside `func` (its own scope, not nested functions) that bind `name`."""
    found = []
    args = getattr(func, "args", None)
    if args is not None:
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None and a.arg == name:
                found.append(a)

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if child.name == name:
                    found.append(child)
                continue
            if isinstance(child, ast.Lambda):
                continue
            if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, (ast.Store, ast.Del)):
                found.append(child)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                for a in child.names:
                    if _bound(a, child) == name:
                        found.append(child)
            elif isinstance(child, ast.ExceptHandler) and child.name == name:
                found.append(child)
            elif isinstance(child, (ast.Global, ast.Nonlocal)) and name in child.names:
                found.append(child)
            visit(child)

    for stmt in getattr(func, "body", []) if not isinstance(func, ast.Lambda) else []:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if stmt.name == name:
                found.append(stmt)
            continue
        wrapper = ast.Module(body=[stmt], type_ignores=[])
        visit(wrapper)
    return found


def _uses(func: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(func))


@dataclass
class Decision:
    imp: LazyImport
    category: str  # a b c d e, or "hand" (light, but moving it would change a meaning)
    reason: str = ""


class Annotator:
    def __init__(self) -> None:
        self.graph = Graph()
        self.required = required_dists()
        self.stdlib = set(sys.stdlib_module_names)
        self._bindings: dict[str, dict] = {}

    def static(self, imp: LazyImport) -> Decision | None:
        """a, b or c; None when the cost decides."""
        g = self.graph
        targets = _import_targets(imp.module, g.is_package(imp.module), imp.node, g.modules)
        external = [t for t in targets if t.split(".")[0] != PACKAGE]
        for t in external:
            top = t.split(".")[0]
            if top in self.stdlib:
                continue
            dist = dist_of(t)
            if _norm(dist) not in self.required:
                return Decision(imp, "a", f"optional extra ({dist})")
        return self.circular(imp)

    def circular(self, imp: LazyImport, resolved: list[str] = ()) -> Decision | None:
        g = self.graph
        targets = _import_targets(imp.module, g.is_package(imp.module), imp.node, g.modules)
        targets += [m for m in resolved if m in g.modules]
        internal = [g._known(t) for t in targets if t.split(".")[0] == PACKAGE]
        chain = g.in_progress(imp.module)
        for t in internal:
            closure = g.closure(t)
            if t == PACKAGE and PACKAGE in chain:
                return Decision(imp, "b", f"{PACKAGE} imports this module at load time")
            for m in chain:
                if m in closure:
                    what = "this module" if m == imp.module else f"{_short(m)} (this module's package)"
                    return Decision(imp, "b", f"{_short(t)} imports {what} at load time")
        a = _folder(imp.module)
        for t in internal:
            b = _folder(t)
            if a == b:
                continue
            fa, fb = _short(a), _short(b)
            if _RANKS.get(fb, -1) > _RANKS.get(fa, len(_RANKS) + 1) or a in g.folder_reach(b):
                return Decision(imp, "c", f"upward dependency ({fa} → {fb}), loaded when used")
        return None

    def measure_job(self, imp: LazyImport) -> list | None:
        """What to import to measure the cost, or None when it is certainly already loaded."""
        g = self.graph
        node = imp.node
        if isinstance(node, ast.Import):
            mods = [[a.name, []] for a in node.names]
        else:
            base = _base(imp.module, g.is_package(imp.module), node)
            mods = [[base, [a.name for a in node.names]]]
        targets = _import_targets(imp.module, g.is_package(imp.module), node, g.modules)
        if isinstance(node, ast.ImportFrom) and self.dynamic_names(imp):
            return mods
        closure = g.closure(imp.module)
        if all(t.split(".")[0] == PACKAGE and g._known(t) in closure for t in targets):
            return None
        return mods

    def dynamic_names(self, imp: LazyImport) -> list[str]:
        """The names of `from <package module> import name` that the module does not bind at
        its top level (a module `__getattr__` gives them, loading other modules)."""
        g = self.graph
        if not isinstance(imp.node, ast.ImportFrom):
            return []
        base = _base(imp.module, g.is_package(imp.module), imp.node)
        if base not in g.modules:
            return []
        if base not in self._bindings:
            self._bindings[base] = _module_bindings(g.trees[base])
        bound = self._bindings[base]
        return [
            a.name for a in imp.node.names
            if f"{base}.{a.name}" not in g.modules and a.name not in bound
        ]

    def movable(self, imp: LazyImport, tree: ast.Module, bindings) -> str | None:
        """None when moving to the top level keeps every name's meaning, else the fact."""
        g = self.graph
        node = imp.node
        if len(imp.functions) and isinstance(imp.functions[0], ast.Lambda):
            return "inside a lambda"
        if imp.path.endswith("__init__.py") and not all(
            _bound(a, node).startswith("_") for a in node.names
        ):
            return "moving it would add a public name to the package's namespace"
        names = []
        for a in node.names:
            name = _bound(a, node)
            ident = _identity(imp.module, g.is_package(imp.module), node, a)
            names.append(name)
            for b in bindings.get(name, []):
                if b is None or b[0] == "tc":
                    return f"module level binds {name!r} otherwise"
                if _identity(imp.module, g.is_package(imp.module), b[1], b[2]) != ident and not (
                    ident[0] == "import" and b[1:] and isinstance(b[1], ast.Import)
                    and b[2].name.split(".")[0] == name and not b[2].asname and not a.asname
                ):
                    return f"module level binds {name!r} otherwise"
            for func in imp.functions:
                for n in _local_bindings(func, name):
                    if n is node:
                        continue
                    if isinstance(n, (ast.Import, ast.ImportFrom)) and all(
                        _identity(imp.module, g.is_package(imp.module), n, x) == ident
                        for x in n.names if _bound(x, n) == name
                    ):
                        continue
                    return f"{getattr(func, 'name', 'lambda')}() binds {name!r} otherwise"
        if not any(_uses(imp.functions[-1], n) for n in names):
            return "imported for its side effect"
        if isinstance(node, ast.ImportFrom):
            patched = [a.name for a in node.names if a.name in _patched_names()]
            if patched:  # a top-level `from m import f` would keep the unpatched f
                return f"tests monkeypatch {patched[0]!r}; import its module and look it up per call"
        return None


_PATCHED: set[str] | None = None


def _patched_names() -> set[str]:
    """The attribute names the tests replace with `monkeypatch.setattr(module, "name", ...)`."""
    global _PATCHED
    if _PATCHED is None:
        _PATCHED = set()
        pattern = re.compile(r"""setattr\(\s*[\w.]+\s*,\s*["'](\w+)["']""")
        for folder, _, files in os.walk(os.path.join(REPO, "tests")):
            for name in files:
                if name.endswith(".py"):
                    with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                        _PATCHED.update(pattern.findall(f.read()))
    return _PATCHED


def _render(module: str, node) -> str:
    names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
    if isinstance(node, ast.Import):
        return f"import {names}"
    return f"from {'.' * node.level}{node.module or ''} import {names}"


def _top_insert_line(tree: ast.Module) -> int:
    """The line after which a new top-level import goes (0-based index into lines)."""
    last = 0
    for i, s in enumerate(tree.body):
        if i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            last = s.end_lineno
            continue
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            last = s.end_lineno
            continue
        break
    return last


def annotate(paths: list[str], dry_run: bool = False, verbose: bool = False) -> dict:
    ann = Annotator()
    g = ann.graph
    files = _files(paths)
    pending: list[LazyImport] = []
    decisions: list[Decision] = []
    sources: dict[str, list[str]] = {}
    trees: dict[str, ast.Module] = {}
    for path in files:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        lines = source.splitlines(keepends=True)
        sources[path] = lines
        tree = ast.parse(source, path)
        trees[path] = tree
        for imp in function_imports(path, tree, _module_of(path)):
            if has_reason([x.rstrip("\n") for x in lines], imp.line):
                continue
            d = ann.static(imp)
            if d:
                decisions.append(d)
            else:
                pending.append(imp)

    jobs: dict[str, dict[str, list]] = defaultdict(dict)
    for imp in pending:
        job = ann.measure_job(imp)
        if job is not None:
            jobs[imp.module][_render(imp.module, imp.node)] = job
    costs = measure(dict(jobs)) if jobs else {}

    bindings = {p: _module_bindings(t) for p, t in trees.items()}
    for imp in pending:
        result = costs.get(imp.module, {})
        cost = dict(result.get(_render(imp.module, imp.node), {})) if "error" not in result else None
        resolved = cost.pop("@resolved", []) if cost else []
        if ann.dynamic_names(imp) and not resolved and cost is not None:
            cost = None
            result = {"error": f"{_render(imp.module, imp.node)}: names not resolved"}
        # the graph may have grown with earlier moves; names a package's __getattr__ gives
        # count as imports of the modules that define them
        d = ann.circular(imp, resolved)
        if d:
            decisions.append(d)
            continue
        if cost is None:
            decisions.append(Decision(imp, "hand", "the importing module could not be measured"))
            print(f"cannot measure {imp.module}: {result['error']}", file=sys.stderr)
            continue
        total = sum(cost.values())
        if total > HEAVY_MS:
            heaviest = max(cost, key=cost.get)
            decisions.append(Decision(imp, "d", f"heavy ({heaviest}, {round(total)} ms)"))
            continue
        why = ann.movable(imp, trees[imp.path], bindings[imp.path])
        if why:
            decisions.append(Decision(imp, "hand", why))
            continue
        targets = _import_targets(imp.module, g.is_package(imp.module), imp.node, g.modules)
        for t in targets + [m for m in resolved if m in g.modules]:
            if t.split(".")[0] == PACKAGE:
                g.add_edge(imp.module, t)
        decisions.append(Decision(imp, "e"))

    counts: dict[str, int] = defaultdict(int)
    for d in decisions:
        counts[d.category] += 1
        if verbose:
            rel = os.path.relpath(d.imp.path, REPO)
            print(f"{d.category} {rel}:{d.imp.line}: {_render(d.imp.module, d.imp.node)}  {d.reason}")
    if not dry_run:
        _write(decisions, sources, trees)
    return dict(counts)


def _write(decisions: list[Decision], sources, trees) -> None:
    by_file: dict[str, list[Decision]] = defaultdict(list)
    for d in decisions:
        by_file[d.imp.path].append(d)
    moved_files = []
    for path, ds in by_file.items():
        lines = sources[path]
        tree = trees[path]
        moves = [d for d in ds if d.category == "e"]
        # bodies that every moved import would leave empty keep one `pass`
        emptied = {}
        for d in moves:
            emptied.setdefault(id(d.imp.parent_body), [d.imp.parent_body, 0])[1] += 1
        add_pass = {id(body) for body, n in emptied.values() if n == len(body)}
        edits: list[tuple[int, int, list[str]]] = []  # (start idx, end idx exclusive, new lines)
        done_pass = set()
        for d in ds:
            node = d.imp.node
            i = node.lineno - 1
            if d.category == "hand":
                rel = os.path.relpath(path, REPO)
                print(f"{rel}:{node.lineno}: decide by hand (light, not movable: {d.reason})", file=sys.stderr)
                continue
            if d.category == "b":
                rel = os.path.relpath(path, REPO)
                print(f"{rel}:{node.lineno}: a load-time circle ({d.reason}): move the code both "
                      "need into a lower module, merge the two, or register; or, when the target "
                      "subclasses this module's class, write `# lazy: subclass (...)` by hand",
                      file=sys.stderr)
                continue
            if d.category != "e":
                line = lines[i].rstrip("\r\n")
                eol = lines[i][len(line):]
                if line.rstrip().endswith("\\"):
                    print(f"{path}:{node.lineno}: backslash continuation, annotate by hand: {d.reason}", file=sys.stderr)
                    continue
                comment = f"  # lazy: {d.reason}"
                text = f"{line.rstrip()}{comment}"
                if (
                    len(text) > LINE_LENGTH and isinstance(node, ast.ImportFrom)
                    and node.lineno == node.end_lineno and "(" not in line and "#" not in line
                ):
                    indent = line[: node.col_offset]
                    head = f"{indent}from {'.' * node.level}{node.module or ''} import ({comment}{eol}"
                    body = [
                        f"{indent}    {a.name}{f' as {a.asname}' if a.asname else ''},{eol}"
                        for a in node.names
                    ]
                    edits.append((i, i + 1, [head, *body, f"{indent}){eol}"]))
                else:
                    edits.append((i, i + 1, [f"{text}{eol}"]))
            else:
                indent = lines[i][: node.col_offset]
                replacement = []
                if id(d.imp.parent_body) in add_pass and id(d.imp.parent_body) not in done_pass:
                    done_pass.add(id(d.imp.parent_body))
                    replacement = [f"{indent}pass\n"]
                edits.append((i, node.end_lineno, replacement or [None]))
        existing = {
            _render("", s) for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))
        }
        new_top = []
        for d in moves:
            text = _render(d.imp.module, d.imp.node)
            if text not in existing and text not in new_top:
                new_top.append(text)
        for start, end, new in sorted(edits, reverse=True):
            lines[start:end] = new
        kept: list[str] = []
        for k, line in enumerate(lines):
            if line is None:
                continue
            if (
                not line.strip() and k > 0 and lines[k - 1] is None and kept
                and re.sub(r"\s+#.*$", "", kept[-1].rstrip()).endswith(":")
            ):
                continue  # the blank line after an import that opened a block
            kept.append(line)
        lines[:] = kept
        if new_top:
            at = _top_insert_line(tree)
            lines[at:at] = [t + "\n" for t in new_top]
            moved_files.append(path)
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)
    if moved_files:
        subprocess.run(["ruff", "check", "--select", "I", "--fix", "--quiet", *moved_files], cwd=REPO)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true", help="list imports in functions without `# lazy:`")
    group.add_argument("--annotate", nargs="+", metavar="PATH", help="annotate or move them")
    parser.add_argument("--dry-run", action="store_true", help="with --annotate: decide, write nothing")
    parser.add_argument("-v", "--verbose", action="store_true", help="with --annotate: print each decision")
    parser.add_argument("paths", nargs="*", help="with --check: files or folders (default: the package)")
    args = parser.parse_args(argv)
    if args.check:
        missing = unannotated(args.paths or [os.path.join(SRC, PACKAGE)])
        for path, line, text in missing:
            print(f"{os.path.relpath(path, REPO)}:{line}: import inside a function without an "
                  f"allowed `# lazy: <reason>` (optional extra, heavy, subclass): {text}")
        if missing:
            print(f"{len(missing)} import(s) inside functions without an allowed `# lazy:` reason.",
                  file=sys.stderr)
        return 1 if missing else 0
    counts = annotate(args.annotate, dry_run=args.dry_run, verbose=args.verbose)
    print("decisions: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
