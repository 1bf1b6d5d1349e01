"""Implicit facts from behaviour events (filter, view, click, favorite, dwell, skip, search …).

Events are aggregated per user over the window given. A fact needs enough evidence: a filter
used, an explicit skip, a dwell, or at least ``min_repeat`` views/clicks/favourites sharing an
attribute. What an event is about comes from the event itself, in any domain: its metadata
(``{"field": …, "value": …}``, ``"attributes": [...]``, or any other key/value such as
``{"material": "oak"}``), its text ("field = value", "筛选：X = Y", "filter: X: Y"), or the
words two favourited items share. The domain packs (extract/packs) only add synonyms:
attribute names across languages, filter field names, slots and wording. Every fact lists
all supporting events, is ``explicit=False`` and has a confidence below 1 that grows with
the evidence. Keys depend on what the fact is about (slot, attribute, item), not on wording
or counts, so re-aggregating a window keeps them.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from spacy.language import Language

from extract.events.signals import (
    _HAN,
    _ITEM_STOP,
    _ITEM_WORD,
    _QUOTED,
    _attr_display,
    _attr_id,
    _attr_text,
    _Evidence,
    _filter_text,
    _norm,
    _parse,
    _Signal,
    _slug,
)
from extract.packs import Pack
from extract.packs import current as current_pack
from extract.text.lang import detect_lang, fold
from extract.text.nlp import entity_refs
from extract.types import (
    EntityRef,
    Extraction,
    FactDraft,
    Kind,
    Lang,
    MessageRecord,
    Rejection,
)

log = logging.getLogger(__name__)

CONF_FILTER, CONF_REPEAT, CONF_SKIP, CONF_DWELL, CONF_SEARCH, CONF_PURCHASE = (
    0.7,
    0.8,
    0.7,
    0.6,
    0.7,
    0.9,
)
CONF_MAX = 0.9


# --- aggregation ----------------------------------------------------------------------------


def _lang_of(signals: Sequence[_Signal]) -> Lang:
    counts = Counter(s.lang for s in signals)
    top = max(counts.values())
    tied = {lang for lang, n in counts.items() if n == top}
    return next(s.lang for s in reversed(signals) if s.lang in tied)


def _labels(
    pack: Pack, kind: Kind, signals: Sequence[_Signal], label: str | None, text: str
) -> tuple[str, ...]:
    labels = ["behaviour", kind, *sorted({s.etype for s in signals})]
    if label:
        labels.append(label)
    labels += pack.labels_in(text)
    return tuple(dict.fromkeys(labels))


class _Builder:
    def __init__(self, en_nlp: Language, zh_nlp: Language, pack: Pack) -> None:
        self.en_nlp, self.zh_nlp, self.pack = en_nlp, zh_nlp, pack
        self._ents: dict[str, tuple[EntityRef, ...]] = {}

    def item_words(self, s: _Signal) -> set[str]:
        """Content words of an item's name (jieba words for Chinese), folded."""
        words: set[str] = set()
        for m in _ITEM_WORD.finditer(s.item or ""):
            word = m.group(0)
            if _HAN.search(word):
                words.update(t.text for t in self.zh_nlp.make_doc(word) if len(t.text) >= 2)
            elif fold(word) not in _ITEM_STOP:
                words.add(fold(word))
        return words

    def entities(
        self, signals: Iterable[_Signal], extra: Iterable[EntityRef]
    ) -> tuple[EntityRef, ...]:
        out: dict[tuple[str, str], EntityRef] = {}
        for s in signals:
            mid = s.msg.message_id
            if mid not in self._ents:
                nlp = self.zh_nlp if s.lang == "zh" else self.en_nlp
                self._ents[mid] = entity_refs(nlp(s.msg.content)) if s.msg.content else ()
            for ref in self._ents[mid]:
                out.setdefault((ref.type, ref.normalized), ref)
        for ref in extra:
            out.setdefault((ref.type, ref.normalized), ref)
        return tuple(out.values())

    def fact(
        self,
        *,
        content: str,
        kind: Kind,
        signals: Sequence[_Signal],
        key: str,
        confidence: float,
        slot: str | None = None,
        value: str | None = None,
        polarity: str = "neutral",
        extra: Iterable[EntityRef] = (),
        label: str | None = None,
        label_text: str = "",
    ) -> FactDraft:
        ts = [s.msg.timestamp for s in signals]
        anchors = tuple(
            dict.fromkeys(
                f"order:{s.msg.metadata['order_id']}"
                for s in signals
                if s.msg.metadata.get("order_id")
            )
        )
        return FactDraft(
            content=content,
            kind=kind,
            source_message_ids=tuple(dict.fromkeys(s.msg.message_id for s in signals)),
            time_start=min(ts),
            time_end=max(ts),
            lang=_lang_of(signals),
            entities=self.entities(signals, extra),
            labels=_labels(self.pack, kind, signals, label, f"{content} {label_text}"),
            slot=slot,
            value=value,
            polarity="avoids"
            if polarity == "avoids"
            else ("likes" if polarity == "likes" else "neutral"),
            explicit=False,
            confidence=round(min(confidence, CONF_MAX), 2),
            key=key,
            anchors=anchors,
        )


