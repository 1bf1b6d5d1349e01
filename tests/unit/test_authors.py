"""Who said it: a Message's author from its metadata, in its embedded and searched text."""

from __future__ import annotations

from extract.types import author_name, authored
from graph.recall import lucene_query


def test_author_comes_from_speaker_name_or_display_name() -> None:
    assert author_name({"speaker": "  Caroline \n Ng "}) == "Caroline Ng"
    assert author_name({"name": "Wei"}) == "Wei"
    assert author_name({"displayName": "Ann"}) == "Ann"
    assert author_name({"speaker": "", "name": "Bo"}) == "Bo", "an empty name is no name"
    assert author_name({"speaker": 7}) is None and author_name({}) is None
    assert len(author_name({"speaker": "x" * 500}) or "") == 40


def test_embedded_text_names_the_author_only_when_known() -> None:
    assert authored("I adopted a cat", {"speaker": "Ann"}) == "Ann: I adopted a cat"
    assert authored("I adopted a cat", {}) == "I adopted a cat"


def test_full_text_query_searches_the_author_field_too() -> None:
    q = lucene_query("When did Caroline move?", "u1")
    assert q is not None and "author:(when did caroline move\\?)" in q
    assert q.startswith("+scope:u1 +(content:(")
