"""Domain packs: the engine's code (extract/, text/, corrections/, consolidation/, packs/)
holds no pack word, a new pack changes behaviour without code,
and a bad pack fails at load naming its file and field."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from spacy.language import Language

import packs
from consolidation.topics import assign_topics
from core.errors import ConfigError
from extract.chat.clause import team_slug
from extract.events.behaviour import extract_events
from extract.nlp import gazetteer_lookup
from extract.types import MessageRecord
from tests.unit.test_topics import make_fact
from text.lang import fold

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ("extract", "text", "corrections", "consolidation", "packs", "vectors")
TS = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)

# Words the engine's own grammar needs, which a pack may also list (as a label, cue or
# alias). Each is a general word, none names a product, brand, place or dataset.
GRAMMAR = frozenset(
    {
        # slot names and the patterns that fill them ("my budget is", "I live in", "我住在")
        "budget", "price", "price range", "prices", "cost", "afford", "size", "city", "home",
        "hometown", "job", "identity", "diet", "age", "team", "money", "lives in", "预算",
        "价格", "价位", "价钱", "价格区间", "尺码", "城市", "住在", "老家", "名字", "团队", "块钱",
        # cue verbs of kinds and intents ("I work as", "I don't eat", "I wear", "I want to buy")
        "work", "eat", "wear", "buy", "order", "read", "run", "book", "allergic", "allergy",
        "vegetarian",
        "vegan", "married", "上班", "工作", "读书", "过敏", "忌口", "素食", "兴趣", "下单", "会议",
        # people words that mark a third party or a role ("my wife", "I'm a mom")
        "mom", "mother", "dad", "father", "parent", "wife", "husband", "family",
        # time words and weekdays (time cues)
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "weekday", "星期",
        # size systems ("EU 42")
        "eu",
        # words of the code itself (docstrings, identifiers)
        "class", "version", "update", "course", "weight", "style", "checkout", "health", "更新",
        "分类",
        # a value of FactDraft.subject_kind (the contract of issue 37)
        "pet",
    }
)  # fmt: skip
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORDS = re.compile(r"[a-z][a-z'&.-]*[a-z]|[a-z]")


def _literals() -> Iterator[tuple[str, int, str]]:
    for path in sorted(p for room in ENGINE for p in (ROOT / room).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield str(path.relative_to(ROOT)), node.lineno, node.value


def _vocabulary() -> set[str]:
    return {fold(t.rstrip("*")) for t in packs.load("general").vocabulary()} - GRAMMAR


def test_extract_code_holds_no_pack_word() -> None:
    """Every string literal of the engine's code (regexes, docstrings, tables) against every pack
    term: Latin terms as whole words, Chinese terms of two or more characters as substrings."""
    vocab = _vocabulary()
    latin = {" ".join(_WORDS.findall(t)) for t in vocab if not _CJK.search(t)} - {""}
    cjk = {t for t in vocab if _CJK.search(t) and len(t) >= 2}
    found = []
    for name, line, text in _literals():
        low = fold(text)
        seq = f" {' '.join(_WORDS.findall(low))} "
        found += [(name, line, t) for t in latin if f" {t} " in seq]
        found += [(name, line, t) for t in cjk if t in low]
    assert not found, sorted(found)


def test_scan_sees_a_pack_word(tmp_path: Path) -> None:
    """The scan is not vacuous: a literal holding a pack word is found, and the literals
    of every module are read, those of the stage packages included."""
    vocab = _vocabulary()
    assert {"running shoes", "berlin", "缓震", "nike", "laptop"} <= vocab
    read = {name for name, _line, _text in _literals()}
    every = {p for room in ENGINE for p in (ROOT / room).rglob("*.py") if p.stat().st_size}
    assert read >= {str(p.relative_to(ROOT)) for p in every}
    assert {"extract/chat/facts.py", "text/lang.py", "extract/events/behaviour.py"} <= read


@pytest.fixture
def restore_packs() -> Iterator[None]:
    yield
    packs.activate(packs.DEFAULT_SPEC)


NEW_PACK = """
version: 1
description: a whisky shop
taxonomy:
  - name: whisky
    aliases: [whisky, single malt, 威士忌]