def _reject(signals: Sequence[_Signal], reason: str) -> Rejection:
    return Rejection(
        source_message_ids=tuple(s.msg.message_id for s in signals),
        reason=reason,
        text=" / ".join(s.msg.content for s in signals),
    )


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


def _skips(b: _Builder, signals: list[_Signal], min_repeat: int) -> list[FactDraft]:
    """Skipped items, grouped by their attributes; skips of different items that share a
    metadata facet (genre, tag …) give one fact about the facet."""
    skips = [s for s in signals if s.etype == "skip" and (s.item or s.attributes or s.facets)]
    by_facet: dict[tuple[str, str], list[_Signal]] = defaultdict(list)
    for s in skips:
        if not s.attributes:
            for key, value in s.facets:
                by_facet[(key, fold(value))].append(s)
    groups: dict[str, tuple[list[_Signal], str | None]] = {}
    covered: set[str] = set()
    for (key, value), group in by_facet.items():
        if len({_norm(s.item or "") for s in group}) >= 2 and len(group) >= min_repeat:
            shown = next(v for k, v in group[-1].facets if (k, fold(v)) == (key, value))
            groups.setdefault(f"{key}={value}", (group, shown))
            covered.update(s.msg.message_id for s in group)
    for s in skips:
        if s.msg.message_id in covered:
            continue
        item_id = "+".join(sorted(s.attributes)) or _norm(s.item or "")
        if item_id:
            groups.setdefault(item_id, ([], None))[0].append(s)
    facts = []
    for item_id, (group, named) in groups.items():
        lang = _lang_of(group)
        item = named or next(s.item for s in reversed(group) if s.item) or item_id
        content = (
            f"用户当前不倾向{item}"
            if lang == "zh"
            else f"The user is currently not inclined towards {item}"
        )
        conf = CONF_REPEAT if len(group) >= min_repeat else CONF_SKIP
        facts.append(
            b.fact(
                content=content,
                kind="preference",
                signals=group,
                key=f"preference:avoid:{_slug(item_id)}",
                confidence=conf,
                polarity="avoids",
                label_text=item,
            )
        )
    return facts


