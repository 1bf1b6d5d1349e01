"""A long-lived user's stream: the same recurring goals, with new content in every message.

Deterministic for a seed. One user keeps coming back to eight goals (marathon training,
Japanese, saving for a flat, a kitchen renovation, a diet, a reading list, a job search, a
vegetable garden) in Chinese or English (about half each; some sessions switch language from
message to message). A session is a few turns on one or two goals, several sessions a day,
day after day. Every user message says something new about its goal (numbers, dates, places,
items and people drawn from large pools), now and then states a goal's value (target time,
budget, salary, ...) and about one message in twelve corrects a value said before ("actually
my budget is X, not Y" / "不对，预算改成X了，不是Y"). Some assistant replies, as in synth.

`goal_stream(n, seed, user)` returns n message dicts in the shape of `Memory.add_messages`
(the shape bench/synth.py produces); `labelled_stream` the same with each message's goal and
kind (update, state, correction, reply), for tests.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.synth import chat_message

START = datetime(2026, 9, 1, 7, 30, tzinfo=UTC)
P_CORRECTION = 0.1  # of user turns on a goal with a value said before (≈ 1 message in 12)
P_STATE = 0.22  # of user turns: state a value of the goal (a target, a budget, ...)
P_REPLY = 0.2  # an assistant reply after a user turn
P_TWO_GOALS = 0.3  # sessions on two goals rather than one
P_MIXED = 0.16  # sessions whose language changes from message to message


@dataclass(slots=True)
class Ctx:
    """What a field is drawn with: the random source, the language, the session's time."""

    rnd: random.Random
    zh: bool
    now: datetime


Field = Callable[[Ctx], str]


@dataclass(frozen=True, slots=True)
class Slot:
    """A value of a goal the user states and corrects (raw value rendered with a unit)."""

    label_zh: str
    label_en: str
    draw: Callable[[random.Random], int | float | str]
    unit_zh: str = "{}"
    unit_en: str = "{}"

    def render(self, value: int | float | str, zh: bool) -> str:
        return (self.unit_zh if zh else self.unit_en).format(value)


@dataclass(frozen=True, slots=True)
class Goal:
    name_zh: str
    name_en: str
    slots: dict[str, Slot]
    templates: list[tuple[str, str]]  # (zh, en); a template naming a slot states it


# -- pools ------------------------------------------------------------------------------------


def _w(text: str) -> list[str]:
    """A pool written as one "|"-separated string."""
    return text.split("|")


def _pair(zh: str, en: str) -> tuple[list[str], list[str]]:
    return _w(zh), _w(en)


EN_FIRST = _w(
    "Alice|Ben|Chloe|Dan|Emma|Finn|Grace|Harry|Isla|Jack|Kate|Liam|Maya|Noah|Olivia|Owen|Priya|"
    "Quinn|Rosa|Sam|Tara|Umar|Vera|Will|Xena|Yusuf|Zoe|Amir|Bella|Carlos|Dina|Eli|Fatima|George|"
    "Hana|Ivan|Jonas|Leah|Marco|Nina|Oscar|Paula|Rafael|Sofia|Theo|Uma|Victor|Wendy|Yara|Zack"
)
EN_LAST = _w(
    "Adams|Baker|Clarke|Davies|Evans|Fischer|Garcia|Hughes|Ito|Jensen|Khan|Lopez|Morgan|Novak|"
    "Okafor|Patel|Quigley|Reyes|Silva|Turner|Ueda|Varga|Walsh|Young|Zhou|Bauer|Costa|Dubois|"
    "Eriksen|Fraser|Grant|Hayes|Ibrahim|Jones|Kowalski|Lang|Murphy|Nakamura|Olsen|Price|Rossi|"
    "Schmidt|Tanaka|Vogel|Wright|Yilmaz|Ahmed|Brennan|Castro|Doyle"
)
ZH_SURNAMES = list(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程"
)
ZH_GIVEN = list(
    "伟芳娜敏静丽强磊军洋勇艳杰涛明超秀霞平刚桂英华玉兰萍红鹏辉晨宇欣怡浩然婷雪琳子涵佳俊峰"
)
PLACES = _pair(
    "西湖|滨江步道|奥森公园|世纪公园|徐汇滨江|望京|五道口|陆家嘴|静安寺|南山|天府广场|春熙路|玄武湖|"
    "中山公园|东湖绿道|西溪湿地|朝阳公园|后海|大学城|前滩|张江|莲花山|珠江新城|新街口|光谷|太古里|"
    "鼓楼|植物园|体育中心|市图书馆",
    "Victoria Park|the canal towpath|Riverside Walk|Greenwich|Hampstead Heath|the harbour front|"
    "Olympic Park|Battersea|the old rail trail|Clapham Common|the university track|Richmond Park|"
    "Kings Cross|Shoreditch|the botanical garden|Canary Wharf|Brixton|the lakeside loop|"
    "Camden Market|Wimbledon|the city library|Soho|Notting Hill|Islington|Peckham|Hackney Wick|"
    "the Thames path|Regent's Park|Bermondsey|Stratford",
)
SHOPS = _pair(
    "宜家|百安居|红星美凯龙|京东|淘宝|拼多多|居然之家|建材市场|花鸟市场|迪卡侬|楼下五金店|盒马|山姆|"
    "小区门口的店|天猫",
    "IKEA|B&Q|Homebase|Wickes|Screwfix|the corner hardware shop|Argos|Dunelm|Topps Tiles|"
    "the garden centre on Mill Lane|Amazon|the weekend market|Decathlon|John Lewis|"
    "a shop on Station Road",
)
EN_MONTHS = _w(
    "January|February|March|April|May|June|July|August|September|October|November|December"
)
EN_DAYS = _w("Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday")
ZH_DAYS = "一二三四五六日"