attributes:
  - {id: peaty, zh: 泥煤味, en: peaty, aliases: [smoky]}
fields:
  - id: cask
    aliases: [桶型, cask type]
    slot: cask
    en: "The user filters for {raw} casks"
entities:
  GPE: [[Gotham, 哥谭]]
team_regions:
  nordics: nordics
"""


def _ev(mid: str, etype: str, text: str, minute: int = 0, **meta: object) -> MessageRecord:
    return MessageRecord(
        message_id=mid,
        user_id="u",
        session_id="s",
        role="event",
        content=text,
        timestamp=TS + timedelta(minutes=minute),
        event_type=etype,
        metadata=dict(meta),
    )


def test_a_new_pack_changes_behaviour_without_code(
    tmp_path: Path, en_nlp: Language, zh_nlp: Language, restore_packs: None
) -> None:
    path = tmp_path / "whisky.yaml"
    path.write_text(NEW_PACK, encoding="utf-8")
    fact = make_fact("w", "The user wants a single malt for a gift", session="")
    events = [
        _ev("a", "view", "view: peaty Islay bottle"),
        _ev("b", "view", "view: smoky Speyside bottle", 1),
        _ev("c", "filter", "filter: cask type = sherry", 2),
    ]
    before = extract_events(events, en_nlp, zh_nlp).facts
    assert assign_topics([fact], [], None)["w"].name != "whisky"
    assert not any("peaty" in f.content for f in before)
    assert gazetteer_lookup("哥谭") is None

    pack = packs.activate(f"general,{path}")
    assert str(path) in pack.sources
    assert assign_topics([fact], [], None)["w"].name == "whisky"
    after = extract_events(events, en_nlp, zh_nlp).facts
    peaty = [f for f in after if f.key == "preference:attribute:peaty"]
    assert peaty and peaty[0].source_message_ids == ("a", "b")  # "smoky" is an alias
    cask = next(f for f in after if f.slot == "cask")
    assert cask.content == "The user filters for sherry casks"
    assert gazetteer_lookup("哥谭") == ("GPE", "Gotham")
    assert team_slug("the Nordics team") == "nordics_team"
    # the general pack is still there underneath
    assert assign_topics([make_fact("p", "The user adopted a cat")], [], None)["p"].name == "pets"


def test_packs_layer_later_ones_extend(tmp_path: Path) -> None:
    path = tmp_path / "extra.yaml"
    path.write_text(
        "version: 1\ntaxonomy:\n  - name: pets\n    aliases: [axolotl]\n", encoding="utf-8"
    )
    merged = packs.load(["general", str(path)])
    pets = merged.taxonomy.get("pets")
    assert pets is not None and "axolotl" in pets.aliases and "dog" in pets.aliases
    assert packs.load("general") is packs.load("general")  # loaded once


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("version: 1\nattributes:\n  - {id: x, en: x}\n", "field attributes.0.zh"),
        ("version: 2\n", "field version"),
        ("version: 1\ntaxonomy:\n  - name: t\n    aliasses: [a]\n", "field taxonomy.0.aliasses"),
        ("version: 1\nfields:\n  - {id: f, value: colour}\n", "field fields.0.value"),
        ("- just a list\n", "top level"),
        ("version: 1\nlabels: {a: [x\n", "cannot read"),
    ],
)
def test_a_bad_pack_fails_at_load_naming_file_and_field(
    tmp_path: Path, text: str, where: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        packs.load(str(path))
    assert str(path) in str(err.value) and where in str(err.value)


def test_unknown_pack_names_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="no such pack"):
        packs.load("general,nosuchpack")
    with pytest.raises(ConfigError, match="neither a pack name nor a path"):
        packs.load("General Pack!")
    with pytest.raises(ConfigError, match="no pack named"):
        packs.load(" , ")
