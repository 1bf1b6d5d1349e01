"""Dependencies point one way: doors -> api -> web -> service -> graph -> vectors /
consolidation -> extract -> corrections -> packs -> text -> core, and the client package
(gumem) stands apart on core alone.

Every import of the project's own packages (at module level, inside functions and under
TYPE_CHECKING alike) is read from the source with `ast` and checked against the layer of the
importing module. A module may import its own layer or any layer below it, never one above;
api/ may not reach graph/ or the extraction rooms at all (it talks to the service only); the client
(gumem/) imports core/ and nothing else of the server; nothing that ships imports tools/
(build and dev tools). docs/architecture.md describes the rooms.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = (
    "core", "text", "packs", "corrections", "extract", "consolidation", "vectors", "graph",
    "service", "web", "api", "gumem", "doors",
)  # fmt: skip

# the client sits above api/ so that no server layer may import it; only doors/ (the CLI's
# client commands) does
RANK = {
    "core": 0,
    "text": 1,
    "packs": 2,
    "corrections": 3,
    "extract": 4,
    "consolidation": 5,
    "vectors": 6,
    "graph": 7,
    "service": 8,
    "web": 9,
    "api": 10,
    "gumem": 11,
    "doors": 12,
    "tools": 13,
}
# besides the order: rooms a layer may not enter even though they are below it
FORBIDDEN = {
    "api": {"graph", "vectors", "consolidation", "extract", "corrections", "packs", "text"}
}
# layers that may import only these (besides themselves)
ONLY = {"gumem": {"core"}}


def layer_of(module: str) -> str | None:
    top = module.split(".")[0]
    return top if top in RANK else None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module) of every import in `tree`, relative ones resolved against `module`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = module.split(".")
                drop = node.level - 1 if is_package else node.level
                parent = parent[: len(parent) - drop] if drop else parent
                base = ".".join([*parent, base] if base else parent)
            names = [f"{base}.{a.name}" for a in node.names] if not node.module else [base]
            found += [(node.lineno, n) for n in names]
    return found


def violations(module: str, source: str, is_package: bool = False) -> list[str]:
    here = layer_of(module)
    if here is None:
        return []
    out = []
    for line, target in imported(ast.parse(source), module, is_package):
        there = layer_of(target)
        if there is None or there == here:
            continue
        upward = RANK[there] > RANK[here]
        if upward or there in FORBIDDEN.get(here, set()) or there not in ONLY.get(here, {there}):
            out.append(f"{module}:{line} ({here}) imports {target} ({there})")
    return out


def shipped_modules() -> list[Path]:
    return sorted(p for pkg in SHIPPED for p in (ROOT / pkg).rglob("*.py"))


def test_every_import_points_down() -> None:
    found = []
    for path in shipped_modules():
        found += violations(module_name(path), path.read_text(), path.name == "__init__.py")
    assert not found, "imports that run against the layers:\n" + "\n".join(found)


def test_the_tree_is_read() -> None:
    """The check sees the project: each shipped package has modules, and imports are found."""
    paths = shipped_modules()
    assert {module_name(p).split(".")[0] for p in paths} == set(SHIPPED)
    service = ROOT / "service" / "memory.py"
    targets = {t for _, t in imported(ast.parse(service.read_text()), "service.memory", False)}
    assert "graph.db" in targets and "core.settings" in targets


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("graph.db", "from service.memory import Memory\n"),  # graph -> service
        ("core.errors", "import extract.types\n"),  # bottom -> extract
        ("text.lang", "from packs import current\n"),  # text -> the packs above it
        ("corrections.cues", "from extract.types import Lang\n"),  # corrections -> extract
        ("extract.chat.facts", "from consolidation import topics\n"),  # extract -> its consumer
        ("extract.chat.facts", "def f():\n    from graph import reads\n"),  # lazy, still upward
        ("api.loaders", "from graph import reads\n"),  # api around the service
        ("service.memory", "from api.types import Fact\n"),  # service -> api
        ("service.models", "from tools import modelprep\n"),  # runtime -> dev tools
        ("graph.trace", "from ..service import memory\n"),  # relative, upward
        ("web.edge", "from api.app import create_app\n"),  # the shared edge -> api
        ("api.app", "from doors import cli\n"),  # api -> a door
        ("gumem.client", "from service.memory import Memory\n"),  # the client -> the server
        ("gumem.importer", "def f():\n    from graph import ids\n"),  # lazily, still
        ("gumem.adapters.http", "from web.auth import tenant_for\n"),  # the client -> web
        ("service.memory", "from gumem.client import Client\n"),  # the server -> the client
    ],
)
def test_an_upward_import_is_caught(module: str, source: str) -> None:
    assert violations(module, source)


def test_downward_and_sideways_imports_pass() -> None:
    assert not violations(
        "api.schema", "from service.memory import Memory\nfrom core import errors"
    )
    assert not violations("graph.filed_facts", "from extract.types import FactRecord\n")
    assert not violations("extract.chat.tokens", "from corrections.cues import CUE_ZH\n")
    assert not violations("consolidation.topics", "from extract.types import FactRecord\n")
    assert not violations("doors.cli", "from api.app import create_app\n")
    assert not violations("service.recall", "from . import models\n", is_package=False)
    assert not violations("doors.mcp_server", "from web.auth import BearerAuth\n")
    assert not violations("api.app", "from web.edge import AccessLog\n")
    assert not violations("gumem.client", "from core.errors import GumemError\n")
    assert not violations("doors.commands", "from gumem.client import Client\n")
