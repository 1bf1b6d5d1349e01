"""The closed-class words a short answer is read with (answers.py): yes and no, hedges and
particles, question tags and wh-words, list markers and ordinals, the people a question
names, English and Chinese."""

from __future__ import annotations

from text import rx

_YES_EN = rx.compile(
    r"(?i)^(?:yes|yeah|yep|yup|sure|ok|okay|of course|definitely|absolutely|certainly|"
    r"please do|please|right|correct|exactly|indeed|always|that's right|sounds good)\b"
)
_NO_EN = rx.compile(
    r"(?i)^(?:no|nope|nah|not really|not at all|not now|never|don't|do not|"
    r"i don't think so|no thanks|no thank you)\b"
)
_YES_ZH = rx.compile(
    r"^(?:是的|是啊|是呀|对的|对啊|对呀|没错|好的|好啊|好呀|可以|当然|需要|行啊|行|"
    r"要的|要|对|是|好|嗯嗯|嗯)"
)
_NO_ZH = rx.compile(r"^(?:不是|不用|不要|不需要|不必|不对|没有|不了|算了|不行|别|没|不)")
# a Chinese yes/no question: V不V ("要不要", "是不是", "能不能") or a final 吗
_YES_NO_Q_ZH = rx.compile(
    r"(要不要|是不是|能不能|可不可以|会不会|有没有|需不需要|想不想|用不用|好不好|对不对)|吗[？?]?\s*$"
)
_NOT_YES_ZH = rx.compile(r"^(?:不错|要不|好像|是不是|对不对|可以吗|行不行)")
# yes-words, politeness and intensifiers: never an adverb the answer adds
_PLAIN_EN = {
    "yes", "yeah", "yep", "yup", "sure", "ok", "okay", "definitely", "absolutely",
    "certainly", "please", "right", "correct", "exactly", "indeed", "course", "of", "that",
    "sounds", "good", "thanks", "thank", "you", "so", "very", "too", "just", "do", "'s",
}  # fmt: skip
# hedges and particles around a value
_HEDGE_EN = rx.compile(
    r"(?i)^(?:(?:um+|uh+|hmm+|well|maybe|perhaps|probably|i think|i guess|i'd say|"
    r"i would say|i suppose|let's say|say|ideally)\b[\s,]*){1,3}"
)
_HEDGE_TAIL_EN = rx.compile(
    r"(?i)(?:[\s,]+(?:i think|i guess|i'd say|i suppose|probably|maybe|please|thanks|"
    r"or so|is fine|would be fine|would be great|works))+[\s.!?]*$"
)
_HEDGE_ZH = rx.compile(r"^(?:嗯+|呃+|额+|哦+|噢+|啊+|那就|那|就|我觉得|我看|我想想|感觉|应该)+")
_HEDGE_TAIL_ZH = rx.compile(
    r"(?:就行了|就行|就好了|就好|就可以了|就可以|即可|吧|啊|呀|哦|啦|哈|呢|嘛|了吧)+$"
)
_THANKS = rx.compile(r"(?i)谢谢|多谢|thanks|thank you|了")
_PUNCT = rx.compile(r"^[\s,，。.!！?？;；:：~～…、]+|[\s,，。.!！?？;；:：~～…、]+$")
# a question's tail that only asks for confirmation ("…, right?", "…，对吧？")
_TAG_EN = rx.compile(
    r"(?i)[\s,]+(?:right|correct|is that right|is that correct|isn't it|aren't you|don't you|"
    r"yes|no|or not)\s*$"
)
_TAG_ZH = rx.compile(r"[，,]?(?:对吧|是吧|对不对|是不是|好吗|可以吗|行吗|对吗|是吗|吗|吧|呢|么)$")
_WH_ZH = rx.compile(
    r"什么时候|什么样|多长时间|多久|多远|多大|多高|多长|多重|多少|几点|几|哪里|哪儿|哪个|哪些|"
    r"哪种|哪家|哪天|哪|谁|怎么样|怎样|怎么|如何|什么"
)
_ASK_LEAD_ZH = rx.compile(r"^(?:请问|那么|那|好的|好|嗯)+")
# the assistant acting for the user ("我帮您", "给您"): the user's matter, done for them
_FOR_YOU_ZH = rx.compile(r"(?:我们|咱们|我)?(?:可以|来|能|先)?(?:帮|给|为|替)(?:您们|你们|您|你)")
_SELF_ZH = rx.compile(r"^(?:我们|我)(?:可以|来|能|先|要)?")
_YOU_ZH = rx.compile(r"您们|你们|您|你")
_ALT_ZH = "还是"
_ORDINAL_EN = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3,
    "4th": 4, "5th": 5, "former": 1, "last": -1, "latter": -1,
}  # fmt: skip
_PICK_EN = rx.compile(
    r"(?i)(?:option|number|no\.?|#|choice|pick|take)\s*(?P<n>\d{1,2})\b|^(?P<d>\d{1,2})\s*[.!]?$"
)
_ZH_DIGITS = "一二三四五六七八九十"
_ZH_NUMERALS = "零一二两三四五六七八九十百千万半几"
_PICK_ZH = rx.compile(
    r"第\s*(?P<n>[一二三四五六七八九十\d]{1,2})|(?P<q>[一二三四五六七八九十\d]{1,2})\s*号|"
    r"选\s*(?P<s>[一二三四五六七八九十\d]{1,2})|(?P<first>前者|前一个)|"
    r"(?P<last>后者|后一个|最后一个|最后那个)"
)
# list markers: "1. X", "2) Y", "A、Z", "①", at a line's start, after a space or after the
# punctuation that ends the option before ("；2. Y")
_MARKER = rx.compile(
    r"(?:^|[\n\s：:；;，,。])(?P<label>\d{1,2}|[A-Ha-h]|[①②③④⑤⑥⑦⑧⑨])(?:[.)、：:）]|\s*[)）])\s*"
)
_CIRCLED = "①②③④⑤⑥⑦⑧⑨"
_OPTION_END = rx.compile(r"[\n？?！!。；;]|\.\s")
_SENT_END = rx.compile(r"[。！!？?\n]")
_CLAUSE = rx.compile(r"[，,；;]")
_WORD = rx.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")
USER_EN = "the user"
USER_ZH = "用户"
ASSISTANT_EN = "the assistant"
MAX_ANSWER_EN = 12  # words: longer turns state something of their own
MAX_ANSWER_ZH = 24  # characters
_SELF_EN = {"i", "me", "we", "us", "my", "our", "myself", "ourselves"}
_YOU_EN = {"you", "your", "yours", "yourself", "yourselves", "u"}
_WH_TAGS = {"WDT", "WP", "WP$", "WRB"}
_STATE_EN = {"be", "do", "go", "feel"}  # "how are you", "how did it go": small talk
_ASKS_USER = {"can", "could", "will"}  # "Can you …?": a request to the user, not about them
# frequency adverbs that stand before the verb ("always wants"); others go after it
_FREQUENCY = {"always", "never", "often", "usually", "sometimes", "seldom", "rarely", "normally"}
_CONTRACTED = {"'s": "is", "'re": "are", "'d": "would", "'ll": "will", "'ve": "have", "'m": "am"}
_HELP_EN = {"do", "help", "assist"}  # light verbs of an offer of help
# "有什么可以帮您", "您需要我做什么": the assistant offers help (light verbs, closed class)
_OFFER_ZH = rx.compile(r"什么(?:可以|能|需要|要)?(?:帮|为|给|效劳)|(?:做|干|办|帮)(?:些|点)?什么")
