"""Synthetic traffic: many users chatting in Chinese or English, behaviour events, corrections.

Deterministic for a seed. Each user has a language, a home city, a job and 2-3 shopping or
hobby domains; each session is a short chat about one domain (needs, preferences, budget,
now and then a correction of an earlier budget or preference, assistant replies) followed
by the behaviour events of browsing it (search, filter, view, click, favourite, dwell, skip).

`traffic(n, users)` returns n message dicts in the shape of `Memory.add_messages`,
session-by-session in time order (users interleaved), and `queries(users)` recall queries.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

START = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)

# domain: (zh name, en name, zh attributes, en attributes, zh items, en items, price range)
DOMAINS: dict[str, tuple[str, str, list[str], list[str], list[str], list[str], tuple[int, int]]] = {
    "running": (
        "跑鞋",
        "running shoes",
        ["缓震", "轻量", "宽楦", "防滑", "透气"],
        ["cushioned", "lightweight", "wide-fit", "grippy", "breathable"],
        ["慢跑鞋", "越野跑鞋", "竞速鞋"],
        ["jogging shoe", "trail shoe", "racing flat"],
        (300, 1500),
    ),
    "coffee": (
        "咖啡",
        "coffee",
        ["浅烘", "深烘", "低酸", "单品", "手冲"],
        ["light roast", "dark roast", "low acidity", "single origin", "pour-over"],
        ["咖啡豆", "手冲壶", "磨豆机"],
        ["coffee beans", "gooseneck kettle", "grinder"],
        (50, 900),
    ),
    "laptop": (
        "笔记本电脑",
        "laptop",
        ["轻薄", "长续航", "大内存", "静音", "高分屏"],
        ["thin", "long battery life", "32GB RAM", "quiet", "high-res screen"],
        ["轻薄本", "游戏本", "工作站"],
        ["ultrabook", "gaming laptop", "workstation"],
        (3000, 15000),
    ),
    "travel": (
        "旅行",
        "travel",
        ["海边", "亲子", "自由行", "安静", "美食"],
        ["beach", "family-friendly", "self-guided", "quiet", "food"],
        ["酒店", "机票", "民宿"],
        ["hotel", "flight", "guesthouse"],
        (800, 9000),
    ),
    "cooking": (
        "厨具",
        "cookware",
        ["不粘", "铸铁", "易清洗", "小容量", "电磁炉可用"],
        ["non-stick", "cast iron", "easy to clean", "small", "induction-ready"],
        ["炒锅", "汤锅", "刀具"],
        ["wok", "stock pot", "chef knife"],
        (100, 2000),
    ),
    "books": (
        "书",
        "books",
        ["科幻", "历史", "推理", "纸质版", "简体中文"],
        ["science fiction", "history", "mystery", "paperback", "audiobook"],
        ["小说", "传记", "绘本"],
        ["novel", "biography", "picture book"],
        (20, 300),
    ),
    "skincare": (
        "护肤品",
        "skincare",
        ["无香", "保湿", "敏感肌", "防晒", "温和"],
        ["fragrance-free", "moisturising", "for sensitive skin", "SPF 50", "gentle"],
        ["面霜", "防晒霜", "洁面"],
        ["face cream", "sunscreen", "cleanser"],
        (60, 1200),
    ),
}
CITIES_ZH = ["上海", "北京", "杭州", "成都", "深圳", "广州", "南京", "武汉"]
CITIES_EN = ["London", "Boston", "Toronto", "Sydney", "Berlin", "Seattle", "Dublin", "Austin"]
JOBS_ZH = ["护士", "程序员", "老师", "设计师", "会计", "医生", "学生", "厨师"]
JOBS_EN = [
    "nurse",
    "software engineer",
    "teacher",
    "designer",
    "accountant",
    "doctor",
    "student",
    "chef",
]


@dataclass
class User:
    user_id: str
    lang: str
    city: str
    job: str
    domains: list[str]
    budget: dict[str, int]


def make_users(n: int, seed: int = 7, zh_share: float = 0.5) -> list[User]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        lang = "zh" if rnd.random() < zh_share else "en"
        doms = rnd.sample(sorted(DOMAINS), rnd.randint(2, 3))
        out.append(
            User(
                user_id=f"u{i:05d}",
                lang=lang,
                city=rnd.choice(CITIES_ZH if lang == "zh" else CITIES_EN),
                job=rnd.choice(JOBS_ZH if lang == "zh" else JOBS_EN),
                domains=doms,
                budget={d: _price(rnd, d) for d in doms},
            )
        )
    return out


def _price(rnd: random.Random, d: str) -> int:
    lo, hi = DOMAINS[d][6]
    return int(rnd.randint(lo, hi) // 10 * 10)


def _chat_zh(rnd: random.Random, u: User, d: str, first: bool) -> list[tuple[str, str]]:
    name, _, attrs, _, items, _, _ = DOMAINS[d]
    a, b = rnd.sample(attrs, 2)
    item = rnd.choice(items)
    turns: list[tuple[str, str]] = []
    if first and rnd.random() < 0.6:
        turns.append(("user", f"我是{u.city}的{u.job}，平时比较忙。"))
    turns.append(
        (
            "user",
            rnd.choice(
                [
                    f"想买{item}，最好是{a}的，预算 {u.budget[d]} 以内。",
                    f"最近在看{name}，有没有{a}一点的{item}推荐？",
                    f"帮我找找{a}的{item}，价格别超过 {u.budget[d]} 元。",
                ]
            ),
        )
    )
    turns.append(("assistant", f"好的，我会优先推荐{a}的{item}。还有其他要求吗？"))
    turns.append(
        (
            "user",
            rnd.choice(
                [
                    f"我比较喜欢{b}的，不要太花哨。",
                    f"{b}很重要，我不喜欢太重的。",
                    f"最好{b}，颜色浅一点。",
                ]
            ),
        )
    )
    if rnd.random() < 0.25:  # a correction of the budget or a preference
        new = _price(rnd, d)
        turns.append(
            (
                "user",
                rnd.choice(
                    [
                        f"更正一下，预算改成 {new} 元。",
                        f"其实我预算是 {new}，刚才说错了。",
                        f"算了，不要{b}的了，还是{a}更重要。",
                    ]
                ),
            )
        )
        u.budget[d] = new
    if rnd.random() < 0.5:
        turns.append(
            (
                "user",
                rnd.choice(
                    [
                        f"上次买的{item}不太合适，这次想换一个。",
                        f"我一般周末才有时间用{name}。",
                        f"下个月要去{rnd.choice(CITIES_ZH)}出差，想提前买好。",
                    ]
                ),
            )
        )
    return turns


def _chat_en(rnd: random.Random, u: User, d: str, first: bool) -> list[tuple[str, str]]:
    _, name, _, attrs, _, items, _ = DOMAINS[d]
    a, b = rnd.sample(attrs, 2)
    item = rnd.choice(items)
    turns: list[tuple[str, str]] = []
    if first and rnd.random() < 0.6:
        turns.append(("user", f"I'm a {u.job} living in {u.city}, so my time is limited."))
    turns.append(
        (
            "user",
            rnd.choice(
                [
                    f"I want to buy a {a} {item}, budget under {u.budget[d]}.",
                    f"I've been looking at {name}; can you recommend a {a} {item}?",
                    f"Find me a {a} {item} for no more than {u.budget[d]} dollars.",
                ]
            ),
        )
    )
    turns.append(("assistant", f"Sure, I'll focus on {a} options. Anything else that matters?"))
    turns.append(
        (
            "user",
            rnd.choice(
                [
                    f"I prefer something {b}, nothing too flashy.",
                    f"{b.capitalize()} matters a lot to me.",
                    f"Ideally {b}, and I don't like heavy ones.",
                ]
            ),
        )
    )
    if rnd.random() < 0.25:
        new = _price(rnd, d)
        turns.append(
            (
                "user",
                rnd.choice(
                    [
                        f"Correction: my budget is {new} now.",
                        f"Actually, my budget is {new}, not what I said.",
                        f"Forget {b}; {a} is what really matters.",
                    ]
                ),
            )
        )
        u.budget[d] = new
    if rnd.random() < 0.5:
        turns.append(
            (
                "user",
                rnd.choice(
                    [
                        f"The last {item} I bought didn't fit well, so I want a different one.",
                        f"I usually only have time for {name} at weekends.",
                        f"I'm travelling to {rnd.choice(CITIES_EN)} next month "
                        "and want it before then.",
                    ]
                ),
            )
        )
    return turns


def _events(rnd: random.Random, u: User, d: str) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(eventType, page, content, metadata) of browsing one domain."""
    zh = u.lang == "zh"
    name_zh, name_en, attrs_zh, attrs_en, items_zh, items_en, _ = DOMAINS[d]
    name, attrs, items = (name_zh, attrs_zh, items_zh) if zh else (name_en, attrs_en, items_en)
    a = rnd.choice(attrs)
    count = rnd.randint(3, 12)
    lo, hi = sorted((_price(rnd, d), u.budget[d]))
    out: list[tuple[str, str, str, dict[str, Any]]] = [
        (
            "search",
            "search",
            (f"搜索：{a}{name}" if zh else f"search: {a} {name}"),
            {"query": f"{a} {name}"},
        ),
        (
            "filter",
            "search",
            (f"筛选：品类 = {name}" if zh else f"filter: category = {name}"),
            {"field": "品类" if zh else "category", "value": name},
        ),
        (
            "filter",
            "search",
            (f"筛选：价格 = {lo}-{hi}" if zh else f"filter: price = {lo}-{hi}"),
            {"field": "价格" if zh else "price", "value": f"{lo}-{hi}"},
        ),
        (
            "view",
            "product-list",
            (f"浏览：{count} 款{a}{name}" if zh else f"view: {count} {a} {name}"),
            {"count": count, "attributes": [a], "category": name},
        ),
    ]
    item = f"{rnd.choice(items)} {rnd.choice('ABCDEFG')}{rnd.randint(1, 99)}"
    if rnd.random() < 0.7:
        out.append(
            (
                "click",
                "product-list",
                (f"点击：{item}" if zh else f"click: {item}"),
                {"item": item, "attributes": [a]},
            )
        )
    if rnd.random() < 0.5:
        out.append(
            (
                "favorite",
                "product-detail",
                (f"收藏：{item}" if zh else f"favorite: {item}"),
                {"item": item, "attributes": [a]},
            )
        )
    if rnd.random() < 0.4:
        out.append(
            (
                "dwell",
                "product-detail",
                (f"停留：包含“{a}”的评价" if zh else f"dwell: reviews mentioning “{a}”"),
                {"target": "reviews", "attributes": [a], "seconds": rnd.randint(10, 120)},
            )
        )
    if rnd.random() < 0.4:
        other = rnd.choice([x for x in attrs if x != a])
        out.append(
            (
                "skip",
                "product-list",
                (f"跳过：{other}{name}" if zh else f"skip: {other} {name}"),
                {"item": f"{other} {name}", "attributes": [other]},
            )
        )
    return out


