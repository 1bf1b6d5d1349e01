"""Shared helpers for the integration tests (GraphQL over an ASGI or real HTTP client)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

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