# goal-specific (zh, en) pools
SHOES = _pair(
    "亚瑟士Novablast|耐克Pegasus|索康尼Ride|HOKA Clifton|李宁赤兔|特步160X",
    "Asics Novablast|Nike Pegasus|Saucony Ride|Hoka Clifton|Brooks Ghost|On Cloud",
)
RACES = _pair(
    "上海马拉松|北京马拉松|杭州马拉松|厦门马拉松|成都马拉松|无锡马拉松|广州马拉松",
    "London Marathon|Berlin Marathon|Valencia Marathon|Manchester Marathon|Chicago Marathon|"
    "Amsterdam Marathon|Brighton Marathon",
)
WORKOUTS = _pair(
    "间歇跑|节奏跑|坡道训练|恢复跑|法特莱克|力量训练",
    "intervals|a tempo run|hill repeats|a recovery run|fartlek|strength work",
)
GRAMMAR = _pair(
    "〜ておく|〜ばかり|〜わけにはいかない|〜ようにする|〜ことにする|敬语|〜てしまう|〜はずだ|〜らしい|"
    "〜ながら|〜ために|〜ば〜ほど|使役被动|〜ものの",
    "te-oku|bakari|wake ni wa ikanai|you ni suru|koto ni suru|keigo|te-shimau|hazu da|rashii|"
    "nagara|tame ni|ba...hodo|the causative-passive|mono no",
)
JP_BOOKS = _pair(
    "挪威的森林|心|火花|便利店人间|厨房|雪国|罗生门|我是猫|白夜行|解忧杂货店",
    "Norwegian Wood|Kokoro|Spark|Convenience Store Woman|Kitchen|Snow Country|Rashomon|"
    "I Am a Cat|Byakuyako|The Miracles of the Namiya General Store",
)
BANKS = _pair(
    "招商银行|建设银行|工商银行|中国银行|交通银行|浦发银行|兴业银行",
    "Nationwide|Barclays|HSBC|Santander|Lloyds|NatWest|Halifax",
)
EXPENSES = _pair(
    "看牙|修车|换手机|婚礼份子钱|机票|保险|搬家",
    "dentist|car repair|new phone|wedding gift|flights|insurance|move",
)
RENO_ITEMS = _pair(
    "橱柜|水电改造|吊顶|瓷砖铺贴|台面|防水|拆旧|墙面",
    "cabinets|plumbing|ceiling|tiling|worktop|waterproofing|strip-out|walls",
)
TILES = _pair(
    "哑光白|水磨石|灰色仿古|绿色小方砖|人字拼|大理石纹",
    "matt white|terrazzo|grey rustic|green square|herringbone|marble-look",
)
WALLS = _pair("灶台|水槽|窗户|冰箱|门口", "hob|sink|window|fridge|door")
APPLIANCES = _pair(
    "油烟机|洗碗机|燃气灶|烤箱|净水器|冰箱",
    "extractor hood|dishwasher|gas hob|oven|water filter|fridge",
)
FOODS = _pair(
    "牛肉面|鸡胸沙拉|麻辣烫|寿司|煲仔饭|三明治|火锅|烤鱼|饺子|轻食碗",
    "a chicken salad|ramen|a burrito|sushi|fish and chips|a poke bowl|pad thai|a falafel wrap|"
    "lentil soup|a steak",
)
ADJ = _pair(
    "沉默|遥远|失落|燃烧|透明|漫长|隐秘|蓝色|最后|破碎|寂静|午夜",
    "Silent|Distant|Lost|Burning|Glass|Long|Hidden|Blue|Last|Broken|Quiet|Midnight",
)
NOUN = _pair(
    "河流|花园|城市|信件|群岛|钟声|夏天|房间|海岸|星图|灯塔|旅人",
    "River|Garden|City|Letters|Islands|Bells|Summer|Room|Coast|Atlas|Lighthouse|Traveller",
)
LIBRARIES = _pair(
    "市图书馆|区图书馆|大学图书馆|社区书屋|公司书架",
    "the city library|the local library|the university library|the office shelf",
)
CO_A = _pair(
    "云|星|海|智|鼎|华|启|极|蓝|微",
    "Northwind|Bluepeak|Ironleaf|Brightwave|Cedar|Quantum|Harbor|Redkite|Lumen|Vertex",
)
CO_B = _pair(
    "科技|数据|医疗|智能|金融|物流|教育|游戏",
    "Analytics|Robotics|Health|Labs|Finance|Logistics|Learning|Games",
)
ROLES = _pair(
    "数据分析师|产品经理|后端工程师|数据科学家|项目经理|算法工程师",
    "data analyst|product manager|backend engineer|data scientist|project manager|ML engineer",
)
TOPICS = _pair(
    "SQL窗口函数|系统设计|A/B测试|职业规划|项目复盘|薪资期望|团队冲突",
    "SQL window functions|system design|A/B testing|career plans|a past project|"
    "salary expectations|team conflicts",
)
PLANTS = _pair(
    "番茄|黄瓜|辣椒|生菜|豆角|茄子|草莓|罗勒|南瓜|韭菜",
    "tomatoes|cucumbers|chillies|lettuce|beans|aubergines|strawberries|basil|squash|chives",
)
VARIETIES = _pair(
    "千禧|普罗旺斯|黑珍珠|奶油|线椒|京欧|红颜|圣女|贝贝|紫长",
    "Sungold|Moneymaker|Gardener's Delight|Black Krim|Shirley|Tigerella|Alicante|Marmande|"
    "Cherry Falls|Ailsa Craig",
)
SOILS = _pair(
    "营养土|椰糠|蚯蚓粪|珍珠岩|羊粪肥|泥炭土",
    "compost|coir|worm castings|perlite|manure|peat-free mix",
)
PESTS = _pair(
    "蚜虫|红蜘蛛|白粉病|蜗牛|菜青虫", "aphids|spider mites|powdery mildew|slugs|caterpillars"
)
REMEDIES = _pair(
    "肥皂水|苦楝油|黄板|小苏打水|手抓",
    "soapy water|neem oil|sticky traps|a bicarbonate spray|hand-picking",
)


