"""The README and docs/ hold together: every relative link (and its #anchor) resolves, what
the README shows `make run` printing is what it prints, and every setting has a row in
docs/configuration.md (the README's short table repeats some of them word for word)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from core.settings import ROOT, Settings

DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```$", re.M | re.S)


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    heads = re.findall(r"^#{1,6} (.+)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path) -> None:
    text = FENCE.sub("", doc.read_text(encoding="utf-8"))
    links = [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]
    for target in links:
        name, _, anchor = target.partition("#")
        path = (doc.parent / name).resolve() if name else doc
        assert path.is_file(), f"{doc.name}: {target} does not exist"
        if anchor:
            assert anchor in _anchors(path), f"{doc.name}: no heading for #{anchor} in {name}"


def test_the_readme_shows_what_make_run_prints(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import uvicorn

    import api.app
    import tools.__main__ as dev_tools

    monkeypatch.setattr(dev_tools, "ensure_neo4j", lambda settings: "bolt://127.0.0.1:7687")
    monkeypatch.setattr(api.app, "server_config", lambda settings: None)
    monkeypatch.setattr(uvicorn.Server, "__init__", lambda self, config: None)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    fresh: dict[str, Any] = {"api_keys": SecretStr(""), "neo4j_uri": None}
    for name in ("host", "port", "dev_http_port"):
        fresh[name] = Settings.model_fields[name].default
    assert dev_tools.cmd_serve(None, Settings(**fresh)) == 0  # type: ignore[arg-type]
    out = capsys.readouterr().out
    key = re.search(r"tenant 'dev': (\S+)", out)
    assert key, out
    shown = out.replace(key[1], "3kq…").strip()
    assert f"```text\n{shown}\n```" in (ROOT / "README.md").read_text(encoding="utf-8")


def _section(path: Path, heading: str) -> str:
    return path.read_text(encoding="utf-8").split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def _rows(table: str) -> dict[str, str]:
    """A variable table's rows by the variables of their first cell."""
    return {
        v: line
        for line in table.splitlines()
        if line.startswith("| `GUMEM_")
        for v in re.findall(r"`(GUMEM_[A-Z0-9_]+)`", line.split("|")[1])
    }


def test_every_setting_is_in_the_configuration_table() -> None:
    rows = _rows(_section(ROOT / "docs" / "configuration.md", "## Environment variables"))
    missing = [n for n in Settings.model_fields if f"GUMEM_{n.upper()}" not in rows]
    assert not missing, f"settings without a row in docs/configuration.md: {missing}"


def test_the_readme_configuration_is_a_part_of_the_full_table() -> None:
    """The README's short table links to the full one and says what it says, row for row."""
    readme = _section(ROOT / "README.md", "## Configuration")
    assert "(docs/configuration.md)" in readme
    full = _rows(_section(ROOT / "docs" / "configuration.md", "## Environment variables"))
    shown = _rows(readme)
    assert shown, "the README's configuration table is empty"
    differ = sorted(v for v, line in shown.items() if full.get(v) != line)
    assert not differ, f"README rows that differ from docs/configuration.md: {differ}"


PACKAGES = (
    "core", "text", "packs", "corrections", "extract", "consolidation", "vectors", "graph",
    "service", "web", "api", "doors", "gumem", "tools",
)  # fmt: skip
_CODE = re.compile(r"`([^`\s]+)`")


def _module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


def _resolves(ref: str) -> bool:
    """A module path (`extract/chat/facts.py`, `service/`) names a file or folder; a dotted
    name (`service.ranking`, `extract.chat.facts.extract_chats`, `Memory.recall` is not one)
    names a module, then at most two names defined in it."""
    if "/" in ref:
        return (ROOT / ref.rstrip("/")).exists()
    parts = ref.split(".")
    for cut in range(len(parts), 0, -1):
        found = _module_file(parts[:cut])
        if found is not None:
            rest = parts[cut:]
            return len(rest) <= 2 and all(
                re.search(rf"\b(?:def|class) {n}\b|^{n}\b", found.read_text(), re.M)
                for n in rest[:1]
            )
    return False


def test_the_architecture_names_only_modules_that_exist() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    refs = {
        r
        for r in _CODE.findall(text)
        if r.split(".")[0].split("/")[0] in PACKAGES and not r.endswith((".cypher", ".yaml"))
    }
    assert len(refs) > 30, refs  # the check reads the document
    missing = sorted(r for r in refs if not _resolves(r))
    assert not missing, f"docs/architecture.md names what does not exist: {missing}"