def chat_message(sid: str, k: int, user: str, role: str, text: str, t: datetime) -> dict[str, Any]:
    """The k-th message of session `sid`, a chat turn in the wire format."""
    return {
        "id": f"{sid}-m{k}",
        "userId": user,
        "sessionId": sid,
        "role": role,
        "content": text,
        "timestamp": t.isoformat(),
        "eventType": "message",
        "page": "chat",
        "metadata": {},
    }


def sessions(u: User, rnd: random.Random, day: int, first: bool) -> list[dict[str, Any]]:
    """One session of a user on a day: chat then browsing, a minute or so apart."""
    d = rnd.choice(u.domains)
    sid = f"{u.user_id}-s{day}"
    t = START + timedelta(days=day, hours=rnd.randint(0, 12), minutes=rnd.randint(0, 59))
    chat = (_chat_zh if u.lang == "zh" else _chat_en)(rnd, u, d, first)
    out: list[dict[str, Any]] = []
    for role, text in chat:
        out.append(chat_message(sid, len(out), u.user_id, role, text, t))
        t += timedelta(seconds=rnd.randint(20, 90))
    for etype, page, text, meta in _events(rnd, u, d):
        out.append(
            {
                "id": f"{sid}-e{len(out)}",
                "userId": u.user_id,
                "sessionId": sid,
                "role": "event",
                "content": text,
                "timestamp": t.isoformat(),
                "eventType": etype,
                "page": page,
                "metadata": meta,
            }
        )
        t += timedelta(seconds=rnd.randint(5, 60))
    return out


