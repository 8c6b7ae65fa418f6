"""Who may import whom: the desk's layers, as a table, checked over every Python file in the tree.

    pipeline.core   the kernel (errors, settings, ids, private files, intervals, outbound)
       ^
    db   toolbox   guards            each imports the kernel only
                     ^
                  services           the guard services: guards + kernel
    pipeline (the turn engine)       guards, toolbox client, kernel
       ^
    web                              pipeline's public API (web/tests/test_boundaries.py), db accounts
    evals, evals.benchmarks          everything below them
    cli                              the command that starts and runs everything

Test modules may import any module; no production module may import a test module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNEL = "pipeline.core"
BELOW_FRONT_ENDS = frozenset({KERNEL, "db", "toolbox", "guards", "services", "pipeline"})
#: layer -> the other layers it may import (its own layer is always allowed).
MAY_IMPORT: Mapping[str, frozenset[str]] = {
    KERNEL: frozenset(),
    "db": frozenset({KERNEL}),
    "toolbox": frozenset({KERNEL}),
    "guards": frozenset({KERNEL}),
    "services": frozenset({KERNEL, "guards"}),
    "pipeline": frozenset({KERNEL, "guards", "toolbox"}),
    "web": frozenset({KERNEL, "pipeline", "db"}),
    "evals": BELOW_FRONT_ENDS,
    "evals.benchmarks": BELOW_FRONT_ENDS | {"evals"},
    "cli": BELOW_FRONT_ENDS | {"evals"},
}
NOT_A_LAYER = {"runs", "conftest"}  # run logs; the suite's root plugin list


def layer_of(module: str) -> str | None:
    """The longest layer name that `module` is, or lies inside."""
    matches = [layer for layer in MAY_IMPORT if module == layer or module.startswith(layer + ".")]
    return max(matches, key=len, default=None)


def is_test_module(module: str) -> bool:
    return "tests" in module.split(".")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(module: str, source: str, *, is_package: bool = False) -> Iterable[str]:
    """Every desk-or-other module `source` imports, lazily or not; relative imports resolved."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            yield target
            yield from (f"{target}.{alias.name}" for alias in node.names)  # `from pipeline import core`


def violations(files: Mapping[str, tuple[str, bool]]) -> list[str]:
    """`module: imports target` for every import the table forbids. `files`: module -> (source, is_package)."""
    found: dict[tuple[str, str], str] = {}  # one line per importing module and forbidden layer
    for module, (source, is_package) in sorted(files.items()):
        importer = layer_of(module)
        if importer is None or is_test_module(module):
            continue
        for target in imported_modules(module, source, is_package=is_package):
            imported = layer_of(target)
            if imported is not None and is_test_module(target):
                found.setdefault((module, "tests"), f"{module}: imports the test module {target}")
            elif imported is not None and imported != importer and imported not in MAY_IMPORT[importer]:
                found.setdefault((module, imported),
                                 f"{module}: imports {target} ({importer} may not import {imported})")
    return sorted(found.values())


def desk_files() -> dict[str, tuple[str, bool]]:
    skipped = {".venv", ".venv-phoenix", ".git", ".supportdesk", "node_modules"}
    return {module_name(path): (path.read_text(encoding="utf-8"), path.name == "__init__.py")
            for path in ROOT.rglob("*.py") if not skipped & set(path.relative_to(ROOT).parts)}


def test_the_desk_keeps_its_layers() -> None:
    assert violations(desk_files()) == []


def test_every_top_level_folder_is_a_layer() -> None:
    folders = {module.split(".")[0] for module in desk_files()}
    assert folders - NOT_A_LAYER <= set(MAY_IMPORT), "a new top-level folder needs a row in MAY_IMPORT"
    assert folders >= {"pipeline", "guards", "services", "toolbox", "db", "web", "cli", "evals"}


@pytest.mark.parametrize(("module", "source", "expected"), [
    ("guards.judge.engine", "from pipeline.desk import Desk", "guards may not import pipeline"),
    ("guards.judge.engine", "def f():\n    import web.app", "guards may not import web"),
    ("services.judge.app", "from pipeline.models import factory", "services may not import pipeline"),
    ("pipeline.core.errors", "from guards.schema import Verdict", "pipeline.core may not import guards"),
    ("pipeline.core.settings.base", "from ... import desk", "pipeline.core may not import pipeline"),
    ("pipeline.core.settings", "from pipeline import desk", "pipeline.core may not import pipeline"),
    ("db.seed", "import toolbox.server", "db may not import toolbox"),
    ("cli.chat", "from web.app import build_app", "cli may not import web"),
    ("evals.benchmarks.bench_guards", "from services.tests.fixtures import x", "imports the test module"),
    ("pipeline.turn", "from pipeline.tests.scripted import ScriptedLlm", "imports the test module"),
])
def test_a_forbidden_import_is_reported(module: str, source: str, expected: str) -> None:
    reported = violations({module: (source, False)})
    assert len(reported) == 1 and expected in reported[0], reported


@pytest.mark.parametrize(("module", "source"), [
    ("guards.judge.engine", "from pipeline.core.errors import ConfigError"),
    ("services.judge.app", "from guards.judge import JudgeEngine"),
    ("pipeline.turn", "from . import events\nfrom guards.schema import Verdict"),
    ("web.chat", "from pipeline import Desk"),
    ("pipeline.tests.test_x", "from web.tests.fixtures import serve_web"),
])
def test_an_allowed_import_is_not_reported(module: str, source: str) -> None:
    assert violations({module: (source, False)}) == []
