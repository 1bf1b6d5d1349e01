"""Deterministic fact extraction from chat turns, English and Chinese, no LLM.

A user turn is split into clauses (sentences, then commas/semicolons/"but"), fragments with
no information of their own are glued back to the clause next to them, and each clause becomes a
FactDraft (kind, slot, polarity, third-person wording, entities, time range) or a Rejection
saying why it cannot affect a future answer. Only ``role == "user"`` turns give facts:
assistant turns are skipped (a fact the user confirmed comes from the user's own turn).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from spacy.language import Language
from spacy.tokens import Doc, Token

from extract import clause_grammar as cg
from extract import rx, zh_grammar
from extract.conflicts import CUE_EN, CUE_ZH, is_weak
from extract.lang import detect_lang, fmt_number, parse_number, team_slug
from extract.nlp import doc_text, entity_refs, ents_in, gazetteer_lookup
from extract.packs import Pack, PackPattern
from extract.packs import current as current_pack
from extract.slots import cut_zh, make_that_en, retracts_en, retracts_zh, slot_en, slot_zh
from extract.timecues import resolve_relative_days, time_range
from extract.types import (
    EntityRef,
    Extraction,
    FactDraft,
    Kind,
    Lang,
    MessageRecord,
    Polarity,
    Rejection,
    author_name,
)

log = logging.getLogger(__name__)

USER_EN, USER_ZH = "the user", "用户"


def _rx(pattern: str) -> rx.Pattern:
    return rx.compile(pattern, rx.IGNORECASE)


# small patterns used inline below
_FIRST_PERSON_ZH = rx.compile(r"我|咱|本人")
_SECOND_PERSON_ZH = rx.compile(r"^[你您]")
_GREET_TAIL = rx.compile(r"[\s,，。.!！~～…]+$")
_GREET_HEAD = rx.compile(r"^[\s,，]+")
_GREET_REST_ZH = rx.compile(r"我|想|要|预算")
_GREET_REST_EN = _rx(r"\b(?:i|my|me)\b")
_PARTICLES = rx.compile(r"[吧啊呀哦啦]+$")
_NEG_WORDS_EN = _rx(
    r"\b(?:never|don'?t|do not|doesn'?t|can'?t|cannot|mustn'?t|shouldn'?t|won'?t|not)\b|n't\b"
)
_ES_ENDING = rx.compile(r"(?:s|sh|ch|x|z|o)$")
_Y_ENDING = rx.compile(r"[^aeiou]y$")
_SPACES = rx.compile(r"\s+")
_PLEASE = _rx(r"^(?:please|just)\s+")
_DONT = rx.compile(r"(?:do not|don'?t|never)\s+(.*)", rx.IGNORECASE | rx.DOTALL)
_ALWAYS = rx.compile(r"always\s+(.*)", rx.IGNORECASE | rx.DOTALL)
_PREFERABLY = _rx(r"^(?:preferably|ideally)\b")
_PREFERABLY_LEAD = _rx(r"^(?:preferably|ideally)[,\s]+")
_NEG_LEAD = _rx(r"^(?:nothing|no|not)\b")
_WE_ZH = rx.compile(r"我们|咱们")
_I_ZH = rx.compile(r"我|本人")
_BUDGET_LEAD_ZH = rx.compile(r"^预算\s*([\d一二两三四五六七八九十百千万¥￥$])")
_NON_WORD = rx.compile(r"[^\w]+")
_HAN = rx.compile(r"[\u4e00-\u9fff]")


# --- lexicons: discourse markers, chit-chat, questions ------------------------------------

_LEAD_EN = _rx(
    r"^(?:(?:but|and|so|however|though|yet|also|plus|then|well|oh|ah|um+|uh+|hmm+|anyway|"
    r"anyways|btw|by the way|honestly|basically|fyi|just so you know|for the record|"
    r"to be honest|tbh|(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?|"
    r"(?:hi|hello|hey)(?:\s+[A-Z][a-z]+)?)\b[\s,:!.-]*)"
)
_CORR_EN = _rx(
    r"^(?:(?:correction|update|to correct|to clarify|oops|my mistake|sorry|wait|"
    r"never mind)\b\s*[:,!：，-]\s*|(?:on second thoughts?|change of plans?|scratch that)\b"
    r"[\s,:!：，.-]*"
    r"|(?:sorry,?\s*)?(?:i meant|i mean|what i meant (?:was|is)|let me correct (?:that|myself)|"
    r"i was wrong)\b[\s,:]*|no[,!]\s+)"
)
_ACTUALLY_EN = _rx(r"^actually\b[\s,:]*")
_LEAD_ZH = rx.compile(
    r"^(?:但是|但|不过|而且|可是|然而|只是|另外|还有|并且|然后|所以|那么|那|嗯+|哦+|啊|呃|对了|"
    r"话说|就是|那个|总之|顺便说一下|顺便|补充一下|补充|(?:请)?(?:记住|记一下|注意)|"
    r"你好|您好|嗨|" + zh_grammar.TOPIC_LEAD + r")[，,：:\s!！]*"
)
_CORR_ZH = rx.compile(
    r"^(?:(?:(?:更正|纠正|修正|订正)(?:一下)?|(?:更新|改)一下|(?i:update|correction))[:：，,\s]*"
    r"|(?:不对|错了|说错了|我说错了|刚才说错了|抱歉|不好意思|(?:我)?改主意了|计划有变|计划变了)"
    r"(?:[，,：:!！\s]+|$)|(?:应该是|其实是)\s*)"
)
_ACTUALLY_ZH = rx.compile(r"^其实[，,\s]*")
# trailing punctuation, or sentence-final particles after a CJK char (group "p": the particles)
_TRAIL = rx.compile(
    r"[\s,，。.!！?？;；:：~～…、\"'”’)）]+$|[\u4e00-\u9fff](?P<p>[吧啊呀哦啦哈]+)$"
)

_GREET_EN = (
    (
        "greeting",
        _rx(
            r"^(?:hi|hello|hey|hiya|yo|howdy|good (?:morning|afternoon|evening|night)|"
            r"greetings|long time no see|(?:it'?s |it is )?(?:so |really )?(?:good|great|"
            r"nice|lovely) to (?:see|hear from|meet|talk to|chat with) you(?: again| too)?|"
            r"how are you(?: doing)?|how have you been|how'?s it going|what'?s up|bye|"
            r"goodbye|see you(?: later| soon)?|take care|talk (?:to you )?(?:later|soon)|"
            r"have a (?:good|great|nice) (?:day|one|night|weekend))\b"
        ),
    ),
    (
        "thanks",
        _rx(
            r"^(?:thanks?(?: you)?|thx|ty|many thanks|cheers|much appreciated|"
            r"i (?:really )?appreciate (?:it|that|this|your help)|appreciate it)\b"
        ),
    ),
    (
        "acknowledgement",
        _rx(
            r"^(?:ok(?:ay)?|sure|yes|yeah|yep|yup|no|nope|got it|i see|alright|all right|cool|"
            r"great|nice|awesome|perfect|sounds (?:good|great|fun|amazing|awesome)|"
            r"that sounds (?:good|great|fun|amazing|awesome|lovely)|right|exactly|true|lol|haha+|"
            r"wow|oh|ah|hmm+|fine|noted|"
            r"will do|of course|definitely|absolutely|me too|same here|i agree|agreed|no worries|"
            r"that'?s (?:so |really )?(?:great|awesome|cool|amazing|nice|wonderful|good|fantastic|"
            r"sweet|lovely)|good for you|congrats|congratulations|i'?m glad|glad to hear(?: that)?|"
            r"i'?m (?:so )?sorry to hear(?: that)?|you too|same|indeed)$"
        ),
    ),
    (
        "small talk",
        _rx(
            r"^(?:i hope you(?:'re| are) (?:well|doing well|good)|hope you(?:'re| are) "
            r"(?:well|doing well|good)|i'?m (?:doing )?(?:good|fine|great|well|ok(?:ay)?)"
            r"(?:,? thanks?(?: you)?)?|not much|nothing much)$"
        ),
    ),
)
_GREET_ZH = (
    (
        "greeting",
        rx.compile(
            r"^(?:你好|您好|嗨|哈喽|hello|hi|早上好|早安|上午好|下午好|晚上好|晚安|"
            r"在吗|在不在|再见|拜拜|回头见|好久不见)"
        ),
    ),
    ("thanks", rx.compile(r"^(?:谢谢|多谢|感谢|辛苦了|麻烦你了|谢了)")),
    (
        "acknowledgement",
        rx.compile(
            r"^(?:好的?|好吧|好嘞|嗯+|哦+|行|可以|没问题|收到|明白了?|知道了|了解|对|是的|对的|没错|ok|"
            r"OK|哈哈+|嘿嘿|不客气|不用谢|太好了|太棒了|棒|厉害|我也是|同意)$"
        ),
    ),
)
_QUESTION_EN = _rx(
    r"^(?:can|could|would|will|do|did|does|are|is|have|should|shall|may)\s+(?:you|u)\b"
)
_REQUEST_EN = _rx(
    r"^(?:please\s+)?(?:recommend|suggest|find|show|tell|give|send|book|help|search|look up|check|"
    r"list|compare|remind|get me|i need you to|i'?d like you to|help me)\b"
)
_QUESTION_ZH = rx.compile(
    r"(?:吗|呢|么)$|^(?:请问|能不能|可不可以|有没有|是否|为什么|怎么|如何|哪)"
)
_REQUEST_ZH = rx.compile(
    r"^(?:请|麻烦)?(?:帮我|给我|帮忙|替我|推荐|介绍|查一下|查查|找一下|找找|看看|搜一下|列一下|比较一下)"
)
_SUBORD_EN = {
    "if",
    "when",
    "because",
    "although",
    "though",
    "since",
    "unless",
    "while",
    "whenever",
    "once",
    "as",
    "before",
    "after",
    "until",
    "whereas",
}
_SUBORD_ZH = rx.compile(r"^(?:如果|要是|因为|虽然|只要|假如|除非|当|等到|一旦|万一|假设|倘若)")
# a value that is itself asked about: A-not-A and question words ("报名是不是要 …")
_ASKED_ZH = rx.compile(
    r"^不是|是不是|要不要|能不能|会不会|有没有|可不可以|用不用|需不需要|多少|什么|哪"
)
_CONJ_EN = {"but", "however", "and", "though", "yet", "whereas"}
_CONJ_ZH = {"但", "但是", "不过", "而且", "可是", "然而"}
_SENT_END_ZH = set("。！？!?\n…")
_SOFT_ZH = set("，,")
_HARD_ZH = set("；;")

# --- lexicons: kinds ----------------------------------------------------------------------


# occupation words come from the domain packs (extract/packs, "jobs")
def _jobs(pack: Pack, lang: str) -> str:
    return pack.alternation(pack.jobs.get(lang, ()))


_IDENTITY_EN = PackPattern(
    lambda pack: _rx(
        rf"\bmy name is\b|\bcall me\b|\bi (?:live|am living|'m living|reside)\b|"
        rf"\bi(?: am|'m) (?:from|based in|originally from)\b|\bi work (?:as|at|for|in)\b|"
        rf"\bmy (?:job|occupation|profession)\b|\bi(?: am|'m) \d+(?: years? old)?\b|"
        rf"\bi(?: am|'m) (?:vegetarian|vegan|married|single|divorced|retired|pregnant)\b|"
        rf"\bi(?: am|'m) (?:a|an) (?:[\w-]+ ){{0,2}}(?:{_jobs(pack, 'en')}|mom|mother|dad|father|"
        rf"parent|wife|husband|woman|man|person)\b"
    )
)
_IDENTITY_ZH = PackPattern(
    lambda pack: rx.compile(
        rf"我是(?:$|[^说不想在觉要]|不(?:$|[^是])|觉(?:$|[^得]))|我叫|我的名字|我住|我家在|我来自|我老家|我今年|"
        rf"我在.{{1,8}}(?:工作|上班|读书|上学)|我的(?:工作|职业)|"
        rf"(?:我|^)是.{{0,6}}(?:{_jobs(pack, 'zh')})"
    )
)
_AVOID_EN = _rx(
    r"\bcan'?t stand\b|\bnot (?:a )?(?:big |huge )?fan of\b|\bnot (?:really )?into\b|"
    r"\bnot keen on\b|\bsick of\b|\btired of\b"
)
_AVOID_ZH = rx.compile(
    r"讨厌|不喜欢|不太喜欢|不爱|受不了|反感|不想要|避开|避免|不倾向|不感兴趣|嫌弃"
)
_STRONG_CON_EN = _rx(
    r"\b(?:must|mustn'?t|have to|has to|need to|needs to|can'?t|cannot|can not|not allowed|never|"
    r"allergic|shouldn'?t|should not|don'?t|do not|doesn'?t|does not|won'?t|make sure|"
    r"no later than|no earlier than)\b"
)
_STRONG_CON_ZH = rx.compile(
    r"不要|(?:^|[^特区分类性级告识辨个派])别(?:$|[^人的处墅致])|不能|不可以|不行|必须|一定要|务必|"
    r"只能|禁止|过敏|忌口|不吃|不喝|不得|尽量不|不方便|没法|不接受|不用|不需要"
)
_WEAK_CON_EN = _rx(r"\b(?:not too|no more than|at most|at least|only|under|below|within)\b")
_WEAK_CON_ZH = rx.compile(r"不超过|以内|最多|至少|只要|不太")
_PLAN_EN = _rx(
    r"\b(?:plan(?:ning|s|ned)? (?:to|on)|going to|gonna|intend(?:s|ing)? to|want(?:s|ed)? to|"
    r"would like to|'d like to|thinking (?:about|of)|looking (?:for|to|forward to)|"
    r"hop(?:e|ing) to|aim(?:ing)? to|about to|will|'ll|signed up|booked|scheduled)\b"
)
_PLAN_ZH = rx.compile(
    r"想买|想要买|想入手|打算|准备|计划|想去|要去|将要|想学|考虑|正在找|在找|想换|想找|要买|会去|预计|"
    r"(?:^|[^理感思回我])想(?:$|[^说法起到])|我想(?:$|[^说法起到])"
)
_FUTURE_CUE = _rx(
    r"\b(?:tomorrow|next (?:week|month|year|time|summer|weekend)|this weekend|soon)\b"
    r"|明天|后天|下周|下个月|明年|以后|将来"
)
_LIKE_EN = _rx(
    r"\b(?:favou?rite|fond of|big fan of|a fan of|(?:i'?m|am|really) into|"
    r"passionate about|obsessed with|crazy about|preferably|ideally|defaults? to|"
    r"by default|default)\b"
)
_LIKE_LEMMAS = {"like", "love", "enjoy", "prefer", "adore", "fancy", "favor", "favour"}
_AVOID_LEMMAS = {"hate", "dislike", "detest", "loathe", "avoid"}
_LIKE_ZH = rx.compile(
    r"喜欢|偏好|偏爱|爱(?:$|[^人情])|倾向|最爱|钟意|热爱|着迷|迷上|习惯用|首选|想要|默认|最好"
)
_BEHAV_EN = _rx(
    r"\b(?:usually|often|always|every ?(?:day|morning|night|evening|week|weekend|month|year|time)|"
    r"each (?:day|week|time|morning)|normally|typically|regularly|tend to|mostly|mainly|"
    r"sometimes|rarely|seldom|daily|weekly|on weekends|most days|frequently|routinely)\b"
)
_BEHAV_ZH = rx.compile(
    r"每天|每周|每月|每年|每次|每个(?:周末|月|星期)|经常|常常|通常|一般|平时|平常|"
    r"总是|一直|主要|习惯|很少|偶尔|有时|定期|每晚|每早"
)
_PAST_EN = _rx(
    r"\b(?:ago|last|yesterday|earlier|recently|once|back in|in (?:19|20)\d\d|"
    r"when i was)\b"
)
_PAST_ZH = rx.compile(
    r"昨天|前天|上周|上个月|去年|之前|刚才|刚刚|以前|那天|曾经|\d+月\d+[日号]|天前"
)
_NEG_EN = _rx(r"\b(?:nothing|no|not|never|none)\b")

# zh clauses starting like this have an implied "我" subject
_PRED_START_ZH = rx.compile(
    r"^(?:想|要|打算|准备|计划|喜欢|偏好|讨厌|不|别|没|最好|希望|主要|经常|通常|一般|每|常|预算|尺码|"
    r"住|在|是|叫|做|会|能|可以|需要|只|还|也|都|刚|已经|正在|一直|从来|很|比较|更|大概|平时|"
    r"去|来|买|用|穿|跑|吃|喝|看|玩|学|工作|爱|怕|觉得|认为|感觉|今天|昨天|前天|明天|后天|上周|下周|"
    r"这周|本周|周末|最近|以后|之前|现在|目前|刚才|今年|去年|明年|早上|晚上)"
)

# --- slots --------------------------------------------------------------------------------

SLOT_KIND: dict[str, Kind] = {
    "budget": "constraint",
    "size": "identity",
    "default_city": "preference",
    "home_city": "identity",
    "work_city": "identity",
    "hometown": "identity",
    "name": "identity",
    "job": "identity",
    "diet": "preference",
    "age": "identity",
}
_CITY_EN = r"(?P<city>[A-Z][\w'.-]*(?:\s+(?:de\s+)?[A-Z][\w'.-]*)*)"
_CITY_ZH = r"(?P<city>[A-Za-z][A-Za-z .'-]*[A-Za-z]|[\u4e00-\u9fff]{2,8})"
_TEAM_CITY_EN = (
    rx.compile(
        r"(?P<team>(?i:the\s+|our\s+|my\s+)?[A-Za-z][\w&-]*(?:\s+[A-Za-z][\w&-]*)?)\s+"
        r"(?i:team)(?:'s)?\s+(?i:(?:should|will|now|from now on|always)\s+)*"
        r"(?i:defaults?|default city is|default location is|default is|should default)"
        r"\s+(?i:to\s+|is\s+|as\s+|now\s+)*" + _CITY_EN
    ),
    rx.compile(
        r"(?i:default(?: city| location)?\s+for\s+)(?P<team>(?i:the\s+|our\s+)?[A-Za-z][\w&-]*"
        r"(?:\s+[A-Za-z][\w&-]*)?)\s+(?i:team)\s+(?i:is|to|should be|will be)\s+(?i:now\s+)?"
        + _CITY_EN
    ),
)
_CITY_ONLY_EN = rx.compile(
    r"(?i:\bdefault (?:city|location) (?:is|to|should be))\s+(?i:now\s+)?" + _CITY_EN
)
_TEAM_CITY_ZH = rx.compile(
    r"(?P<team>[\u4e00-\u9fffA-Za-z]{1,10}?)(?:团队|组|部门)(?:的)?(?:以后|今后|之后|现在|目前|"
    r"从现在起)?(?:的)?(?:会议)?(?:城市|地点)?(?:都)?(?:默认|改为默认|默认改为|默认改成)"
    r"(?:为|是|用|设为|改为|改成)?\s*" + _CITY_ZH
)
_CITY_ONLY_ZH = rx.compile(r"默认(?:城市|地点)(?:是|为|改为|改成|设为)?\s*" + _CITY_ZH)
_HOME_EN = rx.compile(
    r"(?i:\bi\s*(?:live|am living|'m living|reside|am based|'m based|moved|have moved|'ve moved|"
    r"relocated|just moved)\s+(?:in|to|at|out to)\s+(?:the\s+)?)" + _CITY_EN
)
_FROM_EN = rx.compile(r"(?i:\bi(?: am|'m) (?:originally )?from\s+(?:the\s+)?)" + _CITY_EN)
_HOME_ZH = rx.compile(
    r"(?:我|^)(?:现在|目前)?(?:住在|定居在|定居于|生活在|家在|搬到了?|搬去了?)\s*" + _CITY_ZH
)
_LIVE_IN_ZH = rx.compile(
    r"(?:我|^)(?:现在|目前)?在(?P<city>[\u4e00-\u9fffA-Za-z]{2,8}?)(?P<verb>生活|住|定居|"
    r"工作|上班)"
)
_FROM_ZH = rx.compile(
    r"我(?:来自|老家是|老家在|是)(?P<city>[\u4e00-\u9fffA-Za-z]{2,8}?)(?:人|$|[，,。])"
)
_NAME_EN = rx.compile(
    r"(?i:\bmy name is|\bcall me|\bi'?m called)\s+(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"
)
_NAME_ZH = rx.compile(
    r"(?:我叫|我的名字(?:是|叫)|叫我)\s*(?P<v>[\u4e00-\u9fffA-Za-z]{1,10}?)(?:$|[，,。！!就])"
)
_JOB_EN = PackPattern(
    lambda pack: _rx(
        rf"\bi (?:work|am working|'m working) as (?:a |an )?(?P<v>[\w -]+?)"
        rf"(?:\s+(?:at|for|in)\b|$)|"
        rf"\bmy (?:job|occupation|profession) is (?:a |an )?(?P<v2>[\w -]+)|"
        rf"\bi(?: am|'m) (?:a|an) (?P<v3>(?:[\w-]+ )?(?:{_jobs(pack, 'en')}))\b"
    )
)
_JOB_ZH = PackPattern(
    lambda pack: rx.compile(
        rf"(?:我|^)(?:是一名|是一个|是一位|是个|是)(?P<v>[\u4e00-\u9fff]{{0,6}}?"
        rf"(?:{_jobs(pack, 'zh')}))|我的(?:工作|职业)是(?P<v2>[\u4e00-\u9fffA-Za-z]{{1,10}})"
    )
)
_DIET_EN = _rx(
    r"\bi(?: am|'m)\s+(?:a\s+)?(?P<v>vegetarian|vegan|pescatarian|halal|kosher)\b|"
    r"\bi (?:don'?t|do not|never) eat (?P<v2>meat|pork|beef|fish|seafood|dairy|gluten)\b"
)
_DIET_ZH = rx.compile(
    r"我(?:吃素|是素食者?|只吃素|是纯素)|我不吃(?P<v2>[\u4e00-\u9fff]{1,3}?)(?:$|[，,。的])"
)
_AGE_EN = _rx(r"\bi(?: am|'m) (?P<v>\d{1,3}) years? old\b|\bi(?: just)? turned (?P<v2>\d{1,3})\b")
_AGE_ZH = rx.compile(r"我(?:今年)?(?P<v>\d{1,3}|[一二三四五六七八九十]+)岁")
_BUDGET_EN = _rx(r"\bbudget\b|\b(?:spend|afford|pay)\b|\bprice (?:range|limit)\b")
_BUDGET_ZH = rx.compile(r"预算|价位|价格|价钱|花费|最多花|不超过")
_WEAR_EN = _rx(r"\bi wear (?:a |an )?(?:size )?(?P<v>\d+(?:\.\d+)?|XS|S|M|L|XL|XXL)\b")
_WEAR_ZH = rx.compile(r"我穿\s*(?P<v>\d{2}(?:\.5)?)(?:\D|$)")

# --- anchors and labels -------------------------------------------------------------------

_ANCHORS = (
    (
        "order",
        rx.compile(
            r"(?:订单号?|单号)\s*(?:是|为|[:：#])?\s*(?P<v>[A-Za-z0-9][A-Za-z0-9-]{3,})"
            r"|\border\s*(?:#|no\.?|number|id)?\s*[:#]?\s*(?P<v2>[A-Za-z]*\d[A-Za-z0-9-]{2,})",
            rx.IGNORECASE,
        ),
    ),
    (
        "booking",
        rx.compile(
            r"(?:预约号|预订号|预定号|预约编号)\s*(?:是|为|[:：#])?\s*"
            r"(?P<v>[A-Za-z0-9-]{4,})|\b(?:booking|reservation|confirmation)\s*"
            r"(?:#|no\.?|number|id|code)?\s*[:#]?\s*(?P<v2>[A-Za-z]*\d[A-Za-z0-9-]{2,})",
            rx.IGNORECASE,
        ),
    ),
)
_META_ANCHORS = {"order_id": "order", "booking_id": "booking", "reservation_id": "booking"}


# --- segmentation ---------------------------------------------------------------------------


# A clause never grows past this many characters (longer runs are cut, pieces are not glued
# past it): every step on a clause then costs at most a bounded amount, so a message of any
# shape is extracted in time linear in its length.
MAX_CLAUSE_CHARS = 600
_MAX_LEADS = 16  # leading fillers/markers stripped from one clause ("and and and ...")


@dataclass
class _Piece:
    start: int  # char offsets into doc_text(doc)
    end: int
    sent: int
    hard: bool = False  # a ";" before it: never glued to the previous piece
    open: bool = False  # subordinate clause still waiting for its main clause


def _pieces_zh(doc: Doc) -> list[_Piece]:
    pieces: list[_Piece] = []
    start, sent, hard = 0, 0, False

    def close(end: int) -> None:
        if doc_text(doc)[start:end].strip():
            pieces.append(_Piece(start, end, sent, hard))

    for tok in doc:
        chars = set(tok.text)
        if chars <= _SENT_END_ZH | _SOFT_ZH | _HARD_ZH | {" "}:
            close(tok.idx + len(tok.text) if chars & _SENT_END_ZH else tok.idx)
            start = tok.idx + len(tok.text)
            hard = bool(chars & _HARD_ZH)
            if chars & _SENT_END_ZH:
                sent += 1
        elif tok.text in _CONJ_ZH and doc_text(doc)[start : tok.idx].strip():
            close(tok.idx)
            start, hard = tok.idx, False
    close(len(doc_text(doc)))
    return pieces


def _pieces_en(doc: Doc) -> list[_Piece]:
    pieces: list[_Piece] = []
    for si, sent in enumerate(doc.sents):
        start, hard = sent.start_char, False
        for tok in sent:
            if tok.i == sent.start:
                continue
            if tok.text in (";", ",", "—", "–") and tok.i != sent.end - 1:
                if doc_text(doc)[start : tok.idx].strip():
                    pieces.append(_Piece(start, tok.idx, si, hard))
                start, hard = tok.idx + len(tok.text), tok.text == ";"
            elif tok.lower_ in _CONJ_EN and doc_text(doc)[start : tok.idx].strip():
                pieces.append(_Piece(start, tok.idx, si, hard))
                start, hard = tok.idx, False
        if doc_text(doc)[start : sent.end_char].strip():
            pieces.append(_Piece(start, sent.end_char, si, hard))
    return pieces


def _tokens(doc: Doc, start: int, end: int) -> list[Token]:
    span = doc.char_span(start, end, alignment_mode="expand") if end > start else None
    return list(span) if span is not None else []


def _content_tokens(toks: list[Token]) -> list[Token]:
    """Tokens after leading conjunctions, punctuation and interjections."""
    i = 0
    while i < len(toks) and (
        toks[i].is_punct or toks[i].dep_ in ("cc", "intj", "punct") or toks[i].lower_ in _CONJ_EN
    ):
        i += 1
    return toks[i:]


def _is_imperative(toks: list[Token]) -> bool:
    toks = _content_tokens(toks)
    while toks and toks[0].lower_ in ("please", "just", "also", "ideally", "preferably"):
        toks = toks[1:]
    if not toks:
        return False
    first = toks[0]
    if first.lower_ in ("do", "never", "always") and len(toks) > 1:
        nxt = toks[2] if len(toks) > 2 and toks[1].lower_ in ("n't", "not") else toks[1]
        return nxt.tag_ == "VB"
    if first.lower_ == "let" and len(toks) > 1 and toks[1].lower_ in ("'s", "us"):
        return False  # "let's ..." is a suggestion, not an instruction
    # a bare verb is an imperative only as the main verb ("and motivate me" is a coordination)
    return (
        first.tag_ == "VB"
        and first.dep_ == "ROOT"
        and not any(c.dep_ in ("nsubj", "nsubjpass") for c in first.children)
    )


def _implied_subject(toks: list[Token]) -> str | None:
    """The verb prefix for a clause that drops its "I": "Just got new shoes" -> ""."""
    toks = _content_tokens(toks)
    if not toks or _has_subject(toks):
        return None
    i = 0
    while i < len(toks) - 1 and toks[i].tag_ == "RB":
        i += 1
    tag, low = toks[i].tag_, toks[i].lower_
    if low in ("gonna", "gon") or tag == "VBG":  # spaCy splits "gonna" into "gon" + "na"
        return "is"
    if tag == "VBN" and toks[i].dep_ == "ROOT":
        return "has"
    if tag == "VBD" and toks[i].dep_ == "ROOT":
        return ""
    return None


def _has_subject(toks: list[Token]) -> bool:
    ids = {t.i for t in toks}
    return any(
        t.dep_ in ("nsubj", "nsubjpass", "expl", "csubj")
        and t.head.i in ids
        and t.head.pos_ in ("VERB", "AUX")
        for t in toks
    )


def _standalone_en(doc: Doc, p: _Piece) -> bool:
    toks = _content_tokens(_tokens(doc, p.start, p.end))
    if not toks:
        return False
    text = doc_text(doc)[p.start : p.end]
    if _greeting(text, "en") or text.rstrip().endswith("?"):
        return True
    if toks[0].tag_ in ("WDT", "WP", "WP$") or toks[0].lower_ in _SUBORD_EN:
        return False
    return (
        _has_subject(toks)
        or _is_imperative(toks)
        or cg.coordinated_predicate_en(toks) is not None
        or _slot(doc, p.start, p.end, "en")[0] is not None
    )


def _standalone_zh(doc: Doc, p: _Piece) -> bool:
    text = _strip(doc, p.start, p.end, "zh")[2]
    if (
        not text
        or _greeting(text, "zh")
        or doc_text(doc)[p.start : p.end].rstrip().endswith(("?", "？"))
    ):
        return bool(text)
    if _SUBORD_ZH.match(text) or zh_grammar.keep_clause(text):
        return False  # "日期不变": binds to the change it qualifies
    if zh_grammar.own_subject(text) and (_has_content_zh(text) or zh_grammar.implied_user(text)):
        return True  # "X 在周一上午": its own subject, and the user's matter
    return bool(
        _FIRST_PERSON_ZH.search(text)
        or _PRED_START_ZH.match(text)
        or _kind_zh(text)[0] != "fact"
        or _slot(doc, p.start, p.end, "zh")[0]
    )


def _capped(doc: Doc, pieces: list[_Piece]) -> list[_Piece]:
    """Pieces longer than MAX_CLAUSE_CHARS cut at the last space within the limit (or at it)."""
    text = doc_text(doc)
    out: list[_Piece] = []
    for p in pieces:
        start, hard = p.start, p.hard
        while p.end - start > MAX_CLAUSE_CHARS:
            cut = text.rfind(" ", start + 1, start + MAX_CLAUSE_CHARS)
            cut = cut if cut > start else start + MAX_CLAUSE_CHARS
            out.append(_Piece(start, cut, p.sent, hard))
            start, hard = cut, True
        out.append(_Piece(start, p.end, p.sent, hard))
    return out


def _clauses(doc: Doc, lang: Lang) -> list[_Piece]:
    """Pieces glued back so every clause carries information of its own."""
    pieces = _capped(doc, _pieces_zh(doc) if lang == "zh" else _pieces_en(doc))
    standalone = _standalone_zh if lang == "zh" else _standalone_en
    out: list[_Piece] = []
    for p in pieces:
        text = doc_text(doc)[p.start : p.end].strip()
        p.open = (
            text.split(" ", 1)[0].lower() in _SUBORD_EN
            if lang == "en"
            else bool(_SUBORD_ZH.match(text))
        )
        prev = out[-1] if out and out[-1].sent == p.sent and not p.hard else None
        if prev is not None and p.end - prev.start > MAX_CLAUSE_CHARS:
            prev = None
        filler = prev is not None and not _strip(doc, prev.start, prev.end, lang)[2]
        if prev is not None and _greeting(doc_text(doc)[prev.start : prev.end], lang):
            prev = None  # keep "好的" / "Thanks" apart from what follows
        if (
            prev is not None
            and lang == "zh"
            and not (prev.open or filler)
            and cg.parallel_statements_zh(
                _strip(doc, prev.start, prev.end, lang)[2], _strip(doc, p.start, p.end, lang)[2]
            )
        ):
            prev = None  # "A 是 X，B 在 Y": each piece states something about its own subject
        bound = lang == "zh" and prev is not None and _bound_zh(doc, prev, p)
        if prev is not None and (prev.open or filler or bound or not standalone(doc, p)):
            prev.end, prev.open = p.end, p.open and prev.open
        else:
            out.append(p)
    return out


def _bound_zh(doc: Doc, prev: _Piece, p: _Piece) -> bool:
    """A numeric limit with no subject or slot of its own qualifies the goal before it."""
    text = _strip(doc, p.start, p.end, "zh")[2]
    return (
        zh_grammar.bound_to_goal(doc_text(doc)[prev.start : prev.end], text)
        and not _slot(doc, p.start, p.end, "zh")[0]
    )


# --- clause analysis ----------------------------------------------------------------------


def _strip(doc: Doc, start: int, end: int, lang: Lang) -> tuple[int, int, str, bool]:
    """Drop leading conjunctions, fillers and correction markers, and trailing punctuation.

    Returns the new offsets, the text and whether a correction marker was seen.
    """
    lead, corr, actually = (
        (_LEAD_ZH, _CORR_ZH, _ACTUALLY_ZH) if lang == "zh" else (_LEAD_EN, _CORR_EN, _ACTUALLY_EN)
    )
    text = doc_text(doc)[start:end]
    correction, soft = False, False
    for _ in range(_MAX_LEADS):
        stripped = text.lstrip()
        m = corr.match(stripped)
        if m:
            correction = True
        else:
            m = actually.match(stripped)
            soft = soft or bool(m)
            m = m or lead.match(stripped)
        if not m or not m.group(0) or (lang == "zh" and zh_grammar.demonstrative(stripped)):
            break
        start += len(text) - len(stripped) + m.end()
        text = doc_text(doc)[start:end]
    start += len(text) - len(text.lstrip())
    text = doc_text(doc)[start:end]
    m = _TRAIL.search(text)
    if m:
        end -= len(text) - (m.start("p") if m.has("p") else m.start())
    text = doc_text(doc)[start:end]
    if soft and not correction:
        correction = _slot(doc, start, end, lang)[0] is not None  # "actually" + a slot value
    return start, end, text, correction


def _greeting(text: str, lang: Lang) -> str | None:
    clean = _GREET_TAIL.sub("", text.strip())
    clean = _GREET_HEAD.sub("", clean)
    for reason, pattern in _GREET_ZH if lang == "zh" else _GREET_EN:
        m = pattern.match(clean)
        if not m:
            continue
        rest = clean[m.end() :].strip(" ,，!！.。")
        if lang == "zh" and len(rest) <= 4 and not _GREET_REST_ZH.search(rest):
            return reason
        if lang == "en" and len(rest.split()) <= 3 and not _GREET_REST_EN.search(rest):
            return reason
    return None


def _money(doc: Doc, start: int, end: int) -> tuple[str, str] | None:
    for ent in ents_in(doc, start, end):
        if ent.label_ == "MONEY":
            return ent.id_ or ent.text, ent.text
    return None


def _city(doc: Doc, start: int, end: int, raw: str) -> str:
    for ent in ents_in(doc, start, end):
        if ent.label_ == "GPE":
            return ent.id_ or ent.text
    hit = gazetteer_lookup(raw)
    return hit[1] if hit else _PARTICLES.sub("", raw.strip())


def _slot(doc: Doc, start: int, end: int, lang: Lang) -> tuple[str | None, str | None]:
    """(slot, value) when the clause sets something a later message can overwrite."""
    text = doc_text(doc)[start:end]
    zh = lang == "zh"
    for pattern in (_TEAM_CITY_ZH,) if zh else _TEAM_CITY_EN:
        m = pattern.search(text)
        if m:
            s, e = start + m.start("city"), start + m.end("city")
            return f"default_city:{team_slug(m.group('team'))}", _city(doc, s, e, m.group("city"))
    m = (_CITY_ONLY_ZH if zh else _CITY_ONLY_EN).search(text)
    if m:
        return "default_city", _city(
            doc, start + m.start("city"), start + m.end("city"), m.group("city")
        )
    money = _money(doc, start, end)
    if money and (
        (_BUDGET_ZH if zh else _BUDGET_EN).search(text)
        or money[0].startswith(("<=", "~"))
        or "-" in money[0]
    ):
        return "budget", money[0]
    for ent in ents_in(doc, start, end):
        if ent.label_ == "SIZE":
            return "size", ent.id_ or ent.text
    m = (_WEAR_ZH if zh else _WEAR_EN).search(text)
    if m:
        return "size", m.group("v").upper()
    found = _slot_zh(doc, start, text) if zh else _slot_en(doc, start, text)
    if found[0] is not None:
        return found
    if zh or _HAN.search(text):  # code-switched clauses parse better by the Chinese rules
        general = slot_zh(text)
        route = None if general else zh_grammar.route_slot(text)
        if route:
            return route
    else:
        toks = _content_tokens(_tokens(doc, start, end))
        general = slot_en(toks) or make_that_en(toks)
    return (general.key, general.value) if general else (None, None)


def _group(m: rx.Match) -> str:
    return next((g for g in m.groups() if g), "").strip()


def _slot_en(doc: Doc, start: int, text: str) -> tuple[str | None, str | None]:
    for slot, pattern in (("home_city", _HOME_EN), ("hometown", _FROM_EN)):
        m = pattern.search(text)
        if m:
            return slot, _city(doc, start + m.start("city"), start + m.end("city"), m.group("city"))
    m = _NAME_EN.search(text)
    if m:
        return "name", m.group("v")
    m = _DIET_EN.search(text)
    if m:
        return "diet", (m.group("v") or f"no {m.group('v2')}").lower()
    m = _AGE_EN.search(text)
    if m:
        return "age", _group(m)
    m = _JOB_EN.search(text)
    if m:
        return "job", _group(m).lower()
    return None, None


def _slot_zh(doc: Doc, start: int, text: str) -> tuple[str | None, str | None]:
    m = _HOME_ZH.search(text)
    if m:
        return "home_city", _city(
            doc, start + m.start("city"), start + m.end("city"), m.group("city")
        )
    m = _LIVE_IN_ZH.search(text)
    if m and gazetteer_lookup(m.group("city")):
        slot = "work_city" if m.group("verb") in ("工作", "上班") else "home_city"
        return slot, _city(doc, start + m.start("city"), start + m.end("city"), m.group("city"))
    m = _FROM_ZH.search(text)
    if m and gazetteer_lookup(m.group("city")):
        return "hometown", _city(
            doc, start + m.start("city"), start + m.end("city"), m.group("city")
        )
    m = _NAME_ZH.search(text)
    if m:
        return "name", m.group("v")
    m = _DIET_ZH.search(text)
    if m:
        return "diet", f"不吃{m.group('v2')}" if m.group("v2") else "vegetarian"
    m = _AGE_ZH.search(text)
    if m:
        age = parse_number(m.group("v"))
        return "age", fmt_number(age) if age is not None else m.group("v")
    m = _JOB_ZH.search(text)
    if m:
        return "job", _group(m)
    return None, None


def _kind_zh(text: str) -> tuple[Kind, Polarity]:
    if _IDENTITY_ZH.search(text):
        return "identity", "neutral"
    if _AVOID_ZH.search(text):
        return "preference", "avoids"
    if _STRONG_CON_ZH.search(text):
        return "constraint", "avoids"
    if _PLAN_ZH.search(text):
        return "plan", "neutral"
    if _LIKE_ZH.search(text):
        return "preference", "likes"
    if _BEHAV_ZH.search(text):
        return "behavior_pattern", "neutral"
    if _WEAK_CON_ZH.search(text):
        return "constraint", "neutral"
    if _FUTURE_CUE.search(text):
        return "plan", "neutral"
    if _PAST_ZH.search(text):
        return "timeline", "neutral"
    return "fact", "neutral"


def _negated(tok: Token) -> bool:
    return any(c.dep_ == "neg" or c.lower_ == "never" for c in tok.children)


def _kind_en(text: str, toks: list[Token]) -> tuple[Kind, Polarity]:
    verbs = [t for t in toks if t.pos_ == "VERB"]
    if _IDENTITY_EN.search(text):
        return "identity", "neutral"
    if cg.negative_constraint_en(toks):
        return "constraint", "avoids"
    if (
        _AVOID_EN.search(text)
        or any(t.lemma_ in _AVOID_LEMMAS and not _negated(t) for t in verbs)
        or any(t.lemma_ in _LIKE_LEMMAS and _negated(t) for t in verbs)
    ):
        return "preference", "avoids"
    if _STRONG_CON_EN.search(text) or _is_imperative(toks) or _coord_imperative(toks):
        neg = bool(_NEG_WORDS_EN.search(text))
        return "constraint", "avoids" if neg else "neutral"
    if _PLAN_EN.search(text):
        return "plan", "neutral"
    if _LIKE_EN.search(text) or any(t.lemma_ in _LIKE_LEMMAS for t in verbs):
        return "preference", "avoids" if _NEG_EN.search(text) else "likes"
    if _BEHAV_EN.search(text):
        return "behavior_pattern", "neutral"
    if _WEAK_CON_EN.search(text):
        return "constraint", "neutral"
    if _FUTURE_CUE.search(text):
        return "plan", "neutral"
    root = next((t for t in toks if t.dep_ == "ROOT"), None)
    if _PAST_EN.search(text) or (
        root is not None and root.tag_ == "VBD" and any(_first_person(c) for c in root.children)
    ):
        return "timeline", "neutral"
    return "fact", "neutral"


def _first_person(tok: Token) -> bool:
    return tok.lower_ in (
        "i",
        "me",
        "my",
        "mine",
        "myself",
        "we",
        "us",
        "our",
        "ours",
        "ourselves",
    ) and tok.tag_ in ("PRP", "PRP$")


_LIGHT_LEMMAS = {
    "be",
    "have",
    "do",
    "love",
    "like",
    "think",
    "know",
    "feel",
    "guess",
    "mean",
    "want",
    "get",
    "go",
    "say",
    "see",
    "hope",
    "bet",
    "agree",
    "wish",
    "sound",
}


def _concrete_en(toks: list[Token]) -> bool:
    return any(
        t.pos_ in ("NOUN", "PROPN", "NUM", "ADJ")
        or (t.pos_ == "VERB" and t.lemma_ not in _LIGHT_LEMMAS)
        for t in toks
    )


# --- wording ------------------------------------------------------------------------------


def _third_person(verb: str) -> str:
    low = verb.lower()
    irregular = {
        "am": "is",
        "'m": "is",
        "are": "is",
        "have": "has",
        "'ve": "has",
        "do": "does",
        "go": "goes",
        "'re": "is",
    }
    if low in irregular:
        out = irregular[low]
    elif _ES_ENDING.search(low):
        out = low + "es"
    elif _Y_ENDING.search(low):
        out = low[:-1] + "ies"
    else:
        out = low + "s"
    return out.capitalize() if verb[:1].isupper() else out


def _agreement_targets(toks: list[Token]) -> set[int]:
    """Indices of finite verbs whose subject is "I" (they become third person singular)."""
    targets: set[int] = set()
    for t in toks:
        if not (t.lower_ == "i" and t.dep_ in ("nsubj", "nsubjpass")):
            continue
        head = t.head
        for verb in (
            head,
            *[
                c
                for c in head.conjuncts
                if not any(k.dep_ in ("nsubj", "nsubjpass") for k in c.children)
            ],
        ):
            auxes = [c for c in verb.children if c.dep_ in ("aux", "auxpass") and c.i < verb.i]
            finite = auxes[0] if auxes else verb
            if finite.tag_ == "VBP" or finite.lower_ in ("am", "'m"):
                targets.add(finite.i)
            elif verb is not head and verb.lower_ == verb.lemma_ and head.i in targets:
                targets.add(verb.i)  # "I stay home and read" -> "stays ... reads"
    return targets


def _rewrite_en(doc: Doc, start: int, end: int, subject: str) -> str:
    toks = _tokens(doc, start, end)
    poss = f"{subject}'s"
    targets = _agreement_targets(toks)
    out: list[str] = []
    for i, t in enumerate(toks):
        low, nxt = t.lower_, toks[i + 1] if i + 1 < len(toks) else None
        word = t.text
        if (low == "i" and t.tag_ == "PRP") or (low in ("me",) and t.tag_ == "PRP"):
            word = subject
        elif low in ("we", "us") and t.tag_ == "PRP":
            word = f"{subject} and others"
        elif low in ("my", "mine", "our", "ours") and t.tag_ in ("PRP$", "PRP"):
            word = poss
        elif low in ("myself", "ourselves"):
            word = "themselves"
        elif t.i in targets:
            word = _third_person(t.text)
        elif low == "'d" and t.tag_ == "MD":
            word = "had" if nxt is not None and nxt.tag_ == "VBN" else "would"
        elif low == "'ll" and t.tag_ == "MD":
            word = "will"
        elif low == "'m":
            word = "is"
        elif low == "'re" and i > 0 and toks[i - 1].lower_ == "we":
            word = "are"
        ws = t.whitespace_
        if word != t.text and t.text.startswith("'"):
            out.append(" ")  # "I'm" -> "the user is"
        if (
            nxt is not None
            and not ws
            and nxt.text.startswith("'")
            and nxt.lower_ in ("'m", "'d", "'ll", "'ve")
            and word != t.text
        ):
            ws = ""
        out.append(word + ws)
    text = _SPACES.sub(" ", "".join(out)).strip()
    return text


def _imperative_en(doc: Doc, start: int, end: int, subject: str) -> str:
    text = doc_text(doc)[start:end].strip()
    text = _PLEASE.sub("", text)
    m = _DONT.match(text)
    if m:
        how = "never to" if text.lower().startswith("never") else "not to"
        return f"{subject} asks {how} {m.group(1)}"
    m = _ALWAYS.match(text)
    if m:
        return f"{subject} asks to always {m.group(1)}"
    return f"{subject} asks to {text[:1].lower()}{text[1:]}"


def _template_en(slot: str, value: str, money_text: str | None, subject: str) -> str:
    base = slot.split(":", 1)[0]
    if base == "budget":
        return f"{subject}'s budget is {money_text or value}"
    if base == "size":
        return f"{subject} wears size {value}"
    if base == "default_city":
        team = (
            slot.split(":", 1)[1].replace("_team", "").replace("_", " ").title()
            if ":" in slot
            else ""
        )
        return (
            f"The {team} team defaults to {value}"
            if team
            else f"{subject}'s default city is {value}"
        )
    if base == "home_city":
        return f"{subject} lives in {value}"
    qual = slot.partition(":")[2]
    name = f"{qual} {base}" if qual and base != "allergy" else base
    return f"{subject}'s {name.replace('_', ' ')} is {value}"


def _coord_imperative(toks: list[Token]) -> bool:
    """A predicate coordinated with an instruction: "…, and always add X at the end"."""
    coord = cg.coordinated_predicate_en(toks)
    return coord is not None and cg.shared_subject_en(coord) is None and not _lets(toks)


def _coordinated_en(doc: Doc, verb: Token, end: int, subject: str) -> str:
    """A coordinated predicate worded with the subject (and fronted frame) it shares."""
    lead = [t for t in verb.lefts if t.dep_ == "advmod"]
    start = lead[0].left_edge.idx if lead else verb.idx
    shared = cg.shared_subject_en(verb)
    tail = verb.idx + len(verb.text)
    rest = _rewrite_en(doc, tail, end, subject) if end > tail else ""
    adverbs = doc_text(doc)[start : verb.idx].strip()
    if shared is None:
        body = " ".join(w for w in (adverbs, verb.text.lower(), rest) if w)
        out = f"{subject} asks to {body}"
    else:
        plural = shared.lower_ == "we"
        agree = verb.tag_ in ("VBP", "VB") or (verb.pos_ != "VERB" and verb.lower_ == verb.lemma_)
        word = _third_person(verb.text) if agree and not plural else verb.text
        who = f"{subject} and others" if plural else subject
        aux = cg.shared_aux_en(verb)  # "I'm A-ing and B-ing" -> "… is B-ing"
        if aux is not None and aux.tag_ == "MD":
            who, word = f"{who} {cg.modal_text(aux)}", verb.text  # "… should at least write"
        elif aux is not None:
            low = aux.lower_.lstrip("'")
            be = low in ("m", "am", "re", "are", "is", "s", "was", "were")
            word = f"{('are' if plural else 'is') if be else ('have' if plural else 'has')} {word}"
        out = " ".join(w for w in (who, adverbs, word, rest) if w)
    frame = cg.frame_en(verb)
    if frame is not None:
        span = (frame.left_edge.idx, frame.right_edge.idx + len(frame.right_edge.text))
        out = f"{_rewrite_en(doc, span[0], span[1], subject)}, {out[:1].lower()}{out[1:]}"
    return out


def _wording_en(
    doc: Doc, start: int, end: int, subject: str, slot: str | None, value: str | None
) -> str:
    toks = _tokens(doc, start, end)
    text = doc_text(doc)[start:end].strip()
    implied = _implied_subject(toks)
    lets = _content_tokens(toks)
    if _lets(lets):
        rest = doc_text(doc)[lets[1].idx + len(lets[1].text) : end].strip()
        out = f"{subject} wants to {rest}"
    elif (coord := cg.coordinated_predicate_en(toks)) is not None:
        out = _coordinated_en(doc, coord, end, subject)
    elif implied is not None:
        rest = _rewrite_en(doc, start, end, subject)
        out = " ".join(w for w in (subject, implied, rest[:1].lower() + rest[1:]) if w)
    elif any(_first_person(t) for t in toks):
        out = _rewrite_en(doc, start, end, subject)
    elif _is_imperative(toks):
        out = _imperative_en(doc, start, end, subject)
    elif cg.negative_constraint_en(toks):
        out = f"{subject} wants {cg.constraint_phrase_en(toks)}"  # "no glass tables"
    elif _has_subject(_content_tokens(toks)):
        out = text  # a statement about something else the user set ("The design team ...")
    elif slot and value:
        money = _money(doc, start, end)
        out = _template_en(slot, value, money[1] if money else None, subject)
    elif _PREFERABLY.match(text):
        rest = _PREFERABLY_LEAD.sub("", text)
        out = f"{subject} prefers {rest}"
    elif _NEG_LEAD.match(text):
        out = f"{subject} wants {text}"
    else:
        out = f"{subject}: {text}"
    return out[:1].upper() + out[1:]


def _wording_zh(text: str, subject: str, kind: Kind, slot: str | None, topic: bool = False) -> str:
    out, n = _WE_ZH.subn(f"{subject}等人", text)  # a str replacement is literal (rx)
    out, k = _I_ZH.subn(subject, out)
    if n + k:
        return out
    if topic and not _PRED_START_ZH.match(out):
        return f"对{subject}来说，{out}"
    if kind == "constraint" and slot is None and not zh_grammar.wish_start(out):
        if out.startswith(("最好别", "最好不")):
            out = out[2:]
        return f"{subject}希望{out}"
    if _PRED_START_ZH.match(out):
        out = _BUDGET_LEAD_ZH.sub(lambda m: f"预算在 {m.group(1)}", out, count=1)
        return f"{subject}{out}"
    return out


def _template_zh(slot: str, value: str, money_text: str | None, subject: str) -> str:
    base = slot.split(":", 1)[0]
    if base == "budget":
        return f"{subject}预算在 {money_text or value}"
    if base == "size":
        return f"{subject}穿 {value} 码"
    if base == "home_city":
        return f"{subject}住在{value}"
    return f"{subject}的{base}为 {value}"


# --- assembly -----------------------------------------------------------------------------


def _labels(
    text: str, kind: Kind, slot: str | None, ents: Sequence[EntityRef], correction: bool
) -> tuple[str, ...]:
    labels: list[str] = [kind]
    if slot:
        labels.append(slot.split(":", 1)[0])
    labels += current_pack().labels_in(text)  # extract/packs, "labels"
    if any(e.type == "GPE" for e in ents):
        labels.append("location")
    if correction:
        labels.append("correction")
    return tuple(dict.fromkeys(labels))


def _anchors(text: str, metadata: dict[str, object]) -> tuple[str, ...]:
    found = [f"{kind}:{_group(m)}" for kind, pattern in _ANCHORS for m in pattern.finditer(text)]
    found += [f"{kind}:{metadata[key]}" for key, kind in _META_ANCHORS.items() if metadata.get(key)]
    return tuple(dict.fromkeys(found))


def _key(kind: Kind, slot: str | None, content: str) -> str:
    if slot:
        return f"{kind}:{slot}"
    norm = _NON_WORD.sub("", content.lower())
    return f"{kind}:{norm}"


def _reject(msg: MessageRecord, reason: str, text: str = "") -> Rejection:
    return Rejection(source_message_ids=(msg.message_id,), reason=reason, text=text)


def _analyse(
    msg: MessageRecord,
    doc: Doc,
    lang: Lang,
    clause: _Piece,
    correction_in_sentence: bool,
    owner: str | None = None,
    marked: bool = False,
) -> FactDraft | Rejection | bool:
    """A FactDraft, a Rejection, or True when the clause is only a correction marker.

    ``owner``: the user's own thing the sentence opened with ("我们 X 的 A 是 …"), which a
    further statement with a bare subject ("W 在 V") is about. ``marked``: a clause of the
    sentence before this one was only a change marker ("Scratch that,", "X 我换了")."""
    zh = lang == "zh"
    raw = doc_text(doc)[clause.start : clause.end]
    greeting = _greeting(raw, lang)
    if greeting:
        return _reject(msg, greeting, raw.strip())
    start, end, text, correction = _strip(doc, clause.start, clause.end, lang)
    if not text:
        return True if correction else _reject(msg, "no content (filler only)", raw.strip())
    greeting = _greeting(text, lang)
    if greeting:
        return _reject(msg, greeting, raw.strip())
    slot, value = _slot(doc, start, start + zh_grammar.head_len(text) if zh else end, lang)
    question = raw.rstrip().endswith(("?", "？")) or bool(
        (_QUESTION_ZH if zh else _QUESTION_EN).search(text)
    )
    request = bool((_REQUEST_ZH if zh else _REQUEST_EN).match(text))
    if zh and request and zh_grammar.opens_with_noun(text):
        request = False  # "推荐信…": a noun, not the verb 推荐
    if zh and zh_grammar.asks_for_help(text):
        rest = _after_wrapper(doc, clause, start, end)  # "想问一下：我下周…"
        if rest is not None:
            return _analyse(msg, doc, lang, rest, correction_in_sentence)
        return _reject(msg, "asks the agent for help, states nothing", raw.strip())
    if zh and question and slot and _ASKED_ZH.search(value or ""):
        slot = value = None  # "报名是不是要 …？": the value is what the question asks
    if (question or request) and slot is None:
        rest = _after_wrapper(doc, clause, start, end)
        if rest is not None:  # "Can you remember this for me: I've booked …"
            return _analyse(msg, doc, lang, rest, correction_in_sentence)
        return _reject(
            msg, "question to the agent" if question else "request to the agent", raw.strip()
        )
    toks = [] if zh else _tokens(doc, start, end)
    named = None if zh else _named_antecedent(doc, start, toks)
    kind, polarity = _kind_zh(text) if zh else _kind_en(text, toks)
    reason = None if named else _not_the_users(text, toks, lang, slot is not None)
    if reason is None and not named and kind != "constraint":
        reason = _other_person(text, toks, lang)
    if reason:
        return _reject(msg, reason, raw.strip())
    if slot:
        kind = SLOT_KIND.get(slot.split(":", 1)[0], kind)
        polarity = "likes" if kind == "preference" else "neutral"
    anchors = _anchors(text, msg.metadata)
    # "我自己的话，X": the lead names the user as the topic of X
    topic = zh and zh_grammar.topic_led(doc_text(doc)[clause.start : start])
    # a clause that marks itself as a change ("Update: from now on X"), or says how things
    # are now after a change marker ("X 我换了，现在 Y"), is about the user's own
    # arrangement, whatever its grammatical subject
    changes = bool((CUE_ZH if zh else CUE_EN).search(raw)) or (marked and is_weak(raw))
    if slot is None and not anchors and not owner and not topic and not changes:
        reason = _not_about_user(text, toks, kind, lang, bool(msg.metadata.get("speaker")))
        if reason:
            return _reject(msg, reason, raw.strip())
    # a Fact names the person it is about: the author the metadata names, else "the user"
    subject = author_name(msg.metadata) or (USER_ZH if zh else USER_EN)
    if zh:
        money = _money(doc, start, end)
        content = (
            _template_zh(slot, value or "", money[1] if money else None, subject)
            if (question or request) and slot
            else _wording_zh(text, subject, kind, slot, topic)
        )
    elif slot and make_that_en(_content_tokens(toks)) is not None:
        money = _money(doc, start, end)  # "make that 14 on payment terms": no cue words
        content = _template_en(slot, value or "", money[1] if money else None, subject)
        content = content[:1].upper() + content[1:]
    elif (question or request) and slot:
        money = _money(doc, start, end)
        content = _template_en(slot, value or "", money[1] if money else None, subject)
        content = content[:1].upper() + content[1:]
    else:
        content = _wording_en(doc, start, end, subject, slot, value)
    if zh and (slot or correction):
        content = _CHANGE_ADV_ZH.sub(
            "", content
        )  # "欧洲团队以后默认 Paris" -> "欧洲团队默认 Paris"
    if owner:
        content = _owned(content, owner)
    if named and content.split(" ", 1)[0].lower() in ("they", "it"):
        content = named[0] + " " + content.split(" ", 1)[1]  # "They status-matched me" keeps who
    content = resolve_relative_days(content, msg.timestamp, zh)
    retracts = retracts_zh(text) if zh else retracts_en(_content_tokens(toks))
    changed = bool(slot) and bool((_CHANGE_ZH if zh else _CHANGE_EN).search(text))
    # a marker earlier in the sentence ("Scratch that, …", "X 我换了，…") cues it too
    cue = correction or marked or changed or bool((CUE_ZH if zh else CUE_EN).search(raw))
    correction = (
        correction
        or correction_in_sentence
        or changed
        or bool(retracts)
        or bool((CUE_ZH if zh else CUE_EN).search(raw))
        or bool(msg.metadata.get("correction"))
    )
    ents = entity_refs(doc, start, end)
    span = time_range(text, msg.timestamp, future=kind == "plan")
    t_start, t_end = span if span else (msg.timestamp, msg.timestamp)
    return FactDraft(
        content=content,
        kind=kind,
        source_message_ids=(msg.message_id,),
        time_start=t_start,
        time_end=t_end,
        lang=lang,
        entities=ents,
        labels=_labels(text, kind, slot, ents, correction),
        slot=slot,
        value=value,
        polarity=polarity,
        explicit=True,
        confidence=1.0,
        is_correction=correction,
        cue=cue,
        key=_key(kind, slot, content),
        anchors=anchors,
        retracts=retracts,
    )


_THING_ENTS = {"ORG", "PRODUCT", "FAC", "EVENT"}


def _named_antecedent(doc: Doc, start: int, toks: list[Token]) -> tuple[str] | None:
    """ "They status-matched me …" after "I switched to <an organisation>": "they" is that
    organisation, acting on the user — the clause is the user's, bound to the name."""
    subj = next((t for t in _content_tokens(toks)[:1] if t.lower_ in ("they", "it")), None)
    if subj is None or subj.dep_ not in ("nsubj", "nsubjpass"):
        return None
    if not any(_first_person(t) and t.dep_ in ("dobj", "dative", "pobj") for t in toks):
        return None
    before = [e for e in doc.ents if e.end_char <= start and e.label_ in _THING_ENTS]
    if before:
        return (before[-1].text,)
    # or the last run of proper nouns before the clause that names no person
    run: list[Token] = []
    for t in doc:
        if t.idx >= start:
            break
        if t.pos_ == "PROPN" and t.ent_type_ != "PERSON":
            run = run if run and run[-1].i == t.i - 1 else []
            run.append(t)
    return (doc[run[0].i : run[-1].i + 1].text,) if run else None


