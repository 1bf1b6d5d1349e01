"""Implicit facts from behaviour events (filter, view, click, favorite, dwell, skip, search …).

Events are aggregated per user over the window given. A fact needs enough evidence: a filter
used, an explicit skip, a dwell on reviews, or at least ``min_repeat`` views/clicks/favourites
sharing an attribute. Every fact lists all supporting events, is ``explicit=False`` and has a
confidence below 1 that grows with the evidence. Keys depend on what the fact is about (slot,
attribute, item), not on wording or counts, so re-aggregating a window keeps them.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from spacy.language import Language

from extract import rx
from extract.facts import TOPIC_LABELS
from extract.lang import detect_lang, fold, money_value, parse_number, size_value
from extract.nlp import entity_refs, gazetteer_lookup
from extract.types import (
    EVENT_TYPES,
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

# attribute id, Chinese display, English display, aliases (longest match wins)
ATTRIBUTES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("cushioned", "缓震", "cushioned", ("缓震", "缓冲", "软弹", "cushioned", "cushioning")),
    (
        "light_colour",
        "浅色",
        "light-coloured",
        ("浅色系", "浅色", "light-coloured", "light-colored", "light colour", "light color"),
    ),
    ("lightweight", "轻量", "lightweight", ("轻量", "轻便", "轻盈", "lightweight", "light-weight")),
    ("breathable", "透气", "breathable", ("透气", "breathable")),
    ("waterproof", "防水", "waterproof", ("防水", "waterproof")),
    (
        "carbon_plate",
        "碳板",
        "carbon-plate",
        ("碳板", "carbon-plate", "carbon plate", "carbon-plated"),
    ),
    ("racing", "竞速", "racing", ("竞速", "racing")),
    ("soft_feel", "脚感柔软", "soft feel", ("脚感柔软", "柔软", "soft feel", "softness")),
    (
        "daily_training",
        "日常训练",
        "daily training",
        ("日常训练", "daily training", "everyday training"),
    ),
    ("stability", "稳定支撑", "stability", ("稳定支撑", "stability", "supportive")),
    ("wide_fit", "宽楦", "wide-fit", ("宽楦", "wide-fit", "wide fit")),
    ("trail", "越野", "trail", ("越野", "trail")),
    ("low_key", "低调", "low-key", ("低调", "简约", "low-key", "understated", "minimalist")),
)
_ATTR_BY_ALIAS = {fold(alias): row for row in ATTRIBUTES for alias in row[3]}
_HAN = rx.compile(r"[\u4e00-\u9fff]")
_ATTR_RE = rx.compile(
    "|".join(
        rx.escape(a) if _HAN.search(a) else rx.word(a)
        for a in sorted(_ATTR_BY_ALIAS, key=lambda a: (-len(a), a))
    ),
    rx.IGNORECASE,
)
_PREFIX = rx.compile(
    r"^\s*(?P<p>筛选|浏览|查看|点击|收藏|停留|跳过|搜索|购买|filter(?:ed)?|view(?:ed)?|"
    r"click(?:ed)?|favou?rited?|dwell(?:ed)?|skip(?:ped)?|search(?:ed)?(?: for)?|purchased?|"
    r"bought)\s*[:：]?\s*",
    rx.IGNORECASE,
)
_PREFIX_TYPE = {
    "筛选": "filter",
    "浏览": "view",
    "查看": "view",
    "点击": "click",
    "收藏": "favorite",
    "停留": "dwell",
    "跳过": "skip",
    "搜索": "search",
    "购买": "purchase",
    "bought": "purchase",
}
_FIELDS = {
    "price": ("价格", "价位", "价钱", "价格区间", "price", "price range", "prices"),
    "size": ("尺码", "鞋码", "码数", "尺寸", "size"),
    "category": ("品类", "类别", "分类", "类目", "category"),
    "color": ("颜色", "配色", "color", "colour"),
    "brand": ("品牌", "brand"),
}
_FIELD_BY_ALIAS = {a: f for f, aliases in _FIELDS.items() for a in aliases}
_FILTER_SLOT = {
    "price": "price_range",
    "size": "size",
    "category": "category",
    "color": "color",
    "brand": "brand",
}
_COUNT = rx.compile(
    r"^(?P<n>\d+|[一二两三四五六七八九十]+)\s*(?:双|个|件|款|条|次|张|篇|pairs? of|"
    r"items?|x)?\s*",
    rx.IGNORECASE,
)
_QUOTED = rx.compile(r"[“\"「『‘]([^”\"」』’]+)[”\"」』’]")
_CODE = rx.compile(r"\s*(?:[A-Z]|\d{1,3}|#\d+)$")
_REVIEW = rx.compile(r"评价|评论|点评|review", rx.IGNORECASE)
_SPACES = rx.compile(r"\s+")
_NON_WORD = rx.compile(r"[^\p{L}\p{N}]+")  # Python's [\s\W_]+
_EDGE_FILLER = rx.compile(r"^[\s的、,，]+|[\s的、,，]+$")
_ARTICLE = rx.compile(r"^(?:of|the)\s+", rx.IGNORECASE)
_FIELD_VALUE = rx.compile(r"^(?P<f>[^=：:]+?)\s*(?:=|：|:|为|\bis\b)\s*(?P<v>.+)$")
_ENDS_LATIN = rx.compile(r"[a-z]$")
_Y_ENDING = rx.compile(r"[^aeiou]y$")
EVENT_KINDS = tuple(t for t in EVENT_TYPES if t != "message")


@dataclass(frozen=True)
class _Signal:
    msg: MessageRecord
    etype: str
    lang: Lang
    field: str | None = None
    value: str | None = None  # filter value, normalised
    raw_value: str | None = None
    item: str | None = None
    category: str | None = None
    attributes: tuple[str, ...] = ()  # attribute ids
    count: int = 1
    review: bool = False


@dataclass
class _Evidence:
    signals: list[_Signal] = field(default_factory=list)

    def weight(self, *types: str) -> int:
        return sum(s.count for s in self.signals if s.etype in types)

    def ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.msg.message_id for s in self.signals))


def _attr_row(text: str) -> tuple[str, str, str, tuple[str, ...]] | None:
    return _ATTR_BY_ALIAS.get(fold(text.strip()))


def _attrs_in(text: str) -> list[str]:
    rows = (_ATTR_BY_ALIAS.get(fold(m.group(0))) for m in _ATTR_RE.finditer(text))
    return [row[0] for row in rows if row is not None]


def _attr_id(raw: str) -> str:
    row = _attr_row(raw)
    if row:
        return row[0]
    found = _attrs_in(raw)
    return found[0] if len(found) == 1 else _SPACES.sub("_", raw.strip().lower())


def _attr_display(attr: str, lang: Lang, raw: dict[str, str]) -> str:
    for row in ATTRIBUTES:
        if row[0] == attr:
            return row[1] if lang == "zh" else row[2]
    return raw.get(attr, attr)


def _norm(text: str) -> str:
    return _NON_WORD.sub("", text.lower())


def _category(rest: str, lang: Lang) -> str | None:
    out = _ATTR_RE.sub("", rest)
    out = _EDGE_FILLER.sub("", out)
    out = _CODE.sub("", out).strip(" 的")
    out = _ARTICLE.sub("", out)
    return out or None


def _meta_str(meta: dict[str, object], *keys: str) -> str | None:
    for key in keys:
        value = meta.get(key)
        if value not in (None, ""):
            return str(value)
    return None


def _parse(msg: MessageRecord) -> _Signal | None:
    meta = msg.metadata
    text = msg.content.strip()
    m = _PREFIX.match(text)
    etype = msg.event_type
    if m:
        word = m.group("p").lower()
        inferred = _PREFIX_TYPE.get(word) or next(
            (t for t in EVENT_KINDS if word.startswith(t[:4])), None
        )
        if etype in ("message", "") and inferred:
            etype = inferred
        text = text[m.end() :].strip()
    if etype not in EVENT_KINDS:
        return None
    values = " ".join(str(v) for v in meta.values() if isinstance(v, str | int | float))
    lang = detect_lang(text or values, default=msg.lang)
    raw_attrs = meta.get("attributes")
    attrs: list[str] = [_attr_id(str(a)) for a in raw_attrs] if isinstance(raw_attrs, list) else []
    count_meta = meta.get("count")
    count = int(count_meta) if isinstance(count_meta, int | float) and count_meta > 0 else 0
    if etype == "filter":
        return _parse_filter(msg, text, lang)
    quoted = _QUOTED.findall(text)
    rest = text
    mc = _COUNT.match(rest)
    if mc:
        n = parse_number(mc.group("n"))
        count = count or (int(n) if n else 1)
        rest = rest[mc.end() :]
    if not attrs:
        attrs = [_attr_id(q) for q in quoted] if quoted else _attrs_in(rest)
    item = _meta_str(meta, "item", "product", "title", "query") or (rest.strip() or None)
    category = _meta_str(meta, "category") or _category(rest, lang)
    review = bool(_REVIEW.search(text) or str(meta.get("target", "")).startswith("review"))
    return _Signal(
        msg=msg,
        etype=etype,
        lang=lang,
        item=item,
        category=category,
        attributes=tuple(dict.fromkeys(attrs)),
        count=count or 1,
        review=review,
    )


def _parse_filter(msg: MessageRecord, text: str, lang: Lang) -> _Signal:
    meta = msg.metadata
    raw_field, raw_value = _meta_str(meta, "field"), _meta_str(meta, "value")
    if raw_field is None or raw_value is None:
        mf = _FIELD_VALUE.match(text)
        if mf:
            raw_field, raw_value = raw_field or mf.group("f"), raw_value or mf.group("v")
    fld = _FIELD_BY_ALIAS.get(fold((raw_field or "").strip()), (raw_field or "").strip().lower())
    value = (raw_value or "").strip()
    norm = value
    if fld == "price":
        norm = money_value(value) or value
    elif fld == "size":
        norm = size_value(value) or value
    elif fld == "brand":
        hit = gazetteer_lookup(value)
        norm = hit[1] if hit else value
    return _Signal(
        msg=msg,
        etype="filter",
        lang=lang,
        field=fld or None,
        value=norm or None,
        raw_value=value or None,
        attributes=tuple(_attrs_in(value)),
    )


# --- wording --------------------------------------------------------------------------------


def _plural(word: str) -> str:
    if not word or word.endswith("s") or not _ENDS_LATIN.search(word):
        return word
    return word[:-1] + "ies" if _Y_ENDING.search(word) else word + "s"


def _filter_text(fld: str, value: str, raw: str, lang: Lang) -> str:
    if lang == "zh":
        return {
            "price": f"用户筛选的价格区间为 {raw} 元"
            if "-" in value
            else f"用户筛选的价格为 {raw}",
            "size": f"用户常看 {value} 码",
            "category": f"用户筛选的品类为{raw}",
            "color": f"用户筛选的颜色为{raw}",
            "brand": f"用户筛选的品牌为{raw}",
        }.get(fld, f"用户按{fld}筛选：{raw}")
    return {
        "price": f"The user filters for a price range of {raw}"
        if "-" in value
        else f"The user filters for prices of {raw}",
        "size": f"The user mostly looks at size {value}",
        "category": f"The user filters for the {raw} category",
        "color": f"The user filters for the colour {raw}",
        "brand": f"The user filters for the brand {raw}",
    }.get(fld, f"The user filters by {fld} = {raw}")


def _attr_text(dominant: str, attr: str, cat: str | None, lang: Lang) -> str:
    if lang == "zh":
        cat = cat or "商品"
        if dominant == "favorite":
            return f"用户对{attr}{cat}更感兴趣"
        if dominant == "dwell":
            return f"用户关注提到“{attr}”的评价"
        return f"用户偏好{attr}的{cat}"
    cat = _plural(cat or "items")
    if dominant == "favorite":
        return f"The user is more interested in {attr} {cat}"
    if dominant == "dwell":
        return f'The user pays attention to reviews mentioning "{attr}"'
    return f"The user prefers {attr} {cat}"


# --- aggregation ----------------------------------------------------------------------------


def _lang_of(signals: Sequence[_Signal]) -> Lang:
    counts = Counter(s.lang for s in signals)
    top = max(counts.values())
    tied = {lang for lang, n in counts.items() if n == top}
    return next(s.lang for s in reversed(signals) if s.lang in tied)


def _labels(kind: Kind, signals: Sequence[_Signal], slot: str | None, text: str) -> tuple[str, ...]:
    labels = ["behaviour", kind, *sorted({s.etype for s in signals})]
    if slot:
        labels.append({"price_range": "budget"}.get(slot, slot.split(":", 1)[0]))
    labels += [name for name, pattern in TOPIC_LABELS if pattern.search(text)]
    return tuple(dict.fromkeys(labels))


class _Builder:
    def __init__(self, en_nlp: Language, zh_nlp: Language) -> None:
        self.en_nlp, self.zh_nlp = en_nlp, zh_nlp
        self._ents: dict[str, tuple[EntityRef, ...]] = {}

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
            labels=_labels(kind, signals, slot, f"{content} {label_text}"),
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
        slot = _FILTER_SLOT.get(fld, f"filter:{fld}")
        extra = []
        if fld == "price":
            extra.append(EntityRef(name=raw, type="MONEY", normalized=value or raw))
        elif fld == "size":
            extra.append(EntityRef(name=raw, type="SIZE", normalized=value or raw))
        conf = CONF_REPEAT if len(support) >= min_repeat else CONF_FILTER
        facts.append(
            b.fact(
                content=_filter_text(fld, value or raw, raw, lang),
                kind="behavior_pattern",
                signals=support,
                key=f"behavior_pattern:{slot}",
                confidence=conf,
                slot=slot,
                value=value,
                extra=extra,
                label_text=raw,
            )
        )
    return facts


def _attributes(
    b: _Builder, signals: list[_Signal], min_repeat: int, used: set[str]
) -> tuple[list[FactDraft], list[Rejection]]:
    ev: dict[str, _Evidence] = defaultdict(_Evidence)
    raw_names: dict[str, str] = {}
    for s in signals:
        if s.etype in ("view", "click", "favorite", "dwell", "search"):
            for a in s.attributes:
                ev[a].signals.append(s)
    for s in signals:
        raws = s.msg.metadata.get("attributes")
        for raw in raws if isinstance(raws, list) else []:
            raw_names.setdefault(_attr_id(str(raw)), str(raw))
        for q in _QUOTED.findall(s.msg.content):
            raw_names.setdefault(_attr_id(q), q)
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
        cats = Counter(
            s.category for s in e.signals if s.etype == dominant and s.category
        ) or Counter(s.category for s in e.signals if s.category and s.etype != "dwell")
        cat = max(cats, key=lambda c: (cats[c], c)) if cats else None
        display = _attr_display(attr, lang, raw_names)
        facts.append(
            b.fact(
                content=_attr_text(dominant, display, cat, lang),
                kind="preference",
                signals=e.signals,
                key=f"preference:attribute:{attr}",
                confidence=conf,
                polarity="likes",
                label_text=f"{display} {cat or ''}",
            )
        )
        used.update(e.ids())
    return facts, rejections


def _skips(b: _Builder, signals: list[_Signal], min_repeat: int) -> list[FactDraft]:
    groups: dict[str, list[_Signal]] = defaultdict(list)
    for s in signals:
        if s.etype == "skip" and (s.item or s.attributes):
            groups["+".join(sorted(s.attributes)) or _norm(s.item or "")].append(s)
    facts = []
    for item_id, group in groups.items():
        lang = _lang_of(group)
        item = next(s.item for s in reversed(group) if s.item) or item_id
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
                key=f"preference:avoid:{item_id}",
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
        sig = _parse(msg)
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
    events: Sequence[MessageRecord], en_nlp: Language, zh_nlp: Language, min_repeat: int = 2
) -> Extraction:
    """Aggregate behaviour events (per user, over the given window) into implicit facts."""
    by_user: dict[str, list[MessageRecord]] = defaultdict(list)
    for msg in sorted(events, key=lambda m: (m.timestamp, m.message_id)):
        by_user[msg.user_id].append(msg)
    builder = _Builder(en_nlp, zh_nlp)
    facts: list[FactDraft] = []
    rejections: list[Rejection] = []
    for user in sorted(by_user):
        f, r = _extract_user(builder, by_user[user], min_repeat)
        facts += f
        rejections += r
    log.debug("aggregated %d events into %d facts", len(events), len(facts))
    return Extraction(facts=tuple(facts), rejections=tuple(rejections))
