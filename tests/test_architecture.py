"""The shape of the code, checked on every run: layers whose imports point down
only, no import cycles, no import tucked inside a function to dodge one, surfaces that call
the app rather than an adapter, an app that holds rules only (no SQL, no file access: both
live behind adapters), and small modules and functions.

Layers, low to high: ``core`` (pure) → ``adapters`` (I/O) → ``app`` (use-cases) →
``surfaces`` (MCP, CLI, HTTP, web) and the ``benchmark`` tooling beside them.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "hoard"

LAYERS = {"core": 0, "adapters": 1, "app": 2, "surfaces": 3, "benchmark": 3}
"""A module's layer is its first package below ``hoard``; ``hoard/__init__`` is core."""

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60

LAZY_IMPORTS = {
    # Heavy or optional imports deferred to the one path that needs them; none of them is
    # a hoard module that imports the importer back.
    ("hoard.adapters.fs.watcher", "watchfiles"): "inotify backend, only when watching",
    ("hoard.benchmark.server", "httpx2"): "the SDK's HTTP client, only for the bench",
    # The semantic runtime is an optional install (numpy, onnxruntime): its modules load only
    # when [semantic] is enabled, after the thread limits are set (type names otherwise).
    ("hoard.adapters.semantic.runtime", "hoard.adapters.semantic.encoder"): "optional numpy",
    ("hoard.adapters.semantic.runtime", "hoard.adapters.semantic.store"): "optional numpy",
    ("hoard.adapters.semantic.service", "hoard.adapters.semantic.encoder"): "optional numpy",
    ("hoard.adapters.semantic.service", "hoard.adapters.semantic.store"): "optional numpy",
    ("hoard.adapters.semantic.encoder", "hoard.adapters.semantic.graph"): "optional onnx",
    # The CLI loads each command's stack only when that command runs.
    ("hoard.surfaces.cli.main", "hoard.surfaces.cli.commands"): "--version loads no app",
    ("hoard.surfaces.cli.commands", "hoard.surfaces.cli.serve_stdio"): "the MCP SDK",
    ("hoard.surfaces.cli.commands", "hoard.surfaces.cli.serve_http"): "uvicorn, Jinja",
    ("hoard.surfaces.cli.commands", "hoard.surfaces.cli.bench_run"): "the bench's client",
    ("hoard.surfaces.cli.commands", "hoard.surfaces.cli.remote"): "pydantic, for --server",
    ("hoard.surfaces.cli.commands", "hoard.surfaces.cli.store_run"): "psycopg, for hoard store",
    # The vault opens in a thread while the SDK loads: the open's 0.1 s hides under it.
    ("hoard.surfaces.cli.serve_stdio", "hoard.surfaces.serve"): "the MCP SDK (0.5 s)",
    # Slow standard-library imports a search never needs (tests/surfaces/cli/test_start.py).
    ("hoard.adapters.search.rerank", "urllib"): "an HTTP client, only for a rerank endpoint",
    ("hoard.adapters.index.parallel", "multiprocessing"): "only for a parallel rebuild",
    ("hoard.adapters.index.parallel", "concurrent.futures"): "only for a parallel rebuild",
    ("hoard.adapters.semantic.runtime", "importlib.metadata"): "only with [semantic] on",
    (
        "hoard.adapters.store.shared",
        "hoard.adapters.store.pg",
    ): "psycopg (0.2 s): a store URL",
    # Type names only: these modules are on the default path, psycopg is not.
    ("hoard.adapters.store.coordination", "hoard.adapters.store.pg"): "psycopg's types",
    ("hoard.adapters.store.leader", "hoard.adapters.store.pg"): "psycopg's types",
    ("hoard.adapters.store.replica", "hoard.adapters.store.pg"): "psycopg's types",
    (
        "hoard.adapters.store.shared",
        "hoard.adapters.store.pg_locks",
    ): "psycopg (0.2 s): a store URL",
}
"""(module, imported) pairs allowed inside a function, each with its reason. A module that
calls ``importlib.import_module`` imports, inside a function, each hoard module it names in a
string: those imports are checked like the others (layers, cycles, this table)."""