# -- fields -----------------------------------------------------------------------------------


def _pick(pools: tuple[list[str], list[str]]) -> Field:
    zh_pool, en_pool = pools
    return lambda c: c.rnd.choice(zh_pool if c.zh else en_pool)


def _int(lo: int, hi: int, step: int = 1, comma: bool = False) -> Field:
    def draw(c: Ctx) -> str:
        v = c.rnd.randrange(lo, hi + 1, step)
        return f"{v:,}" if comma and not c.zh else str(v)

    return draw


def _dec(lo: float, hi: float) -> Field:
    return lambda c: f"{c.rnd.uniform(lo, hi):.1f}"


def _name(c: Ctx) -> str:
    r = c.rnd
    if c.zh:
        given = r.choice(ZH_GIVEN) + (r.choice(ZH_GIVEN) if r.random() < 0.6 else "")
        return r.choice(ZH_SURNAMES) + given
    return f"{r.choice(EN_FIRST)} {r.choice(EN_LAST)}"


def _date(c: Ctx) -> str:
    d = c.now + timedelta(days=c.rnd.randint(-20, 60))
    if c.zh:
        return f"{d.month}月{d.day}日（周{ZH_DAYS[d.weekday()]}）"
    return f"{EN_DAYS[d.weekday()]} {d.day} {EN_MONTHS[d.month - 1]}"


def _clock(c: Ctx) -> str:
    return f"{c.rnd.randint(7, 20)}:{c.rnd.choice(('00', '15', '30', '45'))}"


def _pace(c: Ctx) -> str:
    return f"{c.rnd.randint(4, 7)}:{c.rnd.randint(0, 59):02d}"


def _company(c: Ctx) -> str:
    a, b = (CO_A[0], CO_B[0]) if c.zh else (CO_A[1], CO_B[1])
    if c.zh:
        return c.rnd.choice(a) + c.rnd.choice(a) + c.rnd.choice(b)
    return f"{c.rnd.choice(a)} {c.rnd.choice(b)}"


def _book(c: Ctx) -> str:
    r = c.rnd
    if c.zh:
        return f"{r.choice(ADJ[0])}的{r.choice(NOUN[0])}"
    return f"The {r.choice(ADJ[1])} {r.choice(NOUN[1])}"


def _code(c: Ctx) -> str:
    return f"{c.rnd.choice(string.ascii_uppercase)}{c.rnd.randint(100, 999)}"


