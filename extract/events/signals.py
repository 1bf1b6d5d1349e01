"""What one behaviour event says (behaviour.py): the signal parsed from its type,
metadata and text, and the wording of attributes and filters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from extract.nlp import gazetteer_lookup
from extract.types import EVENT_TYPES, Lang, MessageRecord
from packs import FieldSpec, Pack
from text import rx
from text.lang import detect_lang, fold, money_value, parse_number, size_value

_HAN = rx.compile(r"[\u4e00-\u9fff]")
_PREFIX = rx.compile(
    r"^\s*(?P<p>筛选|浏览|查看|点击|收藏|停留|跳过|搜索|购买|下单|filter(?:ed)?|view(?:ed)?|"
    r"click(?:ed)?|favou?rited?|dwell(?:ed)?|skip(?:ped)?|search(?:ed)?(?: for)?|purchased?|"
    r"bought|ordered)(?:推荐|\s+recommendations?)?\s*[:：]?\s*"
    r"(?:(?:推荐|recommended|recommendation)\s*[—–:：-]\s*)?",
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
    "下单": "purchase",
    "bought": "purchase",
    "ordered": "purchase",
}
# metadata keys that name or measure the event, not what the user likes
_META_NOT_FACETS = frozenset(
    {
        "item", "product", "title", "name", "query", "sku", "id", "url", "link", "target",
        "speaker", "page", "tool", "status", "seconds", "count", "field", "value",
        "attributes", "order_id", "booking_id", "reservation_id", "date", "from", "to",
    }
)  # fmt: skip
_MAX_FACET_CHARS = 40
# words of item names that say nothing about the item
_ITEM_STOP = frozenset(
    {"the", "and", "with", "for", "from", "new", "page", "product", "detail", "details", "store",
     "item", "items", "set", "pack", "edition", "version", "详情页", "商品", "页面"}
)  # fmt: skip
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
_FIELD_VALUE = rx.compile(
    r"^(?P<f>[^=：:≤≥<>]+?)\s*(?P<op>=|：|:|为|\bis\b|≤|≥|<=|>=|<|>)\s*(?P<v>.+)$"
)
_BOUND_OPS = {"≤": "<=", "≥": ">=", "<=": "<=", ">=": ">=", "<": "<", ">": ">"}
_ITEM_WORD = rx.compile(r"[A-Za-z][A-Za-z'-]{2,}|[\u4e00-\u9fff]{2,}")
_SLUG = rx.compile(r"[^\p{L}\p{N}]+")
_ID_KEY = rx.compile(r"(?:^|_)ids?$")
_ENDS_LATIN = rx.compile(r"[a-z]$")
_Y_ENDING = rx.compile(r"[^aeiou]y$")
EVENT_KINDS = tuple(t for t in EVENT_TYPES if t != "message")


@dataclass(frozen=True)
class _Signal:
    msg: MessageRecord
    etype: str
    lang: Lang
    field: str | None = None  # filter field id
    field_name: str | None = None  # the field as the event names it
    value: str | None = None  # filter value, normalised
    raw_value: str | None = None
    item: str | None = None
    category: str | None = None
    attributes: tuple[str, ...] = ()  # attribute ids
    facets: tuple[tuple[str, str], ...] = ()  # other metadata (key, value), e.g. material=oak
    count: int = 1
    review: bool = False


@dataclass
class _Evidence:
    signals: list[_Signal] = field(default_factory=list)

    def weight(self, *types: str) -> int:
        return sum(s.count for s in self.signals if s.etype in types)

    def ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.msg.message_id for s in self.signals))


def _slug(text: str) -> str:
    return _SLUG.sub("_", fold(text.strip())).strip("_")


def _attrs_in(pack: Pack, text: str) -> list[str]:
    """Ids of the pack attributes named in free text."""
    found = (
        pack.attribute_by_alias.get(fold(m.group(0))) for m in pack.attribute_pattern.finditer(text)
    )
    return [a.id for a in found if a is not None]


def _attr_id(pack: Pack, raw: str) -> str:
    """A pack attribute's id for one of its names, else the raw words as an id."""
    known = pack.attribute_by_alias.get(fold(raw.strip()))
    if known:
        return known.id
    found = _attrs_in(pack, raw)
    return found[0] if len(found) == 1 else _slug(raw)


def _attr_display(pack: Pack, attr: str, lang: Lang, raw: dict[str, str]) -> str:
    for known in pack.attributes:
        if known.id == attr:
            return known.zh if lang == "zh" else known.en
    return raw.get(attr, attr.replace("_", " "))


def _norm(text: str) -> str:
    return _NON_WORD.sub("", text.lower())


def _category(pack: Pack, rest: str, own: Sequence[str]) -> str | None:
    """What the event is about once its attributes and item code are taken off."""
    out = pack.attribute_pattern.sub("", rest)
    for word in own:
        out = out.replace(word, "")
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


