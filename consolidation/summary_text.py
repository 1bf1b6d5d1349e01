"""The wording of a Summary (summaries.py): the subject split off each fact, hedges
and dates, general and shopping compositions, money and slot phrases, English and Chinese.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from extract.types import FactRecord, Lang
from packs import current as current_pack
from text import rx

_DATED_KINDS = frozenset({"timeline", "plan", "fact"})

_EN_USER = rx.compile(r"^(?:the\s+)?user\s+", rx.IGNORECASE)
_EN_NAME = rx.compile(r"^([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?P<gap>\s+)[a-z]")  # gap: before the rest
# fmt: off
_EN_NOT_NAMES = frozenset((
    "the", "a", "an", "this", "that", "these", "those", "in", "on", "at", "after", "before",
    "when", "while", "last", "next", "today", "yesterday", "tomorrow", "every", "each", "some",
    "most", "many", "she", "he", "they", "it", "we", "i", "you", "there", "here", "if",
    "since", "during",
))
# fmt: on
_ZH_USER = rx.compile(r"^(?:该用户|用户|我)")
_TRAIL = " 。.!！；;，,"

_EN_INTENT = rx.compile(
    r"^(?:is\s+|are\s+)?(?:currently\s+|now\s+|still\s+)?"
    r"(?:looking\s+for|looking\s+to\s+buy|shopping\s+for|searching\s+for|wants\s+to\s+buy|"
    r"plans\s+to\s+buy|intends\s+to\s+buy|would\s+like\s+to\s+buy|wants\s+to\s+get|"
    r"is\s+in\s+the\s+market\s+for)\s+(.+)$",
    rx.IGNORECASE,
)
_ZH_INTENT = rx.compile(
    r"^(?:近期|最近|目前|现在)?(?:正在|在)?"
    r"(?:寻找|找|想买|想要买|打算买|打算购买|计划买|计划购买|准备买|准备购买|要买|购买|需要买)"
    r"(?:一双|一个|一件|一台|一款|一辆|一套)?(.+)$"
)
_EN_SCENARIO = rx.compile(
    r"\b(?:mainly|mostly|primarily|use case|scenario|used for|uses? (?:it|them) for)\b",
    rx.IGNORECASE,
)
_ZH_SCENARIO = rx.compile(r"主要|场景|用于|用来")
_ZH_SCENE_PHRASE = rx.compile(r"^(?:更|主要)?(?:关注|注重|集中在|是)?(.+?)(?:的)?(?:使用)?场景$")

_EN_HEDGES = rx.compile(
    r"\b(?:likely|probably|possibly|may|might|seems?|appears?|tends?|often|usually|"
    r"inclined|interested)\b",
    rx.IGNORECASE,
)
_ZH_HEDGES = rx.compile(r"大概|可能|似乎|好像|倾向|感兴趣|常|大多|通常|一般|较")
_HAS_DATE = rx.compile(
    r"(?:19|20)\d{2}|\d{1,2}\s*月|\d{1,2}\s*日|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d|"
    r"\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
    rx.IGNORECASE,
)

_CURRENCY = rx.compile(r"元|人民币|rmb|cny|yuan|块", rx.IGNORECASE)
_RANGE = rx.compile(r"^(\d+(?:\.\d+)?)\s*(?:-|~|–|to|至|到)\s*(\d+(?:\.\d+)?)$", rx.IGNORECASE)
_UPPER = rx.compile(r"^(?:<=|≤|<|＜|under|below|max|最多|不超过)\s*(\d+(?:\.\d+)?)(?:以内|以下)?$")
_LOWER = rx.compile(r"^(?:>=|≥|>|＞|over|above|min|至少)\s*(\d+(?:\.\d+)?)(?:以上)?$")
_NUMBER = rx.compile(r"^(\d+(?:\.\d+)?)$")
_COPULA = rx.compile(r"^(is|are|was|were|has|have)\s+")


def _slot_family(slot: str) -> str:
    return slot.split(":", 1)[0].strip().lower()


# --- composing content --------------------------------------------------------------


def _split_subject(content: str, lang: Lang) -> tuple[str | None, str]:
    text = content.strip().rstrip(_TRAIL)
    if lang == "zh":
        m = _ZH_USER.match(text)
        if m is None or text[m.end() : m.end() + 1] == "的":
            return None, text  # "用户的表弟…": about the cousin, not the user
        return "该用户", text[m.end() :].strip()
    m = _EN_USER.match(text)
    if m:
        return "The user", text[m.end() :]
    m = _EN_NAME.match(text)
    if m and m.group(1).split()[0].lower() not in _EN_NOT_NAMES:
        return m.group(1), text[m.end("gap") :]
    return None, text


def _hedge(pred: str, fact: FactRecord, lang: Lang) -> str:
    """Keep uncertainty in words: implicit facts without a hedge get one."""
    hedges = _ZH_HEDGES if lang == "zh" else _EN_HEDGES
    if fact.explicit or hedges.search(pred):
        return pred
    if lang == "zh":
        return "可能" + pred
    m = _COPULA.match(pred)
    return f"{m.group(1)} likely {pred[m.end() :]}" if m else "likely " + pred


def _date_tag(fact: FactRecord, text: str, lang: Lang) -> str:
    if fact.kind not in _DATED_KINDS or _HAS_DATE.search(text):
        return ""
    start, end = fact.time_start.date().isoformat(), fact.time_end.date().isoformat()
    span = start if start == end else (f"{start} 至 {end}" if lang == "zh" else f"{start} to {end}")
    return f"（{span}）" if lang == "zh" else f" ({span})"


def _compose_general(facts: Sequence[FactRecord], lang: Lang) -> str:
    """Facts joined per subject: "Caroline went …; is researching …. Melanie …"."""
    by_subject: dict[str, list[str]] = {}
    sentences: list[tuple[str | None, str]] = []  # (subject, sentence); None subject = whole
    for fact in facts:
        subject, pred = _split_subject(fact.content, fact.lang)
        if fact.lang != lang:  # another language: keep it as its own sentence
            subject = None
        text = (pred if subject else fact.content.strip().rstrip(_TRAIL)) or fact.content
        text = _hedge(text, fact, fact.lang) + _date_tag(fact, text, fact.lang)
        if subject is None:
            sentences.append((None, text + ("。" if fact.lang == "zh" else ".")))
            continue
        if subject not in by_subject:
            by_subject[subject] = []
            sentences.append((subject, ""))
        by_subject[subject].append(text)
    out: list[str] = []
    for subject, text in sentences:
        if subject is None:
            out.append(text)
        elif lang == "zh":
            out.append(subject + "；".join(by_subject[subject]) + "。")
        else:
            out.append(f"{subject} " + "; ".join(by_subject[subject]) + ".")
    text = ""
    for sentence in out:  # no space after a Chinese full stop
        text += sentence if not text or text.endswith("。") else " " + sentence
    return text


def _compose_shopping(facts: Sequence[FactRecord], lang: Lang) -> str:
    """Intent, scenario, likes, budget/price/size, avoids, the rest — in that order."""
    zh = lang == "zh"
    intent: str | None = None
    intent_pred: str | None = None
    scenario: list[str] = []
    likes: list[str] = []
    avoids: list[str] = []
    other: list[str] = []
    slots: dict[str, FactRecord] = {}
    people: list[FactRecord] = []  # facts about someone else: their own sentences
    for fact in facts:
        subject, _ = _split_subject(fact.content, fact.lang)
        if subject not in (None, "该用户", "The user"):
            people.append(fact)
            continue
        pred = _user_predicate(fact)
        role = _slot_role(fact)
        if role is not None:
            if role not in slots or _later(fact, slots[role]):
                slots[role] = fact
            continue
        obj = _intent_object(pred, fact.lang)
        if obj is not None and intent is None and intent_pred is None:
            intent = obj
        elif fact.kind == "plan" and intent is None and intent_pred is None:
            intent_pred = pred
        elif fact.polarity == "avoids":
            avoids.append(_hedge(pred, fact, fact.lang))
        elif (_ZH_SCENARIO if fact.lang == "zh" else _EN_SCENARIO).search(pred):
            scenario.append(_scene(pred, fact.lang))
        elif fact.polarity == "likes" or fact.kind == "preference":
            likes.append(_hedge(pred, fact, fact.lang))
        else:
            other.append(_hedge(pred, fact, fact.lang))
    subject = "该用户" if zh else "The user"
    if intent is not None:
        head = _wording("shopping_intent", lang, intent=intent) or (
            f"{subject}想要{intent}" if zh else f"{subject} wants {intent}"
        )
    elif intent_pred is not None:
        head = f"{subject}{intent_pred}" if zh else f"{subject} {intent_pred}"
    else:
        head = subject
    groups = [g for g in (scenario, likes, _slot_phrases(slots, lang), avoids, other) if g]
    text = head
    for i, group in enumerate(groups):
        if i == 0 and head == subject:
            sep = "" if zh else " "
        else:
            sep = ("，" if zh else ", ") if i == 0 else ("；" if zh else "; ")
        text += sep + ("，".join(group) if zh else _en_join(group))
    text += "。" if zh else "."
    if people:
        text += ("" if zh else " ") + _compose_general(people, lang)
    return text


def _user_predicate(fact: FactRecord) -> str:
    """The fact without its subject when the subject is the user; else the whole fact."""
    subject, pred = _split_subject(fact.content, fact.lang)
    if subject in ("该用户", "The user") and pred:
        return pred
    return fact.content.strip().rstrip(_TRAIL)


def _en_join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _later(a: FactRecord, b: FactRecord) -> bool:
    return (a.time_end, a.fact_id) > (b.time_end, b.fact_id)


def _intent_object(pred: str, lang: Lang) -> str | None:
    m = (_ZH_INTENT if lang == "zh" else _EN_INTENT).match(pred)
    return m.group(1).strip() if m else None


def _scene(pred: str, lang: Lang) -> str:
    if lang == "zh":
        m = _ZH_SCENE_PHRASE.match(pred)
        if m:
            return f"主要使用场景是{m.group(1).strip()}"
    return pred


def _is_shopping(facts: Sequence[FactRecord]) -> bool:
    for fact in facts:
        if _intent_object(_user_predicate(fact), fact.lang) is not None:
            return True
    return sum(1 for f in facts if _slot_role(f) is not None) >= 2


def _slot_role(fact: FactRecord) -> str | None:
    if not fact.slot or not fact.value:
        return None
    family = _slot_family(fact.slot)
    if family.startswith("budget") or family == "max_price":
        return "budget" if _money(fact.value) else None
    if family in ("price_range", "price"):
        return "price" if _money(fact.value) else None
    if family == "size" or family.endswith("_size"):
        return "size"
    return None


def _money(value: str) -> tuple[str, str, str] | None:
    """Parse "<=800", "500-800", ">300", "800元" into (form, low, high)."""
    v = _CURRENCY.sub("", value).replace("¥", "").replace("￥", "").strip()
    if m := _RANGE.match(v):
        return "range", m.group(1), m.group(2)
    if m := _UPPER.match(v):
        return "upper", "", m.group(1)
    if m := _LOWER.match(v):
        return "lower", m.group(1), ""
    if m := _NUMBER.match(v):
        return "about", m.group(1), m.group(1)
    return None


def _money_text(parsed: tuple[str, str, str], lang: Lang) -> str:
    form, low, high = parsed
    if lang == "zh":
        return {
            "range": f"{low}-{high} 元",
            "upper": f"{high} 元以内",
            "lower": f"{low} 元以上",
            "about": f"{low} 元左右",
        }[form]
    return {
        "range": f"{low}-{high}",
        "upper": f"under {high}",
        "lower": f"over {low}",
        "about": f"about {low}",
    }[form]


def _slot_phrases(slots: Mapping[str, FactRecord], lang: Lang) -> list[str]:
    """Budget (with the browsed price range in brackets), then size; "大概率" when implicit."""
    zh = lang == "zh"
    phrases: list[str] = []
    price = slots.get("price")
    price_money = _money_text(_money(price.value or "") or ("about", "", ""), lang) if price else ""
    if "budget" in slots:
        fact = slots["budget"]
        parsed = _money(fact.value or "") or ("about", "", "")
        money = _money_text(parsed, lang)
        bound = parsed[0] in ("upper", "lower")
        if zh:
            text = f"预算{'' if fact.explicit else '大概率'}{'在' if bound else '为'} {money}"
        else:
            hedge = "" if fact.explicit else "most likely "
            text = f"{hedge}has a budget {'' if bound else 'of '}{money}"
        if price is not None:
            if zh:
                text += f"（{'价格区间' if price.explicit else '常看'} {price_money}）"
            else:
                text += f" ({'price range' if price.explicit else 'often browsing'} {price_money})"
        phrases.append(text)
    elif price is not None:
        if zh:
            phrases.append(f"{'价格区间为' if price.explicit else '常看'} {price_money}")
        else:
            verb = "is looking at" if price.explicit else "often browses"
            phrases.append(f"{verb} {price_money}")
    if "size" in slots:
        fact = slots["size"]
        key = "size" if fact.explicit else "size_implicit"
        value = fact.value or ""
        phrases.append(_wording(key, lang, value=value) or f"size {value}")
    return phrases


def _wording(key: str, lang: Lang, **values: str) -> str:
    """A pack wording template with its {placeholders} filled ("" when no pack has it)."""
    text = current_pack().words(key, lang)
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text