FIELDS: dict[str, Field] = {
    "name": _name,
    "name2": _name,
    "place": _pick(PLACES),
    "shop": _pick(SHOPS),
    "date": _date,
    "clock": _clock,
    # marathon
    "km": _dec(3.0, 38.0),
    "pace": _pace,
    "hr": _int(118, 186),
    "shoe": _pick(SHOES),
    "size": _dec(36.0, 46.0),
    "price_small": _int(199, 1899),
    "n_days": _int(2, 14),
    "race": _pick(RACES),
    "bib": _int(1000, 39999),
    "workout": _pick(WORKOUTS),
    "reps": _int(3, 16),
    "meters": _int(200, 2000, 100),
    # Japanese
    "n_words": _int(8, 80),
    "vocab": _int(800, 12000),
    "streak": _int(3, 900),
    "grammar": _pick(GRAMMAR),
    "jp_book": _pick(JP_BOOKS),
    "chapter": _int(1, 40),
    "minutes": _int(15, 120, 5),
    "pct": _int(45, 99),
    "n_q": _int(20, 120),
    # flat
    "amount": _int(500, 48000, 10, comma=True),
    "balance": _int(20000, 1900000, 10, comma=True),
    "sqm": _int(38, 160),
    "price_big": _int(1200000, 9800000, 10000, comma=True),
    "bank": _pick(BANKS),
    "rate": lambda c: f"{c.rnd.uniform(2.6, 5.9):.2f}",
    "years": _int(10, 30, 5),
    "expense": _pick(EXPENSES),
    "floor": _int(2, 33),
    # kitchen
    "reno_item": _pick(RENO_ITEMS),
    "qty": _int(6, 140),
    "tile": _pick(TILES),
    "wall": _pick(WALLS),
    "cm": _int(60, 480),
    "cm2": _int(40, 280),
    "appliance": _pick(APPLIANCES),
    "model": _code,
    # diet
    "weight": _dec(55.0, 98.0),
    "bodyfat": _dec(14.0, 36.0),
    "food": _pick(FOODS),
    "kcal": _int(180, 1400, 10),
    "steps": _int(2100, 26000, 10, comma=True),
    "ml": _int(600, 3500, 50),
    "sleep": _dec(4.5, 9.5),
    # reading
    "book": _book,
    "author": _name,
    "pages": _int(90, 980),
    "score": _int(3, 10),
    "library": _pick(LIBRARIES),
    "page": _int(10, 600),
    # job search
    "company": _company,
    "role": _pick(ROLES),
    "round": _int(1, 5),
    "topic": _pick(TOPICS),
    "salary": _int(12000, 95000, 500, comma=True),
    "bonus": _int(1, 6),
    "ref": _code,
    # garden
    "n": _int(2, 40),
    "bed": _int(1, 12),
    "plant": _pick(PLANTS),
    "variety": _pick(VARIETIES),
    "grams": _int(40, 4800, 10),
    "bags": _int(1, 12),
    "soil": _pick(SOILS),
    "pest": _pick(PESTS),
    "remedy": _pick(REMEDIES),
    "amount_small": _int(20, 900),
    "celsius": _int(-3, 38),
}


def _time(lo_min: int, hi_min: int) -> Callable[[random.Random], str]:
    def draw(r: random.Random) -> str:
        m = r.randint(lo_min, hi_min)
        return f"{m // 60}:{m % 60:02d}"

    return draw


def _steps(lo: int, hi: int, step: int = 1) -> Callable[[random.Random], int]:
    return lambda r: r.randrange(lo, hi + 1, step)


def _tenths(lo: float, hi: float) -> Callable[[random.Random], float]:
    return lambda r: round(r.uniform(lo, hi), 1)


YUAN_ZH, YUAN_EN = "{}元", "{:,} yuan"

