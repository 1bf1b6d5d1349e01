"""Fixtures for the extraction unit tests: cached spaCy pipelines and the seed example."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from spacy.language import Language

from extract.chat.facts import extract_chat
from extract.nlp import load_chinese, load_english
from extract.types import Extraction, MessageRecord
from text.lang import detect_lang

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def load_seed(name: str) -> list[MessageRecord]:
    rows = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return [
        MessageRecord(
            message_id=r["id"],
            user_id=r["userId"],
            session_id=r["sessionId"],
            role=r["role"],
            content=r["content"],
            timestamp=datetime.fromisoformat(r["timestamp"]),
            event_type=r["eventType"],
            page=r.get("page"),
            metadata=r.get("metadata") or {},
            lang=detect_lang(r["content"]),
        )
        for r in rows
    ]


@pytest.fixture(scope="session")
def en_nlp() -> Language:
    return load_english()


@pytest.fixture(scope="session")
def zh_nlp() -> Language:
    return load_chinese()


@pytest.fixture(scope="session")
def seed_zh() -> list[MessageRecord]:
    return load_seed("seed_zh.json")


@pytest.fixture(scope="session")
def seed_en() -> list[MessageRecord]:
    return load_seed("seed_en.json")


@pytest.fixture
def said(en_nlp: Language, zh_nlp: Language) -> Callable[..., Extraction]:
    """A user's chat turn as extraction reads it: its text at ``at``, after the user's own
    turn ``said_before`` when given. A module binds its own time: ``partial(said, at=TS)``."""

    def go(text: str, at: datetime, said_before: str | None = None) -> Extraction:
        lang = detect_lang(text)
        msg = MessageRecord("m1", "u", "s", "user", text, at, lang=lang, said_before=said_before)
        return extract_chat(msg, en_nlp, zh_nlp)

    return go