def stream(users: list[User], seed: int = 11) -> Iterator[dict[str, Any]]:
    """Endless traffic: day after day, each user (in a shuffled order) has one session."""
    rnd = random.Random(seed)
    day = 0
    while True:
        order = list(users)
        rnd.shuffle(order)
        for u in order:
            yield from sessions(u, rnd, day, first=day == 0)
        day += 1


def traffic(n: int, n_users: int, seed: int = 7) -> tuple[list[User], list[dict[str, Any]]]:
    users = make_users(n_users, seed)
    out: list[dict[str, Any]] = []
    for m in stream(users, seed + 4):
        out.append(m)
        if len(out) >= n:
            break
    return users, out


def sparse(n: int, per_user: int = 2, seed: int = 7) -> tuple[list[User], list[dict[str, Any]]]:
    """n messages from many users, each sending 1 to `per_user` of them (the start of a
    first session): what a service with many users mostly receives at a time."""
    users = make_users(n, seed)
    rnd = random.Random(seed + 4)
    out: list[dict[str, Any]] = []
    used: list[User] = []
    for u in users:
        if len(out) >= n:
            break
        used.append(u)
        out += sessions(u, rnd, 0, first=True)[: min(rnd.randint(1, per_user), n - len(out))]
    return used, out


def batches(msgs: list[dict[str, Any]], size: int = 1000) -> list[list[dict[str, Any]]]:
    return [msgs[i : i + size] for i in range(0, len(msgs), size)]


def queries(users: list[User], per_user: int = 1, seed: int = 5) -> list[tuple[str, str]]:
    """(user_id, query) pairs in each user's language about one of their domains."""
    rnd = random.Random(seed)
    out = []
    for u in users:
        for _ in range(per_user):
            d = rnd.choice(u.domains)
            zh_name, en_name = DOMAINS[d][0], DOMAINS[d][1]
            q = rnd.choice(
                [
                    f"给我推荐{zh_name}",
                    f"我买{zh_name}的预算是多少？",
                    f"我对{zh_name}有什么偏好？",
                    "我在哪个城市工作？",
                ]
                if u.lang == "zh"
                else [
                    f"recommend {en_name} for me",
                    f"what is my budget for {en_name}?",
                    f"what do I prefer in {en_name}?",
                    "where do I live?",
                ]
            )
            out.append((u.user_id, q))
    return out
