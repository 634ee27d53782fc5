"""The folders are the architecture: every import points down the layers, nothing below the
front-ends imports them, and no two modules import each other."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Top to bottom. Layers on one line are peers and may not import each other.
LAYERS: list[tuple[str, ...]] = [
    ("biomd.frontends", "biomd.integrations"),  # integrations import nothing of biomd at all
    ("biomd.app",),
    ("biomd.biographer",),
    ("biomd.retrieval", "biomd.ingest", "biomd.models"),
    ("biomd.storage",),
    ("biomd.base",),
]
PACKAGE = ROOT / "biomd"


def layer_of(module: str) -> str:
    """The layer a module belongs to: its package under biomd (the sample life counts as the
    app's), or the base for the package's own top-level modules and the settings."""
    parts = module.split(".")
    package = ".".join(parts[:2])
    if package == "biomd.__main__":
        return "biomd.frontends"
    if package == "biomd.sample":
        return "biomd.app"
    if package == "biomd.settings":  # a package of its own, and the base all layers read
        return "biomd.base"
    if len(parts) >= 2 and (PACKAGE / parts[1]).is_dir():
        return package
    return "biomd.base"


def rank(layer: str) -> int:
    return next(i for i, row in enumerate(LAYERS) if layer in row)


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once for all the tests here."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def imports(path: Path) -> frozenset[str]:
    """Every biomd module this file imports, at the top or inside a function."""
    found: set[str] = set()
    package = module_name(path).rsplit(".", 1)[0]
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], base]
                )
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return frozenset(m for m in found if m.split(".")[0] == "biomd" and _exists(m))


@functools.cache
def _exists(module: str) -> bool:
    path = ROOT.joinpath(*module.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


@functools.cache
def sources() -> list[Path]:
    """Every module of the package; a scan that found few would prove nothing."""
    found = sorted(PACKAGE.rglob("*.py"))
    assert len(found) >= 200, f"only {len(found)} modules under {PACKAGE}"
    return found


def test_the_scans_see_the_whole_package_and_every_layer() -> None:
    """The checks below pass vacuously on an empty tree: they scan at least 200 modules, and
    each layer holds some."""
    layers = {layer_of(module_name(p)) for p in sources()}
    assert len(sources()) >= 200
    assert layers == {layer for row in LAYERS for layer in row}


def test_every_import_points_down_the_layers_and_nothing_below_imports_the_front_ends() -> None:
    wrong = []
    for path in sources():
        me = module_name(path)
        mine = layer_of(me)
        for other in imports(path):
            theirs = layer_of(other)
            if theirs == mine or other == "biomd" or me.startswith(other + "."):
                continue
            if rank(theirs) <= rank(mine):
                wrong.append(f"{me} ({mine}) imports {other} ({theirs})")
    assert wrong == []


FRONT_END_MAY_IMPORT = ("biomd.app", "biomd.settings", "biomd.errors", "biomd.plugins")


def test_front_ends_import_only_the_app_layer_the_settings_and_the_errors() -> None:
    """A front-end (anything under biomd/frontends/) reaches the engine's lower layers only
    through biomd/app: a type or a check it needs from below is offered there, by name."""
    reaching = [
        f"{module_name(path)} imports {other}"
        for path in sources()
        if module_name(path).startswith("biomd.frontends")
        for other in sorted(imports(path))
        if other != "biomd"
        and not other.startswith("biomd.frontends")
        and not any(other == m or other.startswith(m + ".") for m in FRONT_END_MAY_IMPORT)
    ]
    assert reaching == []


def test_no_two_modules_import_each_other() -> None:
    graph = {module_name(p): imports(p) for p in sources()}
    pairs = sorted(
        f"{a} <-> {b}"
        for a, deps in graph.items()
        for b in deps
        if a < b
        and a in graph.get(b, set())
        and not (a == "biomd" or b == "biomd")
        and not b.startswith(a + ".")
        and not a.startswith(b + ".")
    )
    assert pairs == []


def test_each_package_says_what_its_layer_is_in_its_docstring() -> None:
    for init in [PACKAGE / "__init__.py", *PACKAGE.glob("*/__init__.py")]:
        if init.parent.name in {"sample"}:
            continue
        doc = ast.get_docstring(parsed(init))
        assert doc, f"{init} has no docstring"
        assert len(doc.splitlines()) <= 3, f"{init}: say it in a line or two"


def test_only_biomd_models_talks_to_a_model() -> None:
    """Every model call goes through biomd/models, where it is metered and spend-limited."""
    talking = [
        module_name(path)
        for path in sources()
        if not module_name(path).startswith("biomd.models")
        and any(
            name.split(".")[0] == "openai"
            for node in ast.walk(parsed(path))
            for name in _imported_names(node)
        )
    ]
    assert talking == []


def _imported_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and not node.level:
        return [node.module or ""]
    return []


SQL = re.compile(
    r"\b(?:SELECT\b.+\bFROM|INSERT (?:OR \w+ )?INTO|UPDATE \w+ SET|DELETE FROM|"
    r"CREATE (?:TABLE|INDEX|VIRTUAL TABLE|TRIGGER)|ALTER TABLE|DROP TABLE|PRAGMA \w+|"
    r"BEGIN IMMEDIATE)\b",
    re.S,
)
OTHER_APPS_DATABASES = {"biomd.ingest.convert.imessage"}  # reads an iPhone backup's chat.db


def outside_storage() -> list[Path]:
    return [
        p
        for p in sources()
        if not module_name(p).startswith("biomd.storage")
        and module_name(p) not in OTHER_APPS_DATABASES
    ]


def strings(tree: ast.AST) -> list[str]:
    """Every string literal, with the literal parts of f-strings joined."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            found.append(
                "".join(v.value for v in node.values if isinstance(v, ast.Constant) and v.value)
            )
    return found