def _after_wrapper(doc: Doc, clause: _Piece, start: int, end: int) -> _Piece | None:
    """A request or question to the agent that wraps a statement after a colon: the
    statement's piece ("记一下：…", "Can you note this: …"); None without one."""
    text = doc_text(doc)[start:end]
    cut = min((i for i in (text.find(":"), text.find("：")) if i >= 0), default=-1)
    if cut < 0 or not text[cut + 1 :].strip():
        return None
    return _Piece(start + cut + 1, clause.end, clause.sent, clause.hard)


def _lets(toks: list[Token]) -> bool:
    """A "let's …" suggestion: the speaker's own plan."""
    toks = _content_tokens(toks)
    return len(toks) > 1 and toks[0].lower_ == "let" and toks[1].lower_ in ("'s", "us")


_UNIT_ENTS = {"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "ORDINAL"}
_NAME_ENTS = {"ORG", "GPE", "LOC", "FAC", "PRODUCT", "NORP", "EVENT", "LAW"}
_CONSTRAINT_EN = {"must", "only", "need", "needs", "required", "mandatory"}


def _has_content_en(toks: list[Token]) -> bool:
    """Content a user states about their own matter without saying "I": a number with
    its unit, a named thing, or a constraint (must, only, need, has to)."""
    for i, t in enumerate(toks):
        nxt = toks[i + 1].lower_ if i + 1 < len(toks) else ""
        if t.lower_ in _CONSTRAINT_EN or (t.lower_ in ("has", "have") and nxt == "to"):
            return True
        counted = i + 1 < len(toks) and toks[i + 1].pos_ == "NOUN"
        if t.like_num and t.ent_type_ in _UNIT_ENTS | {""} and (counted or _DIGIT.search(t.text)):
            return True
        if t.ent_type_ in _NAME_ENTS:
            return True
        # "…, no fabric softener": a trailing "no X" the user adds as an instruction
        trailing = i > 0 and toks[i - 1].is_punct
        if t.lower_ == "no" and t.dep_ == "det" and t.head.dep_ == "appos" and trailing:
            return True
    return False


_DIGIT = rx.compile(r"\d")
_DIGITS_OR_LATIN = rx.compile(r"\d|[A-Za-z]{2,}")
_CONSTRAINT_ZH = rx.compile(r"必须|需要|只要|只能|只|尽量|一定要|最好|至少|最多|不要|别")


def _has_content_zh(text: str) -> bool:
    """The same for Chinese: a number, a Latin name, a constraint word or a change verb."""
    return bool(_DIGITS_OR_LATIN.search(text) or _CONSTRAINT_ZH.search(text) or CUE_ZH.search(text))


def _not_about_user(
    text: str, toks: list[Token], kind: Kind, lang: Lang, multi_party: bool
) -> str | None:
    if lang == "zh" or _HAN.search(text):
        first = bool(_FIRST_PERSON_ZH.search(text))
        if not first and (_has_content_zh(text) or zh_grammar.implied_user(text)):
            return None  # the user's own turn: a statement of their matter
        if _SECOND_PERSON_ZH.match(text) and kind in ("fact", "preference", "timeline"):
            return "about the other party, not the user"
        if not first and not _PRED_START_ZH.match(text) and kind == "fact":
            return "no statement about the user"
        if (
            not first
            and kind in ("fact", "timeline", "plan")
            and not any(f[:1] == "v" for _w, f in cut_zh(text))
        ):
            return "small talk: no statement about the user (no verb, no first person)"
        return None
    first = (
        any(_first_person(t) for t in toks)
        or _implied_subject(toks) is not None
        or _lets(toks)
        or _has_content_en(toks)  # the user's own turn: a statement of their matter
        or cg.negative_constraint_en(toks)  # "no X", "nothing with X": what the user avoids
        or cg.coordinated_predicate_en(toks) is not None
    )
    first_subject = any(_first_person(t) and t.dep_ in ("nsubj", "nsubjpass") for t in toks)
    second = any(t.lower_ in ("you", "your", "yours", "u") for t in toks)
    if second and not first_subject and kind in ("fact", "preference", "timeline"):
        return "about the other party, not the user"
    if multi_party and (
        _is_imperative(toks) or _coord_imperative(toks) or cg.negative_constraint_en(toks)
    ):
        return "addressed to the other party, not about the speaker"
    if (
        not first
        and not _is_imperative(toks)
        and (_has_subject(_content_tokens(toks)) or kind in ("fact", "timeline"))
    ):
        return "no statement about the user"
    if not _concrete_en(toks):
        return "no concrete content"
    return None


# --- whose fact: the user's own, stated as true ----------------------------------------------

_CHANGE_EN = _rx(
    r"\b(?:now|instead|no longer|switched|moved|changed|from now on|make that|change it to|"
    r"anymore|new)\b"
)
_CHANGE_ZH = rx.compile(r"改成|换成|改为|改到|换到|变成|不再|现在|搬到|以后|今后|从现在起|新的")
_CHANGE_ADV_ZH = rx.compile(r"从今以后|从现在起|以后|今后")
_THIRD_PRON_EN = {"he", "she", "they", "him", "her", "them"}
_MODALS_EN = {"would", "'d", "might", "could"}
# verbs whose subject is a person: feeling, wanting, saying
_PERSON_VERBS_EN = _LIKE_LEMMAS | _AVOID_LEMMAS | {
    "want", "think", "say", "tell", "keep", "suggest", "recommend", "feel", "believe",
    "wish", "hope", "need", "ask", "insist",
}  # fmt: skip
_HYPO_ZH = rx.compile(r"^(?:要是|假如|万一|假设|倘若|若是|如果.*的话)|的话[，,\s]")
_PERSON_VERBS_ZH = rx.compile(
    r"^(?:也|都|一直|总是|很|最|特别|比较|还|就|不太|不)*(?:喜欢|爱|讨厌|觉得|认为|说|建议|推荐|"
    r"偏好|希望|想|要|让|叫|嫌)"
)
_THIRD_PRON_ZH = ("他", "她", "他们", "她们")


# what stops a Chinese subject noun phrase: its verb, an adverb, a preposition, a number
_NP_STOP_ZH = ("v", "d", "p", "t", "m", "c", "a", "u")


def _people(lang: Lang) -> set[str]:
    return {w.lower() for w in current_pack().people.get(lang, ())}


def _other_person(text: str, toks: list[Token], lang: Lang) -> str | None:
    """A statement whose subject is another person the pack names ("my <person> is on X",
    "楼上<person>家的<person>在学 X"): that person's fact, not the user's. A constraint the
    user states for them ("<person>对 X 过敏") stays the user's to respect; a subject joined
    with the user ("my <person> and I", "我和<person>") is the user's."""
    if lang == "zh" or _HAN.search(text):
        people = _people("zh")
        head, np = "", list[str]()
        for w, f in cut_zh(text):
            if not w.strip() or f == "x":
                continue
            if w in ("的", "家") or f in ("q", "uj"):
                continue
            if (f[:1] in ("n", "r", "j", "s") or (f[:1] == "i" and not np)) and not (
                f[:1] == "r" and np and w not in ("我", "我们")
            ):
                np.append(w)
                head = w
                continue
            break
        if not np or np == ["我"] or np == ["我们"]:
            return None
        person = head in people or (
            head not in ("我", "我们") and any(p in head for p in people if len(p) >= 2)
        )
        owner = [w for w in np if w in people or any(p in w for p in people if len(p) >= 2)]
        if person or (owner and cut_zh(head)[0][1] == "nr"):
            return f"about someone else ({''.join(np)}), not the user"
        return None
    people = _people("en")
    ids = {t.i for t in toks}
    for verb in (t for t in toks if t.head.i not in ids or t.dep_ == "ROOT"):
        subj = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is None or subj.lemma_.lower() not in people:
            return None
        if any(c.dep_ == "conj" and _first_person(c) for c in subj.subtree):
            return None  # "my wife and I"
        return f"about someone else ({subj.text}), not the user"
    return None


def _not_the_users(text: str, toks: list[Token], lang: Lang, slot: bool) -> str | None:
    """Why a clause is not a fact about the user: hypothetical, or someone else's."""
    if lang == "zh" or _HAN.search(text):
        return _not_the_users_zh(text, slot)
    for t in toks:
        if t.dep_ == "mark" and t.lower_ == "if":
            cond = t.head
            main = cond.head if cond.dep_ == "advcl" else cond
            if (
                any(c.lower_ == "ever" for c in cond.children)
                or cond.lower_ == "were"
                or any(c.lower_ in _MODALS_EN for c in main.children if c.dep_ == "aux")
                or cg.possibility_en(main)
            ):
                return "hypothetical (conditional), not a fact about the user"
    ids = {t.i for t in toks}
    mains = [t for t in toks if t.head.i not in ids or t.dep_ == "ROOT"]
    for verb in mains:
        subj = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is None:
            continue
        if _first_person(subj):
            wish = verb.lemma_ in ("hope", "wish")
            comp = next((c for c in verb.children if c.dep_ == "ccomp"), None)
            inner = next((c for c in comp.children if c.dep_ == "nsubj"), None) if comp else None
            if wish and inner is not None and not _first_person(inner):
                return "a wish about someone else, not a fact about the user"
            return None
        person = (
            subj.lower_ in _THIRD_PRON_EN
            or subj.ent_type_ == "PERSON"
            or any(c.dep_ == "appos" and c.pos_ == "PROPN" for c in subj.children)
        )
        owned_agent = (
            not slot
            and subj.pos_ == "NOUN"
            and any(c.dep_ == "poss" for c in subj.children)
            and (
                verb.lemma_ in _PERSON_VERBS_EN
                or any(t.lower_ in _THIRD_PRON_EN | {"his", "their"} for t in toks)
            )
        )
        if person or owned_agent:
            return f"about someone else ({subj.text}), not the user"
        return None
    return None


def _not_the_users_zh(text: str, slot: bool) -> str | None:
    if _HYPO_ZH.search(text) or zh_grammar.speculative(text) or cg.hypothetical_zh(text):
        return "hypothetical (conditional), not a fact about the user"
    words = [(w, f) for w, f in cut_zh(text) if w.strip()]
    if words and words[0][0] in _THIRD_PRON_ZH:
        return f"about someone else ({words[0][0]}), not the user"
    if slot or len(words) < 3 or words[0][0] not in ("我", "我们"):
        return None
    i = 1 + (words[1][0] == "的")
    nouns = []
    while i < len(words) and words[i][1][:1] in ("n", "r") and words[i][0] not in ("我", "自己"):
        nouns.append(words[i][0])
        i += 1
        if i < len(words) and words[i][0] == "的":
            i += 1
    if not nouns:
        return None
    rest = "".join(w for w, _f in words[i:])
    if _PERSON_VERBS_ZH.match(rest) or any(w in _THIRD_PRON_ZH for w, _f in words[i:]):
        return f"about someone else ({''.join(nouns)}), not the user"
    return None


# "X改了，换成Y": the attribute named in a clause of its own, the value in the next one
_CHANGED_ZH = rx.compile(
    r"^(?P<attr>[^，,。；;！!？?\s]{2,12}?)(?:也|都|又|已经)?(?:改了|变了|换了|调整了|有变(?:化)?|变动了)$"
)
_OPENS_WITH_CHANGE_ZH = rx.compile(
    r"^(?:也|都|又|已经|就)?(?:换成|改成|改为|改到|换到|调成|调到|改在|挪到)"
)


def _carry(draft: FactDraft, attr: str, text: str) -> FactDraft:
    """A change clause without its attribute, given the one the previous clause named."""
    found = slot_zh(attr + text)
    slot = draft.slot or (found.key if found else None)
    content = attr + draft.content
    return replace(
        draft,
        content=content,
        slot=slot,
        value=draft.value or (found.value if found else None),
        key=_key(draft.kind, slot, content),
    )


def _owned(content: str, owner: str) -> str:
    """A further statement given the owner its sentence opened with: "W 在 V" after "我们 X 的
    A 是 Z" -> "我们 X 的 W 在 V" (worded like the fact itself)."""
    who = _I_ZH.sub(USER_ZH, _WE_ZH.sub(f"{USER_ZH}等人", owner))
    left = " " if who[-1:].isascii() and who[-1:].isalnum() else ""
    right = " " if content[:1].isascii() and content[:1].isalnum() else ""
    return f"{who}{left}的{right}{content}"


def _extract_doc(msg: MessageRecord, doc: Doc, lang: Lang) -> Extraction:
    by_key: dict[str, FactDraft] = {}
    rejections: list[Rejection] = []
    corrected_sents: set[int] = set()
    marked: set[int] = set()  # sentences with a clause that is only a change marker
    carried: str | None = None
    owner: tuple[int, str | None] = (-1, None)  # (sentence, the user's thing it opened with)
    for clause in _clauses(doc, lang):
        owned = None
        stripped = _strip(doc, clause.start, clause.end, lang)
        if lang == "zh":
            bare = stripped[2]
            if owner[0] != clause.sent:
                found = cg.possessor_zh(bare)
                owner = (clause.sent, found if found and _FIRST_PERSON_ZH.match(found) else None)
            elif owner[1] and cg.bare_subject_zh(bare):
                owned = owner[1]
        result = _analyse(
            msg, doc, lang, clause, clause.sent in corrected_sents, owned, clause.sent in marked
        )
        if lang == "zh":
            text = _TRAIL.sub("", doc_text(doc)[clause.start : clause.end].strip())
            if isinstance(result, FactDraft) and carried and _OPENS_WITH_CHANGE_ZH.match(text):
                result = _carry(result, carried, text)
            named = _CHANGED_ZH.match(text)
            carried = named.group("attr") if named else None
        else:
            named = None
        if isinstance(result, FactDraft) and named and not result.slot:
            result = True  # "X 我换了，现在 Y": the clause only says that X changed
        if result is True or stripped[3]:
            marked.add(clause.sent)  # "Scratch that, …": the rest of it is a change
        if result is True:
            corrected_sents.add(clause.sent)  # a bare "更正：" / "Correction:" piece
        elif isinstance(result, FactDraft):
            if result.is_correction:
                corrected_sents.add(clause.sent)
            by_key[result.key] = result  # a later clause on the same slot wins
        elif isinstance(result, Rejection):
            rejections.append(result)
    return Extraction(facts=tuple(by_key.values()), rejections=tuple(rejections))


def _precheck(msg: MessageRecord) -> Extraction | None:
    if msg.role != "user":
        reason = (
            f"{msg.role} turn: only user turns give user facts"
            if msg.role != "event"
            else "behaviour event: handled by extract_events"
        )
        return Extraction(facts=(), rejections=(_reject(msg, reason),))
    if not msg.content.strip():
        return Extraction(facts=(), rejections=(_reject(msg, "empty message"),))
    if other_speaker(msg):
        reason = "said by another speaker, not the user"
        return Extraction(facts=(), rejections=(_reject(msg, reason),))
    return None


def other_speaker(msg: MessageRecord) -> bool:
    """The metadata names a speaker who is not the user (``"self": true`` says it is)."""
    speaker = msg.metadata.get("speaker")
    return bool(speaker) and msg.metadata.get("self") is not True and speaker != msg.user_id


def extract_chat(msg: MessageRecord, en_nlp: Language, zh_nlp: Language) -> Extraction:
    """Facts from one chat turn; deterministic (same message -> equal Extraction)."""
    early = _precheck(msg)
    if early is not None:
        return early
    text = msg.content.strip()
    lang = detect_lang(text, default=msg.lang)
    doc = (zh_nlp if lang == "zh" else en_nlp)(text)
    return _extract_doc(msg, doc, lang)


def extract_chats(
    msgs: Sequence[MessageRecord],
    en_nlp: Language,
    zh_nlp: Language,
    batch_size: int = 64,
    n_process: int = 1,
) -> list[Extraction]:
    """``extract_chat`` over many turns, parsing with ``nlp.pipe``; results in input order."""
    results: list[Extraction | None] = [_precheck(m) for m in msgs]
    for lang, nlp in (("en", en_nlp), ("zh", zh_nlp)):
        todo = [
            i
            for i, m in enumerate(msgs)
            if results[i] is None and detect_lang(m.content.strip(), default=m.lang) == lang
        ]
        texts = (msgs[i].content.strip() for i in todo)
        for i, doc in zip(
            todo, nlp.pipe(texts, batch_size=batch_size, n_process=n_process), strict=True
        ):
            results[i] = _extract_doc(msgs[i], doc, "zh" if lang == "zh" else "en")
    log.debug("extracted %d chat turns", len(msgs))
    return [r if r is not None else Extraction(facts=()) for r in results]


__all__ = ["SLOT_KIND", "extract_chat", "extract_chats"]
