"""What repeated events say the user likes (behaviour.py): the value a filter field is set
to most, and the attributes, metadata facets or name words that looked-at and favourited
items share."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from extract.events.drafts import CONF_DWELL, CONF_FILTER, CONF_REPEAT, _Builder, _lang_of, _reject
from extract.events.signals import (
    _QUOTED,
    _attr_display,
    _attr_id,
    _attr_text,
    _Evidence,
    _filter_text,
    _norm,
    _Signal,
    _slug,
)
from extract.types import EntityRef, FactDraft, Lang, Rejection
from text.lang import detect_lang, fold


def _filters(b: _Builder, signals: list[_Signal], min_repeat: int) -> list[FactDraft]:
    by_field: dict[str, list[_Signal]] = defaultdict(list)
    for s in signals:
        if s.field and s.value:
            by_field[s.field].append(s)
    facts = []
    for fld, group in by_field.items():
        counts = Counter(s.value for s in group)
        # the most used value; ties go to the latest
        value = max(
            counts, key=lambda v: (counts[v], max(i for i, s in enumerate(group) if s.value == v))
        )
        support = [s for s in group if s.value == value]
        lang = _lang_of(support)
        raw = next(s.raw_value for s in reversed(support) if s.raw_value) or value or ""
        names = [s.field_name for s in support if s.field_name]
        same = [s.field_name for s in support if s.field_name and detect_lang(s.field_name) == lang]
        name = (same or names or [fld])[-1]
        spec = next((f for f in b.pack.fields if f.id == fld), None)
        slot = (spec.slot if spec else None) or f"filter:{fld}"
        extra = []
        if spec is not None and spec.value == "money":
            extra.append(EntityRef(name=raw, type="MONEY", normalized=value or raw))
        elif spec is not None and spec.value == "size":
            extra.append(EntityRef(name=raw, type="SIZE", normalized=value or raw))
        conf = CONF_REPEAT if len(support) >= min_repeat else CONF_FILTER
        facts.append(
            b.fact(
                content=_filter_text(spec, name, value or raw, raw, lang),
                kind="behavior_pattern",
                signals=support,
                key=f"behavior_pattern:{slot}",
                confidence=conf,
                slot=slot,
                value=value,
                extra=extra,
                label=(spec.label if spec else None) or slot.split(":", 1)[0],
                label_text=raw,
            )
        )
    return facts


_LOOKS = ("view", "click", "favorite", "dwell", "search")
_JOIN = "\x1f"  # between the facets of one merged evidence key


def _evidence(b: _Builder, signals: list[_Signal]) -> dict[str, _Evidence]:
    """What looked-at items share: their attributes; else their metadata facets; else, for
    favourites, the words of their names (two favourites sharing a word share a trait)."""
    ev: dict[str, _Evidence] = defaultdict(_Evidence)
    for s in signals:
        if s.etype not in _LOOKS:
            continue
        if s.attributes:
            for a in s.attributes:
                ev[a].signals.append(s)
        elif s.facets:
            for key, value in s.facets:
                ev[f"{key}={fold(value)}"].signals.append(s)
        elif s.etype == "favorite" and s.item:
            for word in b.item_words(s):
                ev[f"word={word}"].signals.append(s)
    # a shared word counts only when favourites of different items share it
    for key in [k for k in ev if k.startswith("word=")]:
        if len({_norm(s.item or "") for s in ev[key].signals}) < 2:
            del ev[key]
    # facets the same events share are one trait ("brand=X" and "type=Y": a Y by X)
    merged: dict[tuple[str, ...], str] = {}
    for key in [k for k in ev if "=" in k and not k.startswith("word=")]:
        ids = ev[key].ids()
        if ids in merged:
            ev[merged[ids] + _JOIN + key] = ev.pop(merged[ids])
            ev.pop(key)
            merged[ids] = merged[ids] + _JOIN + key
        else:
            merged[ids] = key
    return ev


def _display(
    b: _Builder, key: str, signals: Sequence[_Signal], lang: Lang, raw: dict[str, str]
) -> tuple[str, bool]:
    """(the words a fact uses for the evidence key, whether they name a category)."""
    if key.startswith("word="):
        return key.split("=", 1)[1], False
    if "=" in key:
        words, noun = [], False
        for part in key.split(_JOIN):
            facet = part.split("=", 1)[0]
            words.append(
                next(
                    (v for s in reversed(signals) for k, v in s.facets if f"{k}={fold(v)}" == part),
                    part,
                )
            )
            spec = b.pack.field_by_alias.get(facet)
            noun = noun or facet == "category" or (spec is not None and spec.id == "category")
        return " ".join(words), noun and len(words) == 1
    return _attr_display(b.pack, key, lang, raw), False


def _attributes(
    b: _Builder, signals: list[_Signal], min_repeat: int, used: set[str]
) -> tuple[list[FactDraft], list[Rejection]]:
    ev = _evidence(b, signals)
    raw_names: dict[str, str] = {}
    for s in signals:
        raws = s.msg.metadata.get("attributes")
        for raw in raws if isinstance(raws, list) else []:
            raw_names.setdefault(_attr_id(b.pack, str(raw)), str(raw))
        for q in _QUOTED.findall(s.msg.content):
            raw_names.setdefault(_attr_id(b.pack, q), q)
    facts, rejections = [], []
    for attr, e in ev.items():
        fav, looks = e.weight("favorite"), e.weight("view", "click", "search")
        dwell = e.weight("dwell")
        if fav >= min_repeat:
            dominant, conf = "favorite", CONF_REPEAT
        elif fav + looks >= min_repeat:
            dominant, conf = "view", CONF_REPEAT
        elif dwell:
            dominant, conf = "dwell", CONF_DWELL + (0.1 if dwell >= min_repeat else 0.0)
        else:
            kinds = "/".join(sorted({s.etype for s in e.signals}))
            rejections.append(
                _reject(
                    e.signals,
                    f"{fav + looks} {kinds} on {attr}: below evidence threshold {min_repeat}",
                )
            )
            continue
        conf += 0.05 * (len({s.etype for s in e.signals}) - 1)
        lang = _lang_of(e.signals)
        display, is_category = _display(b, attr, e.signals, lang, raw_names)
        cats = Counter(
            s.category for s in e.signals if s.etype == dominant and s.category
        ) or Counter(s.category for s in e.signals if s.category and s.etype != "dwell")
        cat = max(cats, key=lambda c: (cats[c], c)) if cats and "=" not in attr else None
        if is_category:
            cat = ""
        item = ""
        if dominant == "dwell" and not any(s.review for s in e.signals):
            item = next(s.item for s in reversed(e.signals) if s.item) or display
        facts.append(
            b.fact(
                content=_attr_text(dominant, display, cat, lang, item),
                kind="preference",
                signals=e.signals,
                key=f"preference:attribute:{_slug(attr.replace(_JOIN, '+'))}",
                confidence=conf,
                polarity="likes",
                label_text=f"{display} {cat or ''}",
            )
        )
        used.update(e.ids())
    return facts, rejections