GOALS: dict[str, Goal] = {
    "marathon": Goal(
        "马拉松训练",
        "marathon training",
        {
            "target_time": Slot("全马目标成绩", "my marathon target time", _time(170, 330)),
            "weekly_km": Slot("每周跑量", "my weekly mileage", _steps(20, 140), "{}公里", "{} km"),
            "long_run": Slot(
                "最长的长距离", "my longest long run", _steps(18, 40), "{}公里", "{} km"
            ),
        },
        [
            (
                "今天早上在{place}跑了{km}公里，配速{pace}，平均心率{hr}。",
                "Ran {km} km at {place} this morning, pace {pace}/km, average heart rate {hr}.",
            ),
            (
                "约了{name}{date}一起跑{km}公里长距离，在{place}集合。",
                "Planned a {km} km long run with {name} on {date}, meeting at {place}.",
            ),
            (
                "新买了一双{shoe}，{size}码，花了{price_small}元，准备{date}第一次穿。",
                "Bought {shoe} shoes, size {size}, for {price_small} yuan; first run {date}.",
            ),
            (
                "跑完{km}公里左小腿有点紧，理疗师{name}让我休息{n_days}天。",
                "My calf felt tight after {km} km; physio {name} told me to rest {n_days} days.",
            ),
            (
                "报名了{date}的{race}，号码布{bib}，{name}也报了。",
                "Signed up for the {race} on {date}, bib {bib}; {name} entered too.",
            ),
            (
                "今天在{place}做了{workout}：{reps}组{meters}米，最后一组配速{pace}。",
                "Did {workout} at {place}: {reps} × {meters} m, last one at {pace}/km.",
            ),
            (
                "全马目标成绩定在{target_time}，{name}说{date}前能达到。",
                "My marathon target time is {target_time}; {name} thinks I can do it by {date}.",
            ),
            (
                "从{date}开始每周跑量提到{weekly_km}，周末在{place}跑长距离，{name}陪跑。",
                "My weekly mileage goes up to {weekly_km} from {date}, long runs at {place} "
                "with {name}.",
            ),
            (
                "计划里最长的长距离是{long_run}，{date}试一次，配速{pace}。",
                "The longest long run in my plan is {long_run}; trying it {date} at {pace}/km.",
            ),
        ],
    ),
    "japanese": Goal(
        "学日语",
        "learning Japanese",
        {
            "daily_minutes": Slot(
                "每天学日语的时间",
                "my daily Japanese study time",
                _steps(15, 180, 5),
                "{}分钟",
                "{} minutes",
            ),
            "tutor_fee": Slot(
                "日语外教课时费",
                "my Japanese tutor's hourly fee",
                _steps(120, 600, 5),
                YUAN_ZH,
                YUAN_EN,
            ),
            "target_score": Slot(
                "日语考试目标分数", "my JLPT target score", _steps(95, 180), "{}分", "{} points"
            ),
        },
        [
            (
                "今天在Anki里背了{n_words}个新单词，总词汇量{vocab}，连续打卡{streak}天。",
                "Learned {n_words} new words in Anki today; {vocab} in all, a {streak}-day streak.",
            ),
            (
                "{date}跟外教{name}上课，练了{grammar}，作业是写{n_words}个例句。",
                "Lesson with tutor {name} on {date}: we practised {grammar}; homework is "
                "{n_words} example sentences.",
            ),
            (
                "读完了《{jp_book}》第{chapter}章，查了{n_words}个生词。",
                "Finished chapter {chapter} of {jp_book} and looked up {n_words} words.",
            ),
            (
                "在{place}的语言交换认识了{name}，约好{date}再练{minutes}分钟会话。",
                "Met {name} at a language exchange at {place}; {minutes} more minutes of "
                "conversation on {date}.",
            ),
            (
                "{date}做了{n_q}道模拟题，正确率{pct}%，{grammar}还是容易错。",
                "Did {n_q} practice questions on {date}, {pct}% right; I still miss {grammar}.",
            ),
            (
                "每天学日语的时间改成{daily_minutes}，从{date}起早上{clock}在{place}的咖啡馆学。",
                "My daily Japanese study time is now {daily_minutes}, from {clock} in a café "
                "at {place} from {date}.",
            ),
            (
                "新外教{name}的课时费是{tutor_fee}，{date}开始上。",
                "My new tutor {name} charges {tutor_fee} an hour; we start {date}.",
            ),
            (
                "日语考试目标分数定在{target_score}，考试在{date}。",
                "My JLPT target score is {target_score}; the exam is on {date}.",
            ),
        ],
    ),
    "flat": Goal(
        "攒钱买房",
        "saving for a flat",
        {
            "down_payment": Slot(
                "首付目标",
                "my down-payment target",
                _steps(300000, 2400000, 10000),
                YUAN_ZH,
                YUAN_EN,
            ),
            "monthly_saving": Slot(
                "每月存款", "my monthly saving", _steps(3000, 30000, 500), YUAN_ZH, YUAN_EN
            ),
            "max_price": Slot(
                "能接受的最高总价",
                "the most I'd pay for a flat",
                _steps(1500000, 9000000, 50000),
                YUAN_ZH,
                YUAN_EN,
            ),
        },
        [
            (
                "{date}往买房账户存了{amount}元，现在余额{balance}元。",
                "Moved {amount} yuan into the flat fund on {date}; the balance is {balance} yuan.",
            ),
            (
                "看了{place}一套{sqm}平的房子，{floor}楼，挂牌{price_big}元，中介是{name}。",
                "Viewed a {sqm} m² flat on floor {floor} near {place}, asking {price_big} yuan; "
                "the agent is {name}.",
            ),
            (
                "{bank}给的房贷利率是{rate}%，{years}年期，经理{name}说{date}前有效。",
                "{bank} quoted {rate}% over {years} years; {name} says it holds until {date}.",
            ),
            (
                "{date}{expense}花了{amount}元，这个月存款要晚一点。",
                "The {expense} on {date} cost {amount} yuan, so saving slips a bit this month.",
            ),
            (
                "首付目标定成{down_payment}，{name}建议{date}前存够一半。",
                "My down-payment target is {down_payment}; {name} suggests half by {date}.",
            ),
            (
                "每月存款提到{monthly_saving}，从{date}开始自动转账。",
                "My monthly saving goes up to {monthly_saving}, by standing order from {date}.",
            ),
            (
                "跟{name}商量过，能接受的最高总价是{max_price}，最好在{place}附近。",
                "Talked it over with {name}: the most I'd pay for a flat is {max_price}, "
                "ideally near {place}.",
            ),
        ],
    ),
    "kitchen": Goal(
        "厨房装修",
        "renovating the kitchen",
        {
            "reno_budget": Slot(
                "厨房装修预算",
                "my kitchen renovation budget",
                _steps(30000, 300000, 1000),
                YUAN_ZH,
                YUAN_EN,
            ),
            "reno_days": Slot(
                "装修工期", "the renovation schedule", _steps(20, 120), "{}天", "{} days"
            ),
            "worktop": Slot("台面长度", "the worktop length", _steps(180, 420), "{}厘米", "{} cm"),
        },
        [
            (
                "师傅{name}报价{amount}元做{reno_item}，{date}能进场。",
                "Contractor {name} quoted {amount} yuan for the {reno_item} and can start {date}.",
            ),
            (
                "在{shop}订了{qty}块{tile}瓷砖，一共{amount}元，{date}送货。",
                "Ordered {qty} {tile} tiles from {shop}, {amount} yuan in total, delivery {date}.",
            ),
            (
                "量了一下，{wall}那面墙宽{cm}厘米、高{cm2}厘米。",
                "Measured the {wall} wall: {cm} cm wide and {cm2} cm high.",
            ),
            (
                "{name}{date}{clock}来装{appliance}，型号{model}。",
                "{name} is fitting the {appliance} (model {model}) on {date} at {clock}.",
            ),
            (
                "厨房装修预算定在{reno_budget}，{reno_item}那块{name}说还能省。",
                "My kitchen renovation budget is {reno_budget}; {name} says we can save on the "
                "{reno_item}.",
            ),
            (
                "装修工期是{reno_days}，{date}开工，{name}负责{reno_item}。",
                "The renovation schedule is {reno_days} from {date}; {name} does the {reno_item}.",
            ),
            (
                "台面长度按{worktop}做，选的是{tile}的颜色，在{shop}下单。",
                "The worktop length is {worktop}, colour to match the {tile} tiles, ordered from "
                "{shop}.",
            ),
        ],
    ),
    "diet": Goal(
        "减脂饮食",
        "my diet",
        {
            "target_weight": Slot(
                "目标体重", "my target weight", _tenths(52.0, 88.0), "{}公斤", "{} kg"
            ),
            "daily_kcal": Slot(
                "每天热量上限",
                "my daily calorie limit",
                _steps(1200, 2600, 10),
                "{}千卡",
                "{} kcal",
            ),
            "protein": Slot(
                "每天蛋白质目标", "my daily protein goal", _steps(60, 200), "{}克", "{} g"
            ),
        },
        [
            (
                "今早体重{weight}公斤，体脂{bodyfat}%，昨晚睡了{sleep}小时。",
                "Weighed {weight} kg this morning, {bodyfat}% body fat, after {sleep} h of sleep.",
            ),
            (
                "{date}午饭在{place}吃了{food}，大概{kcal}千卡。",
                "Had {food} at {place} for lunch on {date}, about {kcal} kcal.",
            ),
            (
                "晚上跟{name}聚餐吃了{food}，多了{kcal}千卡，明天少吃点。",
                "Dinner out with {name}: {food}, an extra {kcal} kcal, so less tomorrow.",
            ),
            (
                "今天走了{steps}步，喝水{ml}毫升。",
                "Walked {steps} steps today and drank {ml} ml of water.",
            ),
            (
                "营养师{name}{date}复诊，这次体重{weight}公斤。",
                "Dietitian {name} sees me again on {date}; I was {weight} kg this time.",
            ),
            (
                "目标体重定在{target_weight}，{date}前达到。",
                "My target weight is {target_weight}, to reach by {date}.",
            ),
            (
                "每天热量上限改成{daily_kcal}，{name}帮我算的。",
                "My daily calorie limit is now {daily_kcal}; {name} worked it out for me.",
            ),
            (
                "每天蛋白质目标是{protein}，在{shop}花{amount_small}元买了蛋白粉，{name}推荐的。",
                "My daily protein goal is {protein}; bought whey at {shop} for {amount_small} "
                "yuan on {name}'s advice.",
            ),
        ],
    ),
    "reading": Goal(
        "读书计划",
        "my reading list",
        {
            "yearly_books": Slot(
                "今年的读书目标",
                "my reading goal for the year",
                _steps(12, 150),
                "{}本",
                "{} books",
            ),
            "daily_pages": Slot(
                "每天读的页数", "my daily page target", _steps(10, 120), "{}页", "{} pages"
            ),
        },
        [
            (
                "读完了{author}的《{book}》，{pages}页，打{score}分。",
                "Finished {book} by {author}, {pages} pages; I'd give it {score}/10.",
            ),
            (
                "{name}推荐了{author}的《{book}》，加进书单了。",
                "{name} recommended {book} by {author}; it's on my list now.",
            ),
            (
                "从{library}借了《{book}》，{date}要还。",
                "Borrowed {book} from {library}, due back {date}.",
            ),
            (
                "读书会{date}在{place}，这次讨论《{book}》第{chapter}章，{name}主持。",
                "Book club meets {date} at {place} on chapter {chapter} of {book}; {name} leads.",
            ),
            (
                "《{book}》读到第{page}页了，{name}说后面更好看。",
                "I'm on page {page} of {book}; {name} says it gets better.",
            ),
            (
                "今年的读书目标改成{yearly_books}，{name}跟我一起打卡。",
                "My reading goal for the year is {yearly_books}; {name} is tracking it with me.",
            ),
            (
                "每天读的页数定成{daily_pages}，{date}前读完{author}的《{book}》。",
                "My daily page target is {daily_pages}, to finish {book} by {author} by {date}.",
            ),
        ],
    ),
    "jobs": Goal(
        "找工作",
        "my job search",
        {
            "target_salary": Slot(
                "期望月薪", "my target monthly salary", _steps(15000, 90000, 500), YUAN_ZH, YUAN_EN
            ),
            "notice": Slot("离职通知期", "my notice period", _steps(14, 90), "{}天", "{} days"),
            "commute": Slot(
                "能接受的通勤时间",
                "the longest commute I'd accept",
                _steps(20, 120, 5),
                "{}分钟",
                "{} minutes",
            ),
        },
        [
            (
                "{date}投了{company}的{role}岗位，内推人是{name}，编号{ref}。",
                "Applied to {company} for a {role} role on {date}, referred by {name}, ref {ref}.",
            ),
            (
                "{company}第{round}轮面试，面试官{name}问了{topic}。",
                "Round {round} at {company} with {name}: they asked about {topic}.",
            ),
            (
                "{company}发了offer，月薪{salary}元，{bonus}个月年终，{date}前答复。",
                "{company} offered {salary} yuan a month plus {bonus} months' bonus; answer by "
                "{date}.",
            ),
            (
                "{name}说{company}在{place}的团队在招{role}。",
                "{name} says {company}'s team at {place} is hiring a {role}.",
            ),
            (
                "{date}{clock}跟{company}的HR{name}电话沟通。",
                "Phone call with {name} from {company} HR on {date} at {clock}.",
            ),
            (
                "期望月薪定在{target_salary}，{name}说{role}这个价合理。",
                "My target monthly salary is {target_salary}; {name} says it's fair for a {role}.",
            ),
            (
                "查了合同，离职通知期是{notice}，最早{date}能走。",
                "Checked my contract: my notice period is {notice}, so I could leave {date}.",
            ),
            (
                "能接受的通勤时间最多{commute}，{company}在{place}的办公室就太远了。",
                "The longest commute I'd accept is {commute}, so {company} at {place} is too far.",
            ),
        ],
    ),
    "garden": Goal(
        "种菜",
        "the vegetable garden",
        {
            "garden_budget": Slot(
                "今年菜园预算",
                "my garden budget this year",
                _steps(500, 20000, 100),
                YUAN_ZH,
                YUAN_EN,
            ),
            "plot": Slot("菜地面积", "the size of my plot", _steps(4, 120), "{}平方米", "{} m²"),
            "tomato_plants": Slot(
                "番茄的棵数", "the number of tomato plants", _steps(4, 80), "{}棵", "{}"
            ),
        },
        [
            (
                "{date}在{bed}号畦种了{n}棵{plant}，品种{variety}。",
                "Planted {n} {plant} ({variety}) in bed {bed} on {date}.",
            ),
            (
                "今天收了{grams}克{plant}，分了一些给邻居{name}。",
                "Harvested {grams} g of {plant} today and gave some to my neighbour {name}.",
            ),
            (
                "在{shop}买了{bags}袋{soil}，花了{amount_small}元。",
                "Bought {bags} bags of {soil} at {shop} for {amount_small} yuan.",
            ),
            (
                "{date}在{bed}号畦的{plant}上发现了{pest}，{n}棵受影响，用了{remedy}。",
                "Found {pest} on {n} {plant} plants in bed {bed} on {date}; treated with {remedy}.",
            ),
            (
                "今天{celsius}度，给{plant}浇了{ml}毫升水，{name}帮我搭了架子。",
                "It was {celsius}°C; gave the {plant} {ml} ml of water and {name} built a trellis.",
            ),
            (
                "今年菜园预算是{garden_budget}，{shop}的{soil}占了不少。",
                "My garden budget this year is {garden_budget}; {soil} from {shop} is a big part.",
            ),
            (
                "菜地面积是{plot}，{date}在{place}又租了一块。",
                "The size of my plot is {plot}; renting another one at {place} from {date}.",
            ),
            (
                "番茄的棵数定成{tomato_plants}，主要种{variety}，{date}前种到{bed}号畦。",
                "The number of tomato plants is {tomato_plants}, mostly {variety}, in bed {bed} "
                "by {date}.",
            ),
        ],
    ),
}