@dataclass(frozen=True)
class Import:
    module: str
    target: str
    line: int
    inline: bool
    type_checking: bool


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _modules() -> tuple[tuple[str, Path], ...]:
    return tuple((module_name(p), p) for p in sorted(PACKAGE.rglob("*.py")))


def modules() -> dict[str, Path]:
    return dict(_modules())


def layer_of(module: str) -> int:
    parts = module.split(".")
    return LAYERS[parts[1]] if len(parts) > 1 and parts[1] in LAYERS else 0


def resolve(target: str, known: dict[str, Path]) -> str | None:
    """The hoard module an import names (``from hoard.x import y`` may name module x.y)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@functools.cache
def parsed(path: Path) -> ast.Module:
    """Each module parsed once for the whole run."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _calls_import_module(tree: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "import_module"
        for n in ast.walk(tree)
    )


def named_imports(module: str, tree: ast.Module, known: dict[str, Path]) -> Iterator[Import]:
    """The hoard modules a module loads through ``importlib.import_module``: each string
    in it that names a hoard module, counted as an import inside a function."""
    if not _calls_import_module(tree):
        return
    for node in ast.walk(tree):
        value = node.value if isinstance(node, ast.Constant) else None
        if isinstance(value, str) and "." in value and value in known and value != module:
            yield Import(module, value, node.lineno, True, False)


def imports_of(module: str, path: Path) -> Iterator[Import]:
    tree = parsed(path)

    def walk(node: ast.AST, inline: bool, guarded: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            fn = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            tc = isinstance(child, ast.If) and _is_type_checking(child)
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(module, alias.name, child.lineno, inline, guarded)
            elif isinstance(child, ast.ImportFrom) and child.module and not child.level:
                for alias in child.names:
                    target = f"{child.module}.{alias.name}"
                    yield Import(module, target, child.lineno, inline, guarded)
            yield from walk(child, inline or fn, guarded or tc)

    yield from walk(tree, False, False)


@functools.cache
def hoard_imports() -> tuple[Import, ...]:
    """Every import of every module, computed once for the whole run."""
    known = modules()
    out = []
    for module, path in known.items():
        out.extend(named_imports(module, parsed(path), known))
        for imp in imports_of(module, path):
            if imp.target.split(".")[0] != "hoard":
                out.append(imp)
                continue
            resolved = resolve(imp.target, known)
            if resolved is not None and resolved != module:
                out.append(Import(module, resolved, imp.line, imp.inline, imp.type_checking))
    return tuple(out)


def test_every_import_points_down_or_stays_in_its_layer() -> None:
    upward = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in hoard_imports()
        if i.target.startswith("hoard") and layer_of(i.target) > layer_of(i.module)
    ]
    assert upward == []


def test_surfaces_call_the_app_never_an_adapter() -> None:
    reached = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in hoard_imports()
        if i.module.startswith("hoard.surfaces") and i.target.startswith("hoard.adapters")
    ]
    assert reached == []


def test_the_app_never_imports_the_composition_root() -> None:
    root = "hoard.app.hoard"
    users = [
        f"{i.module}:{i.line}"
        for i in hoard_imports()
        if i.target == root and i.module.startswith("hoard.app")
    ]
    assert users == []


def test_the_core_does_no_io() -> None:
    io_modules = {"os", "io", "sqlite3", "socket", "subprocess", "shutil", "tomllib", "httpx"}
    found = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in hoard_imports()
        if layer_of(i.module) == 0 and i.target.split(".")[0] in io_modules
    ]
    assert found == []


DRIVER_MODULES = {"sqlite3", "os", "io", "shutil", "tempfile"}
"""Modules a use-case never imports: the database driver and direct file access."""

