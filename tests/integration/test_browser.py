"""Provenance in a real Neo4j Browser: headless Chromium (driven by tests/browser/run.mjs)
opens the test Neo4j's Browser, applies GUMem's style sheet and guide served by a real
uvicorn API, runs the guide's "Why does the agent remember this?" query for the seed's
running-shoes summary and reports the rendered graph; a screenshot goes to artifacts/.

Needs Debian's chromium (/usr/bin/chromium), a CJK font for a readable screenshot
(fonts-noto-cjk) and node >= 20 with npm; `npm ci` in tests/browser installs playwright-core
when its node_modules is missing. .ci/run installs the Debian packages (.ci/browser-deps) and
sets GUMEM_TEST_BROWSER=required: there a missing piece fails the test; elsewhere it skips
with a one-line reason.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NoReturn

import httpx
import pytest
import uvicorn

from api.app import create_app
from core.settings import ROOT, Settings
from service.memory import Memory
from service.runtime import Runtime
from tests.integration.conftest import HTTP_PORT
from tests.integration.helpers import ADD, A, seed

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
BROWSER_DIR = ROOT / "tests" / "browser"
SCRIPT = BROWSER_DIR / "run.mjs"
GUIDE = ROOT / "cypher" / "browser" / "guide.html"
SCREENSHOT = ROOT / "artifacts" / "browser-provenance.png"
TOPICS = """query($u: String!) { topics(userId: $u) { name summaries { id validity } } }"""
EXPECTED = """MATCH (s:Summary {summary_id: $id})<-[:SUPPORTS]-(f:Fact)-[:SOURCE]->(m:Message)
RETURN count(DISTINCT f) AS facts, count(DISTINCT m) AS messages,
  collect(DISTINCT f.content) AS contents"""


def _run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def _required() -> bool:
    return os.environ.get("GUMEM_TEST_BROWSER") == "required"


def _missing(reason: str) -> NoReturn:
    """Skip with a one-line reason, or fail where the test must run (CI)."""
    reason = " ".join(reason.split())
    if _required():
        pytest.fail(f"GUMEM_TEST_BROWSER=required: {reason}", pytrace=False)
    pytest.skip(reason)


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][-300:] if lines else "no output"


def _ensure_chromium() -> None:
    if not CHROMIUM.is_file():
        _missing(f"{CHROMIUM} is missing (as root: .ci/browser-deps, or apt-get install chromium)")
    # without a CJK font the screenshot shows the Chinese labels as empty boxes; the test's
    # checks read the page, not the picture, so only CI insists on one
    if _required() and not (shutil.which("fc-list") and _run(["fc-list", ":lang=zh"], 60).stdout):
        _missing("no CJK font (as root: .ci/browser-deps, or apt-get install fonts-noto-cjk)")


def _ensure_playwright() -> str:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _missing("node >= 20 and npm are needed to drive Chromium (tests/browser/run.mjs)")
    if not (BROWSER_DIR / "node_modules" / "playwright-core" / "package.json").is_file():
        done = _run([npm, "ci", "--no-audit", "--no-fund", "--prefix", str(BROWSER_DIR)], 600)
        if done.returncode != 0:
            _missing(f"npm ci in {BROWSER_DIR} failed: {_last_line(done.stderr)}")
    return node


@pytest.fixture(scope="module")
def node() -> str:
    if os.environ.get("GUMEM_TEST_NEO4J_URI"):
        pytest.skip("an external test Neo4j: its Browser address is not known")
    _ensure_chromium()
    return _ensure_playwright()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def api(settings: Settings, runtime: Runtime, memory: Memory) -> AsyncIterator[str]:
    """A real uvicorn on loopback, in this event loop (the runtime's driver lives in it)."""
    port = _free_port()
    app = create_app(settings.model_copy(update={"port": port}), runtime)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    for _ in range(600):
        if server.started or task.done():
            break
        await asyncio.sleep(0.05)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


def guide_block(block_id: str) -> str:
    """The text of one runnable block of the guide, as Browser puts it into its editor."""
    text = GUIDE.read_text(encoding="utf-8")
    found = re.search(rf'<pre[^>]*\bid="{block_id}"[^>]*>(.*?)</pre>', text, re.S)
    assert found, f"no block {block_id} in {GUIDE}"
    return html.unescape(found.group(1)).strip()


def squash(text: str) -> str:
    return " ".join(text.split())


async def test_browser_shows_styled_provenance(
    node: str, api: str, settings: Settings, memory: Memory, tmp_path: Path
) -> None:
    async with httpx.AsyncClient(base_url=api, timeout=120) as c:
        r = await c.get("/browser/gumem.grass")
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "*"
        msgs = seed("zh")
        r = await c.post("/graphql", json={"query": ADD, "variables": {"m": msgs}}, headers=A)
        res = r.json()["data"]["addMessages"]
        assert res["errors"] == [] and len(res["accepted"]) == len(msgs)
        r = await c.post(
            "/graphql", json={"query": TOPICS, "variables": {"u": msgs[0]["userId"]}}, headers=A
        )
        topics = r.json()["data"]["topics"]
    shoes = [
        s["id"]
        for t in topics
        if t["name"] == "跑鞋"  # the zh seed: named in its Facts' language
        for s in t["summaries"]
        if s["validity"] == "active"
    ]
    assert len(shoes) == 1, topics
    summary_id = shoes[0]
    want = (await memory.db.rows(EXPECTED, id=summary_id))[0]

    # The test Neo4j runs with Browser's default allowlist (guides.neo4j.com, localhost),
    # so the style sheet and the guide are fetched from localhost.
    base = api.replace("127.0.0.1", "localhost") + "/browser"
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    config = {
        "browserUrl": f"http://127.0.0.1:{HTTP_PORT}/browser/",
        "boltUrl": settings.neo4j_uri,
        "user": settings.neo4j_user,
        "password": settings.neo4j_password.get_secret_value(),
        "styleUrl": f"{base}/gumem.grass",
        "guideUrl": f"{base}/guide.html",
        "summaryId": summary_id,
        "screenshot": str(SCREENSHOT),
        "userDataDir": str(tmp_path / "chromium-profile"),
        "executablePath": str(CHROMIUM),
    }
    proc = await asyncio.create_subprocess_exec(
        node,
        str(SCRIPT),
        json.dumps(config),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), 300)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    lines = out.decode().strip().splitlines()
    assert lines, f"run.mjs printed nothing (exit {proc.returncode}): {err.decode()[-2000:]}"
    report: dict[str, Any] = json.loads(lines[-1])
    print(f"\n[browser] {json.dumps(report, ensure_ascii=False, indent=1)}")
    assert report["ok"] and proc.returncode == 0, report["errors"] or err.decode()[-2000:]
    assert report["errors"] == []

    assert "Why does the agent remember this?" in report["guideSlides"]
    assert squash(report["frameCommand"]) == squash(guide_block("why-query"))
    by_label = report["byLabel"]
    assert by_label.get("Summary") == 1, by_label
    assert by_label.get("Topic") == 1, by_label
    assert by_label.get("Fact") == want["facts"] >= 5, (by_label, want)
    assert by_label.get("Message") == want["messages"] >= 5, (by_label, want)
    assert not [k for k in by_label if k.startswith("unstyled")], "a label without a style"
    assert report["nodeCount"] == sum(by_label.values())
    assert report["captions"]["Summary"] == ["跑鞋"]
    # Fact captions show the start of the fact's content (Browser cuts them with "…")
    shown = [squash(c).rstrip("…") for c in report["captions"]["Fact"]]
    contents = [squash(c) for c in want["contents"]]
    assert any(s and any(c.startswith(s) for c in contents) for s in shown), (shown, contents)
    assert all(s for s in shown), "every Fact has a caption"
    assert any(c.startswith(("user ·", "event ·")) for c in report["captions"]["Message"])
    assert {"SUPPORTS", "SOURCE"} <= set(report["relationshipCaptions"])
    assert SCREENSHOT.is_file() and SCREENSHOT.stat().st_size > 10_000