CORRECTIONS = (
    [
        "不对，{label}改成{new}了，不是{old}。{date}跟{name}确认过。",
        "更正一下：{label}应该是{new}，之前说的{old}不对，{date}核对过。",
        "我说错了，{label}不是{old}，是{new}。",
        "刚想起来，{label}其实是{new}，不是{old}，{name}提醒我的。",
    ],
    [
        "Actually, {label} is {new}, not {old}; I checked with {name} on {date}.",
        "Correction: {label} is {new}, not {old} as I said. Confirmed {date}.",
        "Sorry, I got that wrong: {label} is {new}, not {old}.",
        "Scratch that, {label} is {new} rather than {old}; {name} reminded me.",
    ],
)
REPLIES = (
    [
        "记下了，{goal}这边我会帮你跟进。",
        "好的，已更新你的{goal}记录。",
        "收到！{date}前要不要我提醒你一下{goal}？",
        "明白了，{goal}的进展不错。",
    ],
    [
        "Noted, I'll keep track of that for {goal}.",
        "Got it, your {goal} notes are updated.",
        "Thanks! Want a reminder about {goal} before {date}?",
        "Understood, {goal} is coming along well.",
    ],
)

_FMT = string.Formatter()


def _names(template: str) -> tuple[str, ...]:
    return tuple(f for _, f, _, _ in _FMT.parse(template) if f)