SQL_CALLS = {"execute", "executemany", "executescript"}
FILE_CALLS = {
    "read_bytes",
    "read_text",
    "write_bytes",
    "write_text",
    "lstat",
    "stat",
    "fdopen",
    "is_file",
    "is_dir",
    "is_symlink",
    "exists",
    "mkdir",
    "iterdir",
}
"""Methods that reach the file system: on a use-case's side these would be ``Path`` calls."""


def io_calls(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``(line, what)`` for each SQL statement run, file opened or file looked at in
    ``tree``: a call of ``open``, of an ``os``/``io`` function, or of a method named in
    :data:`SQL_CALLS` or :data:`FILE_CALLS`."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            yield node.lineno, "open()"
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else None
            if owner in DRIVER_MODULES:
                yield node.lineno, f"{owner}.{func.attr}()"
            elif func.attr in SQL_CALLS or func.attr in FILE_CALLS:
                yield node.lineno, f".{func.attr}()"


def test_the_app_runs_no_sql_and_touches_no_file_itself() -> None:
    found = [
        f"{m}:{line} calls {what}"
        for m, path in modules().items()
        if m.startswith("hoard.app")
        for line, what in io_calls(parsed(path))
    ]
    assert found == []


def test_the_app_imports_neither_the_database_driver_nor_file_access() -> None:
    found = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in hoard_imports()
        if i.module.startswith("hoard.app") and i.target.split(".")[0] in DRIVER_MODULES
    ]
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        "conn.execute('SELECT 1')",
        "self.deps.index.reader().executemany('INSERT', [])",
        "conn.executescript('')",
        "open('x')",
        "os.open(p, os.O_RDONLY)",
        "os.lstat(p)",
        "(root / rel).read_bytes()",
        "path.write_text('x')",
        "p.stat().st_size",
        "(root / rel).is_file()",
    ],
)
def test_the_io_check_finds_a_statement_or_a_file_access(source: str) -> None:
    assert list(io_calls(ast.parse(source))) != []


def test_the_io_check_lets_adapter_calls_through() -> None:
    source = "self.table.latest(p); vault.plain_bytes(p); atomic.replace(v, p, b'', 'x')"
    assert list(io_calls(ast.parse(source))) == []


def test_there_is_no_import_cycle_between_hoard_modules() -> None:
    graph: dict[str, set[str]] = {m: set() for m in modules()}
    for i in hoard_imports():
        if i.target in graph:
            graph[i.module].add(i.target)
    cycles = find_cycles(graph)
    assert cycles == []


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_hides_inside_a_function_or_a_type_checking_block() -> None:
    hidden = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in hoard_imports()
        if (i.inline or i.type_checking)
        and not any(i.module == m and i.target.startswith(t) for m, t in LAZY_IMPORTS)
        and (i.target.startswith("hoard") or i.inline)
    ]
    assert hidden == []


