"""The cue words and patterns of chat fact extraction (facts.py): discourse markers,
chit-chat, questions, kinds, slots and anchors, English and Chinese.
"""

from __future__ import annotations

from extract.chat import zh_grammar
from extract.types import Kind
from packs import Pack, PackPattern
from text import rx

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
# 呢 ends a question only with a question word before it, or after a bare topic ("那 X 呢");
# after a statement ("X 在 Y 工作呢") it only softens it
_QUESTION_ZH = rx.compile(
    r"(?:吗|么)$|^(?:请问|能不能|可不可以|有没有|是否|为什么|怎么|如何|哪)"
    r"|(?:什么|哪|谁|怎|多少|几|为何|是不是|有没有|要不要|还是|如何|多大|多久|多远).*呢$"
    r"|^[^，,\s]{1,5}呢$"
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


# occupation words come from the domain packs (packs/, "jobs")
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
    r"sometimes|rarely|seldom|daily|weekly|on weekends|most days|frequently|routinely|"
    r"every (?:other )?(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"on (?:mon|tues|wednes|thurs|fri|satur|sun)days|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day (?:mornings|afternoons|evenings|nights)|"
    r"(?:once|twice|\w+ times) a (?:day|week|fortnight|month|year))\b"
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