# each template's field names, parsed once
_FIELDS_OF: dict[str, tuple[str, ...]] = {
    t: _names(t) for g in GOALS.values() for pair in g.templates for t in pair
}
_FIELDS_OF.update({t: _names(t) for lang in (*CORRECTIONS, *REPLIES) for t in lang})


def _fill(template: str, c: Ctx, goal: Goal, said: dict[str, int | float | str]) -> str:
    """The template with fresh values; a slot it names gets a new value, remembered as said."""
    vals: dict[str, str] = {}
    for f in _FIELDS_OF[template]:
        if f in vals:
            continue
        slot = goal.slots.get(f)
        if slot is None:
            vals[f] = FIELDS[f](c)
        else:
            v = slot.draw(c.rnd)
            said[f] = v
            vals[f] = slot.render(v, c.zh)
    return template.format(**vals)


def _correction(c: Ctx, goal: Goal, said: dict[str, int | float | str]) -> str:
    """A new value of a slot said before, naming the old one."""
    key = c.rnd.choice(sorted(said))
    slot = goal.slots[key]
    old = said[key]
    new = slot.draw(c.rnd)
    while new == old:
        new = slot.draw(c.rnd)
    said[key] = new
    template = c.rnd.choice(CORRECTIONS[0] if c.zh else CORRECTIONS[1])
    vals = {
        "label": slot.label_zh if c.zh else slot.label_en,
        "new": slot.render(new, c.zh),
        "old": slot.render(old, c.zh),
    }
    for f in _FIELDS_OF[template]:
        if f not in vals:
            vals[f] = FIELDS[f](c)
    return template.format(**vals)