def test_no_module_is_longer_than_the_limit() -> None:
    long = {
        m: n
        for m, p in modules().items()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_longer_than_the_limit() -> None:
    long = []
    for module, path in modules().items():
        for node in ast.walk(parsed(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{module}.{node.name}: {lines} lines")
    assert long == []


def test_the_layer_table_names_every_package_below_hoard() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages <= set(LAYERS), "a new top-level package needs its layer"


@pytest.mark.parametrize(
    ("module", "expected"),
    [("hoard.core.paths", 0), ("hoard.adapters.fs.vault", 1), ("hoard.app.search", 2)],
)
def test_a_module_is_in_the_layer_of_its_first_package(module: str, expected: int) -> None:
    assert layer_of(module) == expected


def test_a_module_named_to_import_module_counts_as_an_import_inside_a_function() -> None:
    named = {(i.module, i.target) for i in hoard_imports() if i.inline}
    assert ("hoard.surfaces.cli.main", "hoard.surfaces.cli.commands") in named
    assert ("hoard.surfaces.cli.commands", "hoard.surfaces.cli.serve_stdio") in named


def test_the_cycle_finder_finds_a_cycle_and_nothing_else() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c"]]


BENCH = SRC.parent / "bench"
MAX_POSITIONAL_RECORD_ARGS = 4
"""A record (dataclass or NamedTuple) built from five or more values names them: positional
arguments past four are a row of values whose order only the class definition tells."""


def _is_record(node: ast.ClassDef) -> bool:
    def name(e: ast.expr) -> str:
        e = e.func if isinstance(e, ast.Call) else e
        return e.attr if isinstance(e, ast.Attribute) else getattr(e, "id", "")

    return any(name(d) == "dataclass" for d in node.decorator_list) or any(
        name(b) == "NamedTuple" for b in node.bases
    )


@functools.cache
def _code_modules() -> tuple[tuple[str, Path], ...]:
    """Every module of the package and of the benchmarks (a bench script by its file name,
    as its neighbours import it)."""
    return (*_modules(), *((p.stem, p) for p in sorted(BENCH.rglob("*.py"))))


@functools.cache
def record_classes() -> frozenset[tuple[str, str]]:
    """``(module, class)`` of each dataclass and NamedTuple defined in the code."""
    return frozenset(
        (module, node.name)
        for module, path in _code_modules()
        for node in ast.walk(parsed(path))
        if isinstance(node, ast.ClassDef) and _is_record(node)
    )


def positional_records(
    module: str, tree: ast.Module, records: frozenset[tuple[str, str]]
) -> Iterator[str]:
    """``line Class(n)`` for each record built from more positional values than
    :data:`MAX_POSITIONAL_RECORD_ARGS`. A name is resolved to a class defined in ``module`` or
    imported from another module of the code (``cls`` to its enclosing class). Allowed: a call
    that unpacks a sequence (``Row(*row)``), which builds a NamedTuple from a database row in
    the order of its columns."""
    names = {n.name: (module, n.name) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.update({a.asname or a.name: (node.module, a.name) for a in node.names})

    def walk(node: ast.AST, enclosing: tuple[str, str] | None) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Name):
                called = enclosing if child.func.id == "cls" else names.get(child.func.id)
                many = len(child.args) > MAX_POSITIONAL_RECORD_ARGS
                unpacks = any(isinstance(a, ast.Starred) for a in child.args)
                if called in records and many and not unpacks:
                    yield f"{child.lineno} {child.func.id}({len(child.args)})"
            inner = (module, child.name) if isinstance(child, ast.ClassDef) else enclosing
            yield from walk(child, inner)

    yield from walk(tree, None)


def test_records_of_five_or_more_fields_are_built_with_keywords() -> None:
    records = record_classes()
    found = [
        f"{path.relative_to(SRC.parent)}:{where}"
        for module, path in _code_modules()
        for where in positional_records(module, parsed(path), records)
    ]
    assert found == []


def test_the_record_check_finds_positional_values_and_lets_names_and_rows_through() -> None:
    source = (
        "from hoard.x import Seen\n"
        "@dataclass\nclass Span:\n    a: int\n"
        "    @classmethod\n    def of(cls): return cls(1, 2, 3, 4, 5)\n"
        "Span(1, 2, 3, 4, 5)\nSpan(1, 2, 3, 4, e=5)\nSpan(*row)\nSeen(1, 2, 3, 4, 5, 6)\n"
        "Other(1, 2, 3, 4, 5)\n"
    )
    records = frozenset({("m", "Span"), ("hoard.x", "Seen")})
    found = sorted(positional_records("m", ast.parse(source), records))
    assert found == ["10 Seen(6)", "6 cls(5)", "7 Span(5)"]


def test_no_line_of_the_code_is_kept_from_the_formatter() -> None:
    kept = [
        f"{path.relative_to(SRC.parent)}:{n}"
        for _, path in _code_modules()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "# fmt: skip" in line or "# fmt: off" in line
    ]
    assert kept == []
