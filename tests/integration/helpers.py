"""Shared helpers for the integration tests (GraphQL over an ASGI or real HTTP client)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn

A = {"Authorization": "Bearer key-a"}
B = {"Authorization": "Bearer key-b"}
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

ADD = """mutation($m: [MessageInput!]!) { addMessages(messages: $m) {
  accepted duplicates processed errors { index field reason } } }"""


async def gql(
    c: httpx.AsyncClient, document: str, headers: dict[str, str] = A, **variables: Any
) -> dict[str, Any]:
    r = await c.post("/graphql", json={"query": document, "variables": variables}, headers=headers)
    body: dict[str, Any] = r.json()
    body["status"] = r.status_code
    return body


def seed(lang: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((FIXTURES / f"seed_{lang}.json").read_text())
    return data


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served(config: uvicorn.Config, start_s: float = 180) -> Iterator[int]:
    """A uvicorn server in a thread until the block ends; its port once it has started."""
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_s
    while not srv.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn stopped"
        time.sleep(0.1)
    try:
        yield config.port
    finally:
        srv.should_exit = True
        thread.join(30)