def _items(
    b: _Builder, signals: list[_Signal], min_repeat: int, used: set[str]
) -> tuple[list[FactDraft], list[Rejection]]:
    """Repeated views/clicks/searches of one item; single ones are rejected (not a preference)."""
    groups: dict[tuple[str, str], list[_Signal]] = defaultdict(list)
    for s in signals:
        if s.etype in ("view", "click", "favorite", "search", "dwell") and s.item:
            group = "search" if s.etype == "search" else "look"
            groups[(group, _norm(s.item))].append(s)
    facts, rejections = [], []
    for (group, item_id), sigs in groups.items():
        n = sum(s.count for s in sigs)
        item = sigs[-1].item or item_id
        lang = _lang_of(sigs)
        if n >= min_repeat and not any(s.attributes for s in sigs):
            if group == "search":
                content = (
                    f"用户多次搜索“{item}”"
                    if lang == "zh"
                    else f'The user searched for "{item}" several times'
                )
                key, conf = f"behavior_pattern:search:{item_id}", CONF_SEARCH
            else:
                content = (
                    f"用户多次浏览{item}"
                    if lang == "zh"
                    else f"The user looked at {item} several times"
                )
                key, conf = f"behavior_pattern:item:{item_id}", CONF_SEARCH
            facts.append(
                b.fact(
                    content=content,
                    kind="behavior_pattern",
                    signals=sigs,
                    key=key,
                    confidence=conf,
                    label_text=item,
                )
            )
            used.update(s.msg.message_id for s in sigs)
        elif not any(s.msg.message_id in used for s in sigs):
            kinds = "/".join(sorted({s.etype for s in sigs}))
            rejections.append(
                _reject(sigs, f"{n} {kinds} on {item}: below evidence threshold {min_repeat}")
            )
    return facts, rejections


def _purchases(b: _Builder, signals: list[_Signal]) -> list[FactDraft]:
    facts = []
    for s in signals:
        if s.etype == "purchase" and s.item:
            content = f"用户购买了{s.item}" if s.lang == "zh" else f"The user bought {s.item}"
            facts.append(
                b.fact(
                    content=content,
                    kind="timeline",
                    signals=[s],
                    key=f"timeline:purchase:{_norm(s.item)}",
                    confidence=CONF_PURCHASE,
                    label_text=s.item,
                )
            )
    return facts


def _extract_user(
    b: _Builder, events: list[MessageRecord], min_repeat: int
) -> tuple[list[FactDraft], list[Rejection]]:
    signals: list[_Signal] = []
    rejections: list[Rejection] = []
    for msg in events:
        sig = _parse(b.pack, msg)
        if sig is None:
            reason = (
                "chat message: handled by extract_chat"
                if msg.event_type == "message"
                else f"unknown event type {msg.event_type!r}"
            )
            rejections.append(Rejection((msg.message_id,), reason, msg.content))
        elif sig.etype == "tool_call":
            rejections.append(
                Rejection((msg.message_id,), "tool_call: not a user preference signal", msg.content)
            )
        else:
            signals.append(sig)
    used: set[str] = set()
    facts = _filters(b, signals, min_repeat)
    attr_facts, attr_rej = _attributes(b, signals, min_repeat, used)
    item_facts, item_rej = _items(b, signals, min_repeat, used)
    facts += attr_facts + _skips(b, signals, min_repeat) + item_facts + _purchases(b, signals)
    used.update(i for f in facts for i in f.source_message_ids)
    rejections += attr_rej + [r for r in item_rej if not set(r.source_message_ids) <= used]
    return facts, rejections


def extract_events(
    events: Sequence[MessageRecord],
    en_nlp: Language,
    zh_nlp: Language,
    min_repeat: int = 2,
    pack: Pack | None = None,
) -> Extraction:
    """Aggregate behaviour events (per user, over the given window) into implicit facts.

    ``pack``: the domain packs to read attribute and field names from (default: current)."""
    by_user: dict[str, list[MessageRecord]] = defaultdict(list)
    for msg in sorted(events, key=lambda m: (m.timestamp, m.message_id)):
        by_user[msg.user_id].append(msg)
    builder = _Builder(en_nlp, zh_nlp, pack or current_pack())
    facts: list[FactDraft] = []
    rejections: list[Rejection] = []
    for user in sorted(by_user):
        f, r = _extract_user(builder, by_user[user], min_repeat)
        facts += f
        rejections += r
    log.debug("aggregated %d events into %d facts", len(events), len(facts))
    return Extraction(facts=tuple(facts), rejections=tuple(rejections))
