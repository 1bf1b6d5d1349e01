"""Corrections, completed (issue 37, item 4): going back to an earlier value, a partial
change that keeps the rest, an updated quantity inside a multi-attribute Fact, and a life
change that retires the Facts it ends. Sentences of domains of their own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from extract.conflicts import Claim, Known, conflicts, restorations, returns

T0 = datetime(2026, 4, 1, 9, tzinfo=UTC)
NEAR = [1.0, 0.1, 0.0]
ALSO_NEAR = [1.0, 0.15, 0.05]


def known(fid: str, content: str, days: int = 0, **kw: Any) -> Known:
    args: dict[str, Any] = dict(polarity="neutral", slot=None, embedding=NEAR)
    args.update(kw)
    return Known(
        fid, content, "fact", valid_from=T0 + timedelta(days=days), sources=(f"m-{fid}",), **args
    )


def claim(content: str, days: int = 9, **kw: Any) -> Claim:
    args: dict[str, Any] = dict(polarity="neutral", slot=None, correction=True)
    args.update(kw)
    return Claim(
        "new", content, "fact", args.pop("polarity"), args.pop("slot"),
        T0 + timedelta(days=days), ALSO_NEAR, ("m-new",), args.pop("correction"), **args,
    )  # fmt: skip


# --- 1. back to an earlier value -------------------------------------------------------------


def test_return_cues() -> None:
    for text in (
        "The choir rehearsal went back to Tuesdays",
        "Let's go back to the Riverside gym",
        "Actually, change it back",
        "The user's standup is at 9 as before",
        "周会还是改回周一上午吧",
        "还是按原来的时间",
    ):
        assert returns(text), text
    assert not returns("The user came back from Lisbon yesterday full of ideas")


def test_back_to_a_replaces_b_and_is_worded_as_a() -> None:
    a = "The user's choir rehearsal is on Tuesdays"
    b = known("b", "The user's choir rehearsal moved to Thursdays", 3, previous=a)
    new = claim("The choir rehearsal went back to Tuesdays")
    replaces = conflicts([new], [b], threshold=0.8)
    assert replaces == {"new": "b"}
    assert restorations([new], [b], replaces) == {"new": a}


def test_back_to_another_value_keeps_its_own_wording() -> None:
    a = "The user's choir rehearsal is on Tuesdays"
    b = known("b", "The user's choir rehearsal moved to Thursdays", 3, previous=a)
    new = claim("The choir rehearsal went back to Saturdays")
    assert restorations([new], [b], {"new": "b"}) == {}


def test_a_return_without_a_value_restores_the_replaced_one() -> None:
    a = "用户的周会在周一上午"
    b = known("b", "周会改到周三下午", 3, slot="周会", previous=a)
    new = claim("周会还是改回去吧", slot="周会")
    # on one slot the write supersedes B; the wording comes from what B replaced
    assert restorations([new], [b], {}) == {"new": a}


def test_no_earlier_value_no_restoration() -> None:
    b = known("b", "The user's choir rehearsal moved to Thursdays", 3)
    new = claim("The choir rehearsal went back to Tuesdays")
    assert restorations([new], [b], {"new": "b"}) == {}
