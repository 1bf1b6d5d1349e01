"""`gumem mcp` end to end with the official `mcp` SDK's client against the real Neo4j:
over stdio (a subprocess, tenant from configuration), the stdio server in process (its
default tenant is the one of `gumem serve`'s dev key; `recall`'s as_of) and over streamable
HTTP (uvicorn, tenant from the API key; a wrong key refused; another tenant sees nothing)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client, StdioServerParameters
from pydantic import SecretStr

from api.app import create_app
from core.settings import DEV_TENANT, ROOT, Settings
from doors.cli import with_dev_key
from doors.mcp_server import MCP_PATH, build_server, create_http_app
from service.memory import Memory
from service.runtime import Runtime
from tests.integration.helpers import free_port, gql, seed, served
from tests.integration.test_as_of import BEFORE_FIX, DAY1, FIX, USER, Q
from tests.integration.test_corrections import current_lines

TOOLS = {
    "add_messages",
    "recall",
    "trace",
    "list_topics",
    "deletion_impact",
    "delete_message",
    "forget_user",
}
QUERY = "昨天看的鞋还有推荐吗？"
DAY2 = "2026-12-01T10:00:00+08:00"
WORDS = ["800", "42", "浅色", "缓震", "碳板"]  # what tests/integration/test_seed.py expects


async def call(c: Client, tool: str, **args: Any) -> dict[str, Any]:
    res = await c.call_tool(tool, args)
    assert not res.is_error, res.content
    out: dict[str, Any] = res.structured_content or {}
    return out


async def seed_and_recall(c: Client) -> dict[str, Any]:
    listed = await c.list_tools()
    assert {t.name for t in listed.tools} >= TOOLS
    assert all(t.description and len(t.description) > 80 for t in listed.tools)
    msgs = seed("zh")
    added = await call(c, "add_messages", messages=msgs)
    assert added["errors"] == [] and len(added["accepted"]) == len(msgs)
    again = await call(c, "add_messages", messages=msgs[:2])
    assert again["duplicates"] == ["m1", "m2"] and again["accepted"] == []
    mem = await call(c, "recall", user_id="u-seed", query=QUERY, now=DAY2)
    for word in WORDS:
        assert word in mem["formattedContext"], (word, mem["formattedContext"])
    summaries = [i for i in mem["items"] if i["kind"] == "summary"]
    assert summaries and summaries[0]["id"] in mem["ids"]
    assert summaries[0]["sourceFactIds"]
    return mem


async def provenance(c: Client, mem: dict[str, Any]) -> None:
    summary = next(i for i in mem["items"] if i["kind"] == "summary")
    t = await call(c, "trace", id=summary["id"])
    assert {n["label"] for n in t["nodes"]} >= {"Summary", "Fact", "Message"}
    read = await c.read_resource(f"gumem://summary/{summary['id']}")
    body = json.loads(read.contents[0].text)  # type: ignore[union-attr]
    assert body["summary_id"] == summary["id"] and "碳板" in body["content"]
    assert "embedding" not in body
    msg = json.loads((await c.read_resource("gumem://message/m1")).contents[0].text)  # type: ignore[union-attr]
    assert "慢跑鞋" in msg["content"]
    topics = await call(c, "list_topics", user_id="u-seed")
    assert "跑鞋" in {t["name"] for t in topics["topics"]}  # in its Facts' language


async def test_mcp_over_stdio(settings: Settings, memory: Memory) -> None:
    env = {
        "GUMEM_NEO4J_URI": str(settings.neo4j_uri),
        "GUMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
        "GUMEM_MCP_TENANT": "tenant-a",
        "GUMEM_PROCESS_TIMEOUT_S": "300",
        "GUMEM_EXTRACT_PROCESSES": "1",
        "GUMEM_RUN_WORKER": "false",
        "GUMEM_MODEL_CACHE": str(settings.model_cache),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "doors.cli", "mcp"], env=env, cwd=ROOT
    )
    async with Client(params, read_timeout_seconds=600) as c:
        mem = await seed_and_recall(c)
        await provenance(c, mem)
        bad = await c.call_tool("recall", {"user_id": "u-seed", "query": "  "})
        assert bad.is_error and "BAD_INPUT" in str(bad.content)
        impact = await call(c, "deletion_impact", message_id="e8")
        assert impact["removedFacts"], impact
        missing = await c.call_tool("trace", {"id": "no-such-message"})
        assert missing.is_error and "NOT_FOUND" in str(missing.content)
    # the tenant came from GUMEM_MCP_TENANT: the same service sees it there, nowhere else
    assert await memory.message("tenant-a", "m1") is not None
    assert await memory.message("tenant-b", "m1") is None


@pytest.fixture
def mcp_url(settings: Settings, memory: Memory) -> Iterator[str]:
    port = free_port()
    app = create_http_app(settings.model_copy(update={"port": port, "run_worker": False}))
    with served(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")):
        yield f"http://127.0.0.1:{port}{MCP_PATH}"


def keyed(key: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {key}"}, timeout=httpx2.Timeout(600.0)
    )


async def test_mcp_over_streamable_http(mcp_url: str, memory: Memory) -> None:
    from mcp.client.streamable_http import streamable_http_client

    async with (
        keyed("key-a") as http,
        Client(streamable_http_client(mcp_url, http_client=http)) as c,
    ):
        mem = await seed_and_recall(c)
        await provenance(c, mem)
    # another tenant's key: the same user id and query find nothing of tenant-a's
    async with (
        keyed("key-b") as http,
        Client(streamable_http_client(mcp_url, http_client=http)) as c,
    ):
        other = await call(c, "recall", user_id="u-seed", query=QUERY, now=DAY2)
        assert other["items"] == [] and other["ids"] == []
        for word in WORDS:
            assert word not in other["formattedContext"]
        topics = await call(c, "list_topics", user_id="u-seed")
        assert topics["topics"] == []
        missing = await c.call_tool("trace", {"id": "m1"})
        assert missing.is_error and "NOT_FOUND" in str(missing.content)
        with pytest.raises(Exception, match="NOT_FOUND"):
            await c.read_resource("gumem://message/m1")
    # a wrong key and no key: 401 before the MCP layer, nothing executed
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=30) as raw:
        for auth in ({"Authorization": "Bearer wrong-key"}, {}):
            r = await raw.post(mcp_url, json=init, headers={**headers, **auth})
            assert r.status_code == 401, r.text
            assert r.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert (await raw.get(mcp_url.replace(MCP_PATH, "/health"))).status_code == 200
    with pytest.raises(Exception):  # noqa: B017 - the SDK's client wraps the 401 its own way
        async with (
            keyed("wrong-key") as http,
            Client(streamable_http_client(mcp_url, http_client=http)) as c,
        ):
            await c.list_tools()


MESSAGES = """query($u: String!) { messages(userId: $u) { id } }"""


async def test_stdio_default_tenant_is_the_dev_keys(
    settings: Settings, runtime: Runtime, memory: Memory
) -> None:
    """What a local agent stores through `gumem mcp` (no GUMEM_MCP_TENANT) is what GraphiQL
    shows with the key `gumem serve` prints when GUMEM_API_KEYS is unset."""
    local = Settings(neo4j_uri=settings.neo4j_uri, neo4j_password=settings.neo4j_password)
    assert local.mcp_tenant == DEV_TENANT and "GUMEM_MCP_TENANT" not in os.environ
    async with Client(build_server(runtime, local, "stdio")) as c:
        added = await call(c, "add_messages", messages=seed("en")[:3])
    assert added["errors"] == [] and len(added["accepted"]) == 3
    served, key = with_dev_key(settings.model_copy(update={"api_keys": SecretStr("")}))
    assert key is not None and served.tenants_by_key() == {key: DEV_TENANT}
    app = create_app(served, runtime)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as h:
        dev = await gql(h, MESSAGES, {"Authorization": f"Bearer {key}"}, u="u-seed-en")
        assert {m["id"] for m in dev["data"]["messages"]} == set(added["accepted"]), dev
        refused = await gql(h, MESSAGES, {"Authorization": "Bearer key-a"}, u="u-seed-en")
        assert refused["status"] == 401
    assert await memory.message("tenant-a", added["accepted"][0]) is None


async def test_recall_as_of(settings: Settings, runtime: Runtime, memory: Memory) -> None:
    """`recall`'s as_of is GraphQL's asOf: the memory before a correction, then as now."""
    async with Client(build_server(runtime, settings, "stdio")) as c:
        assert (await call(c, "add_messages", messages=DAY1))["errors"] == []
        assert (await call(c, "add_messages", messages=[FIX]))["errors"] == []
        now = await call(c, "recall", user_id=USER, query=Q)
        then = await call(c, "recall", user_id=USER, query=Q, as_of=BEFORE_FIX)
        naive = await c.call_tool(
            "recall", {"user_id": USER, "query": Q, "as_of": "2026-10-06T12:00:00"}
        )
        garbled = await c.call_tool("recall", {"user_id": USER, "query": Q, "as_of": "soon"})
    assert "1200" in now["formattedContext"]
    context = then["formattedContext"]
    assert "1200" not in context and current_lines(context, "900"), context
    assert then["items"] and {i["id"] for i in then["items"]} != {i["id"] for i in now["items"]}
    for bad in (naive, garbled):
        assert bad.is_error and "BAD_INPUT: as_of" in str(bad.content), bad.content