def test_sql_is_written_only_under_biomd_storage() -> None:
    scanned = outside_storage()
    assert len(scanned) >= 180, f"only {len(scanned)} modules outside storage were scanned"
    offending = [
        f"{module_name(p)}: {text[:60]!r}"
        for p in outside_storage()
        for text in strings(parsed(p))
        if SQL.search(text)
    ]
    assert offending == []


TESTS_OWN_DATABASES = {
    "tests.support.db": "the one place tests read biomd's database, or stage a state behind it",
    "tests.support.chat_fixtures": "writes an iPhone backup's chat.db, as the importer finds it",
    "tests.ingest.test_hostile": "a database of another app's, offered as a source",
    "tests.retrieval.test_search": "an FTS5 table in memory, to show a query is valid FTS5 syntax",
    "tests.package.test_layers": "the pattern of SQL itself",
}


def test_tests_reach_biomds_database_only_through_tests_db() -> None:
    """A test checks what is on disk through one helper's named functions, so a change
    to a table is made there once; other SQL in the tests is another app's database."""
    offending = [
        f"{module_name(p)}: {text[:60]!r}"
        for p in sorted(ROOT.joinpath("tests").rglob("*.py"))
        if module_name(p) not in TESTS_OWN_DATABASES
        for text in strings(parsed(p))
        if SQL.search(text)
    ]
    assert offending == []


def test_only_storage_opens_a_database_or_reaches_for_its_connection() -> None:
    internal = {"fetchall", "fetchone", "transaction", "_db"}
    offending = []
    for path in outside_storage():
        tree = parsed(path)
        used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} & internal
        modules = {name.split(".")[0] for node in ast.walk(tree) for name in _imported_names(node)}
        offending += [f"{module_name(path)} uses .{a}" for a in sorted(used)]
        offending += [
            f"{module_name(path)} imports {m}" for m in {"sqlite3", "aiosqlite"} & modules
        ]
        offending += [
            f"{module_name(path)} imports the Database"
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and node.module == "biomd.storage.database"
            and any(a.name == "Database" for a in node.names)
        ]
    assert offending == []


def test_the_top_of_the_package_holds_only_the_base_and_packages() -> None:
    loose = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert loose == {"endpoints", "errors", "redact", "fold", "plural", "plugins"} | {
        "__main__"  # `python -m biomd`, the CLI's (a front-end)
    }


ENGINE_API = {
    "settings",
    "sources",
    "biographer",
    "profile",
    "questions",
    "answers",
    "usage",
    "pictures",
    "outbox",
    "shares",
    "mirror",
    "assistants",
    "job_queue",
    "open",
    "close",
}
"""The engine's services: what front-ends call (biomd/app/engine.py says what each is)."""


def test_front_ends_call_the_engines_services_and_never_reach_into_its_wiring() -> None:
    reached = []
    for path in sources():
        if not module_name(path).startswith("biomd.frontends"):
            continue
        for node in ast.walk(parsed(path)):
            if not isinstance(node, ast.Attribute):
                continue
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if name.endswith("engine") and node.attr not in ENGINE_API:
                reached.append(f"{module_name(path)}: {name}.{node.attr}")
            if node.attr == "store":
                reached.append(f"{module_name(path)}: .store")
    assert reached == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
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
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_circle_anywhere_type_checking_imports_included() -> None:
    """No module reaches itself through others: a circle means none of them can be changed
    or understood alone. Imports under TYPE_CHECKING count too (they are an edge all the
    same)."""
    graph = {
        module_name(p): {
            m for m in imports(p) if m != module_name(p) and not module_name(p).startswith(m + ".")
        }
        for p in sources()
    }
    nodes = set(graph)
    graph = {a: {b for b in deps if b in nodes} for a, deps in graph.items()}
    assert cycles(graph) == []


MAX_LINES = 500
MAX_CLI_LINES = 300


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_500_lines_and_no_cli_file_over_300() -> None:
    """A module a newcomer can read at one sitting: split one that grows past the limit by
    what its parts do (the CLI by subject, one click group a file)."""
    long = [f"{p.relative_to(ROOT)}: {lines(p)}" for p in sources() if lines(p) > MAX_LINES]
    cli = sorted(PACKAGE.joinpath("frontends", "cli").glob("*.py"))
    long_cli = [f"{p.relative_to(ROOT)}: {lines(p)}" for p in cli if lines(p) > MAX_CLI_LINES]
    assert len(cli) > 5, "the CLI is split by subject"
    assert len(sources()) >= 200, f"only {len(sources())} modules were measured"
    assert long == [] and long_cli == []
