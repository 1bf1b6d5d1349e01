"""A small, editable topic taxonomy and its alias matcher.

Each entry has a canonical English name, strong ``aliases`` (one hit is enough to file a
fact under the entry) and weak ``cues`` (they only count when the surrounding facts already
point at the entry). Chinese terms match as substrings, Latin terms on word boundaries with
an optional plural ending. Longer terms are matched first and consume their span, so
"跑步鞋" wins over "跑步" and "running shoes" over "running".

A deployment can replace the default with ``load_taxonomy(path)`` (JSON, same shape as
``taxonomy_to_dict``).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from extract import rx

STRONG = 1.0
CUE = 0.4

_CJK = rx.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_SEP = rx.compile(r"[\s\-_/]+")


@dataclass(frozen=True)
class TaxonomyEntry:
    name: str
    aliases: tuple[str, ...]
    cues: tuple[str, ...] = ()


@dataclass(frozen=True)
class Taxonomy:
    entries: tuple[TaxonomyEntry, ...]

    def get(self, name: str) -> TaxonomyEntry | None:
        key = normalize_name(name)
        for entry in self.entries:
            if normalize_name(entry.name) == key:
                return entry
        return None

    def extended(self, extra: Sequence[tuple[str, Sequence[str]]]) -> Taxonomy:
        """Add (name, aliases) pairs: known names gain aliases, others become entries."""
        entries = list(self.entries)
        index = {normalize_name(e.name): i for i, e in enumerate(entries)}
        for name, aliases in extra:
            key = normalize_name(name)
            if not key:
                continue
            if key in index:
                old = entries[index[key]]
                merged = _dedupe((*old.aliases, *aliases))
                entries[index[key]] = TaxonomyEntry(old.name, merged, old.cues)
            else:
                index[key] = len(entries)
                entries.append(TaxonomyEntry(key, _dedupe((key, *aliases))))
        return Taxonomy(tuple(entries))


def normalize_name(name: str) -> str:
    """Topic names: NFKC, lower case, single spaces."""
    return " ".join(unicodedata.normalize("NFKC", name).lower().split())


def normalize_text(text: str) -> str:
    """Text as the matcher sees it: NFKC, lower case, separators folded to one space."""
    return _SEP.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()


def match_scores(text: str, taxonomy: Taxonomy) -> dict[str, float]:
    """Score every entry hit by ``text``: STRONG per alias, CUE per cue, each counted once.

    A term shared by several entries credits all of them; a longer term hides the shorter
    terms inside its span.
    """
    hay = normalize_text(text)
    taken = [False] * len(hay)
    scores: dict[str, float] = {}
    for pattern, owners in _compiled(taxonomy):
        spans = [
            m.span()
            for m in pattern.finditer(hay)
            if m.end() > m.start() and not any(taken[m.start() : m.end()])
        ]
        if not spans:
            continue
        for start, end in spans:
            taken[start:end] = [True] * (end - start)
        for name, weight in owners:
            scores[name] = scores.get(name, 0.0) + weight
    return scores


@lru_cache(maxsize=16)
def _compiled(
    taxonomy: Taxonomy,
) -> tuple[tuple[rx.Pattern, tuple[tuple[str, float], ...]], ...]:
    """Distinct terms, longest first, each with the entries (and weights) that use it."""
    owners: dict[str, dict[str, float]] = {}
    for entry in taxonomy.entries:
        for terms, weight in ((entry.aliases, STRONG), (entry.cues, CUE)):
            for term in terms:
                norm = normalize_text(term)
                if norm:
                    slot = owners.setdefault(norm, {})
                    slot[entry.name] = max(slot.get(entry.name, 0.0), weight)
    ordered = sorted(owners, key=lambda t: (-len(t), t))
    return tuple((_term_pattern(t), tuple(owners[t].items())) for t in ordered)


def _term_pattern(term: str) -> rx.Pattern:
    norm = normalize_text(term)
    if _CJK.search(norm):
        return rx.compile(rx.escape(norm).replace(r"\ ", r"\s*"))
    words = norm.split(" ")
    body = r"\s+".join(rx.escape(w) for w in words)
    # plural always; -ed/-ing only for longer words ("painted", not "car" → "cared")
    ending = r"(?:s|es|ed|ing)?" if len(words[-1]) >= 4 else r"(?:s|es)?"
    # not inside a longer Latin word or number (the text has no "_" or capitals)
    return rx.compile(f"{rx.edge(norm[:1])}{body}{ending}{rx.edge(norm[-1:])}")


def _dedupe(items: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        if item and item not in seen:
            seen[item] = None
    return tuple(seen)


def taxonomy_from_dict(data: Mapping[str, Any]) -> Taxonomy:
    """Build a Taxonomy from ``{"topics": [{"name", "aliases", "cues"}]}``."""
    topics = data.get("topics")
    if not isinstance(topics, list):
        raise ValueError("taxonomy needs a 'topics' list")
    entries: list[TaxonomyEntry] = []
    for item in topics:
        name = normalize_name(str(item.get("name", "")))
        if not name:
            raise ValueError("taxonomy topic without a name")
        aliases = tuple(str(a) for a in item.get("aliases", ()))
        cues = tuple(str(c) for c in item.get("cues", ()))
        entries.append(TaxonomyEntry(name, _dedupe((name, *aliases)), _dedupe(cues)))
    return Taxonomy(tuple(entries))


def taxonomy_to_dict(taxonomy: Taxonomy) -> dict[str, Any]:
    return {
        "topics": [
            {"name": e.name, "aliases": list(e.aliases), "cues": list(e.cues)}
            for e in taxonomy.entries
        ]
    }


def load_taxonomy(path: str | Path) -> Taxonomy:
    with Path(path).open(encoding="utf-8") as fh:
        return taxonomy_from_dict(json.load(fh))


# fmt: off
# Order matters only for ties: earlier (more specific) entries win.
_DEFAULT: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "running shoes",
        (
            "running shoe", "jogging shoe", "running sneaker", "trail shoe", "racing shoe",
            "sneaker", "trainer shoe", "carbon plate", "cushioning", "cushioned", "midsole",
            "跑鞋", "慢跑鞋", "跑步鞋", "运动鞋", "竞速鞋", "训练鞋", "缓震", "碳板", "中底",
            "回弹", "鞋底",
        ),
        (
            "running", "jogging", "run", "shoe", "跑步", "慢跑", "鞋", "鞋码", "脚感", "配速",
        ),
    ),
    (
        "meetings & scheduling",
        (
            "meeting", "schedule", "scheduling", "calendar", "standup", "stand up", "time slot",
            "reschedule",
            "团队默认", "会议", "开会", "例会", "日程", "日历", "排期", "约时间", "会面",
        ),
        (
            "appointment", "time zone", "timezone", "weekday", "时区", "周五", "周一", "工作日",
        ),
    ),
    (
        "travel",
        (
            "trip", "travel", "traveling", "travelling", "flight", "hotel", "visa", "vacation",
            "holiday", "itinerary", "passport", "camping", "road trip", "airport",
            "旅行", "旅游", "出差", "机票", "航班", "酒店", "签证", "行程", "度假", "自驾", "露营",
            "护照", "机场",
        ),
        (
            "luggage", "abroad", "行李", "出国",
        ),
    ),
    (
        "food & diet",
        (
            "food", "diet", "vegetarian", "vegan", "restaurant", "cuisine", "cooking", "recipe",
            "coffee", "meal", "dinner", "lunch", "breakfast", "snack", "bakery", "baking",
            "饮食", "素食", "忌口", "餐厅", "菜", "咖啡", "口味", "早餐", "午餐", "晚餐", "零食",
            "做饭", "食谱",
        ),
        (
            "tea", "spicy", "cook", "eat", "吃", "辣", "茶",
        ),
    ),
    (
        "work & career",
        (
            "job", "career", "colleague", "coworker", "boss", "interview", "promotion", "office",
            "employer", "resume",
            "工作", "职位", "同事", "老板", "面试", "跳槽", "加班", "升职", "简历", "上班",
        ),
        (
            "work", "company", "project", "公司", "项目",
        ),
    ),
    (
        "family & relationships",
        (
            "family", "parent", "mother", "mom", "father", "dad", "kid", "child", "children",
            "son", "daughter", "wife", "husband", "boyfriend", "girlfriend", "partner", "friend",
            "wedding", "marriage", "married", "adoption", "adopt", "sibling", "sister", "brother",
            "grandma", "grandpa", "cousin", "aunt", "uncle",
            "家人", "父母", "妈妈", "爸爸", "孩子", "儿子", "女儿", "老婆", "老公", "妻子", "丈夫",
            "男朋友", "女朋友", "朋友", "结婚", "婚礼", "领养", "兄弟", "姐妹", "表哥", "表姐",
            "堂哥", "亲戚",
        ),
        (
            "relationship", "感情",
        ),
    ),
    (
        "health & fitness",
        (
            "health", "fitness", "gym", "workout", "exercise", "yoga",
            "marathon", "doctor", "hospital", "medicine", "allergy", "allergic", "sleep",
            "therapy", "mental health", "injury",
            "健康", "健身", "运动", "锻炼", "瑜伽", "减肥", "马拉松", "医生",
            "医院", "过敏", "睡眠", "受伤",
        ),
        (
            # running alone is a cue: "runs in the park" while shopping is about the shoes
            "weight", "体重", "药", "running", "jogging", "run", "跑步", "慢跑",
        ),
    ),
    (
        "hobbies & interests",
        (
            "hobby", "hobbies", "music", "movie", "film", "reading", "novel", "gaming",
            "video game", "painting", "paint", "photography", "fishing", "hiking", "hike",
            "guitar", "piano", "concert", "pottery", "dancing", "drawing", "climbing",
            "爱好", "兴趣", "音乐", "电影", "读书", "阅读", "小说", "游戏", "画画", "绘画", "摄影",
            "钓鱼", "徒步", "吉他", "钢琴", "演唱会", "陶艺", "跳舞", "爬山", "登山",
        ),
        (
            "book", "art", "game", "dance", "song", "书", "歌",
        ),
    ),
    (
        "home & location",
        (
            "apartment", "house", "neighborhood", "neighbourhood", "address", "moving house",
            "moved to", "lives in", "live in", "hometown",
            "住在", "搬家", "房子", "公寓", "租房", "地址", "小区", "家乡", "老家",
        ),
        (
            "home", "city", "rent", "城市", "家里",
        ),
    ),
    (
        "finance",
        (
            "finance", "invest", "investment", "stock", "savings", "loan", "mortgage",
            "credit card", "salary", "income", "insurance", "tax", "bank account",
            "理财", "投资", "股票", "基金", "存款", "贷款", "房贷", "信用卡", "工资", "收入",
            "保险", "报税",
        ),
        (
            "bank", "money", "bill", "银行", "账单",
        ),
    ),
    (
        "education",
        (
            "school", "university", "college", "course", "exam", "degree", "teacher", "student",
            "homework", "studying", "class",
            "学校", "大学", "课程", "考试", "专业", "学位", "留学", "老师", "作业", "学生", "上课",
        ),
        (
            "study", "learn", "learning", "学习",
        ),
    ),
    (
        "pets",
        (
            "pet", "cat", "dog", "puppy", "kitten", "vet",
            "宠物", "猫", "狗", "猫粮", "狗粮", "遛狗",
        ),
        (),
    ),
    (
        "identity",
        (
            "identity", "nationality", "gender", "pronoun", "birthday", "lgbtq", "transgender",
            "native language", "my name",
            "名字", "名叫", "叫做", "年龄", "生日", "国籍", "性别", "母语", "身份",
        ),
        (
            "age", "born", "岁",
        ),
    ),
    (
        "clothing & fashion",
        (
            "clothes", "clothing", "jacket", "dress", "shirt", "pants", "jeans", "coat", "outfit",
            "fashion",
            "衣服", "外套", "裤子", "裙子", "衬衫", "牛仔裤", "穿搭",
        ),
        (
            "style", "wear", "穿",
        ),
    ),
    (
        "electronics",
        (
            "phone", "smartphone", "laptop", "computer", "headphone", "earbud", "tablet",
            "smartwatch",
            "手机", "电脑", "笔记本电脑", "耳机", "平板", "手表",
        ),
        (
            "camera", "相机",
        ),
    ),
    (
        "cars & transport",
        (
            "car", "driving", "driver license", "commute", "subway", "bus", "bike", "bicycle",
            "汽车", "开车", "驾照", "通勤", "地铁", "公交", "自行车",
        ),
        (
            "drive", "车",
        ),
    ),
)
# fmt: on

DEFAULT_TAXONOMY = Taxonomy(
    tuple(TaxonomyEntry(name, _dedupe((name, *aliases)), cues) for name, aliases, cues in _DEFAULT)
)