def _user_turn(c: Ctx, goal: Goal, said: dict[str, int | float | str]) -> tuple[str, str]:
    """(kind, text) of one user message about a goal."""
    r = c.rnd
    if said and r.random() < P_CORRECTION:
        return "correction", _correction(c, goal, said)
    stating = r.random() < P_STATE
    while True:
        pair = r.choice(goal.templates)
        template = pair[0] if c.zh else pair[1]
        if stating == any(f in goal.slots for f in _FIELDS_OF[template]):
            return ("state" if stating else "update"), _fill(template, c, goal, said)


def _reply(c: Ctx, goal: Goal) -> str:
    template = c.rnd.choice(REPLIES[0] if c.zh else REPLIES[1])
    date = _date(c) if "date" in _FIELDS_OF[template] else ""
    return template.format(goal=goal.name_zh if c.zh else goal.name_en, date=date)


def _labelled(seed: int, user: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Endless (goal, kind, message): days of sessions, each on one or two goals."""
    rnd = random.Random(seed)
    said: dict[str, dict[str, int | float | str]] = {g: {} for g in GOALS}
    keys = list(GOALS)
    t = START
    session = 0
    while True:
        for _ in range(rnd.randint(4, 12)):  # sessions of a day
            goals = rnd.sample(keys, 2 if rnd.random() < P_TWO_GOALS else 1)
            mixed = rnd.random() < P_MIXED
            zh = rnd.random() < 0.5
            sid = f"{user}-s{session:06d}"
            session += 1
            k = 0
            for g in goals:
                goal = GOALS[g]
                for _ in range(rnd.randint(2, 5)):
                    c = Ctx(rnd, rnd.random() < 0.5 if mixed else zh, t)
                    kind, text = _user_turn(c, goal, said[g])
                    yield g, kind, chat_message(sid, k, user, "user", text, t)
                    k += 1
                    t += timedelta(seconds=rnd.randint(20, 150))
                    if rnd.random() < P_REPLY:
                        yield (
                            g,
                            "reply",
                            chat_message(sid, k, user, "assistant", _reply(c, goal), t),
                        )
                        k += 1
                        t += timedelta(seconds=rnd.randint(20, 150))
            t += timedelta(minutes=rnd.randint(15, 150))
        morning = datetime(t.year, t.month, t.day, 7, tzinfo=UTC) + timedelta(
            days=1, minutes=rnd.randint(0, 120)
        )
        t = max(morning, t + timedelta(hours=6))


def labelled_stream(n: int, seed: int, user: str) -> list[tuple[str, str, dict[str, Any]]]:
    """The first n (goal, kind, message) of the stream; kind: update, state, correction, reply."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    if n <= 0:
        return out
    for item in _labelled(seed, user):
        out.append(item)
        if len(out) >= n:
            break
    return out


def goal_stream(n: int, seed: int, user: str) -> list[dict[str, Any]]:
    """n messages of one user about the same recurring goals, in time order."""
    return [m for _, _, m in labelled_stream(n, seed, user)]
