"""Front ends stay thin: they import only the pipeline's public API (plus its settings and errors)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import pipeline

ROOT = Path(__file__).resolve().parents[2]
FRONT_ENDS = sorted({*(p for p in (ROOT / "web").rglob("*.py") if "tests" not in p.parts),
                     *(ROOT / "cli").glob("chat*.py"), *(ROOT / "cli").glob("render*.py")})
ALLOWED_MODULES = {"pipeline", "pipeline.core.settings", "pipeline.core.errors"}


def _pipeline_imports(path: Path) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names if alias.name.split(".")[0] == "pipeline"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "pipeline":
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def test_the_front_end_files_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in FRONT_ENDS}
    assert {"web/app.py", "web/chat.py", "cli/chat.py"} <= names


@pytest.mark.parametrize("path", FRONT_ENDS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_front_end_imports_only_the_public_pipeline_api(path: Path) -> None:
    for module, names in _pipeline_imports(path):
        assert module in ALLOWED_MODULES, f"{path.name} imports {module}"
        if module == "pipeline":
            assert set(names) <= set(pipeline.__all__), f"{path.name} imports {set(names) - set(pipeline.__all__)}"