def _facets(meta: dict[str, object]) -> tuple[tuple[str, str], ...]:
    """Metadata that describes the item (any key: material, genre, brand, category …)."""
    out = []
    for key, value in meta.items():
        low = key.lower()
        if low in _META_NOT_FACETS or _ID_KEY.search(low) or isinstance(value, bool):
            continue
        if isinstance(value, str) and 0 < len(value.strip()) <= _MAX_FACET_CHARS:
            out.append((low, value.strip()))
    return tuple(out)


def _parse(pack: Pack, msg: MessageRecord) -> _Signal | None:
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
    own = [str(a) for a in raw_attrs] if isinstance(raw_attrs, list) else []
    attrs: list[str] = [_attr_id(pack, a) for a in own]
    count_meta = meta.get("count")
    count = int(count_meta) if isinstance(count_meta, int | float) and count_meta > 0 else 0
    if etype == "filter":
        return _parse_filter(pack, msg, text, lang)
    quoted = _QUOTED.findall(text)
    rest = text
    mc = _COUNT.match(rest)
    if mc:
        n = parse_number(mc.group("n"))
        count = count or (int(n) if n else 1)
        rest = rest[mc.end() :]
    if not attrs:
        attrs = [_attr_id(pack, q) for q in quoted] if quoted else _attrs_in(pack, rest)
    item = _meta_str(meta, "item", "product", "title", "query") or (rest.strip() or None)
    category = _meta_str(meta, "category") or _category(pack, rest, own)
    review = bool(_REVIEW.search(text) or str(meta.get("target", "")).startswith("review"))
    return _Signal(
        msg=msg,
        etype=etype,
        lang=lang,
        item=item,
        category=category,
        attributes=tuple(dict.fromkeys(attrs)),
        facets=_facets(meta),
        count=count or 1,
        review=review,
    )


def _parse_filter(pack: Pack, msg: MessageRecord, text: str, lang: Lang) -> _Signal:
    """The field and value from metadata, else from "field = value" / "X: Y" / "X ≤ Y" text."""
    meta = msg.metadata
    meta_field, raw_value = _meta_str(meta, "field"), _meta_str(meta, "value")
    text_field: str | None = None
    mf = _FIELD_VALUE.match(text)
    if mf:
        text_field = mf.group("f").strip()
        if raw_value is None:
            op = _BOUND_OPS.get(mf.group("op"), "")
            raw_value = op + mf.group("v").strip()
    spec = pack.field_by_alias.get(fold(meta_field or "")) or pack.field_by_alias.get(
        fold(text_field or "")
    )
    name = text_field or (meta_field or "").replace("_", " ").strip()
    fld = spec.id if spec else _slug(meta_field or text_field or "")
    value = (raw_value or "").strip()
    norm = value
    if spec is not None and spec.value == "money":
        norm = money_value(value) or value
    elif spec is not None and spec.value == "size":
        norm = size_value(value) or value
    elif spec is not None and spec.value == "entity":
        hit = gazetteer_lookup(value)
        norm = hit[1] if hit else value
    return _Signal(
        msg=msg,
        etype="filter",
        lang=lang,
        field=fld or None,
        field_name=name or fld or None,
        value=norm or None,
        raw_value=value or None,
        attributes=tuple(_attrs_in(pack, value)),
    )


# --- wording --------------------------------------------------------------------------------


def _plural(word: str) -> str:
    if not word or word.endswith("s") or not _ENDS_LATIN.search(word):
        return word
    return word[:-1] + "ies" if _Y_ENDING.search(word) else word + "s"


def _filter_text(spec: FieldSpec | None, name: str, value: str, raw: str, lang: Lang) -> str:
    """The pack's wording for the field, else a general sentence naming field and value."""
    template = ""
    if spec is not None:
        ranged = spec.value == "money" and "-" in value
        template = (
            (spec.zh_range if ranged else None) or spec.zh or ""
            if lang == "zh"
            else (spec.en_range if ranged else None) or spec.en or ""
        )
    if template:
        return template.replace("{raw}", raw).replace("{value}", value)
    return f"用户按{name}筛选：{raw}" if lang == "zh" else f"The user filters by {name}: {raw}"


def _attr_text(dominant: str, attr: str, cat: str | None, lang: Lang, item: str = "") -> str:
    if lang == "zh":
        noun = cat if cat is not None else "商品"
        if dominant == "favorite":
            return f"用户对{attr}{noun}更感兴趣"
        if dominant == "dwell":
            return (
                f"用户关注提到“{attr}”的评价" if item == "" else f"用户在{item}上停留较久（{attr}）"
            )
        return f"用户偏好{attr}的{noun}"
    noun = _plural(cat) if cat is not None else "items"
    if dominant == "favorite":
        return f"The user is more interested in {attr} {noun}".strip()
    if dominant == "dwell":
        if item:
            return f"The user spent time on {item} ({attr})"
        return f'The user pays attention to reviews mentioning "{attr}"'
    return f"The user prefers {attr} {noun}".strip()
