"""The LoCoMo content check's word matching (bench/locomo_extract.py)."""

from __future__ import annotations

from bench.locomo_extract import content_words, shares_content, stem


def test_stem_meets_word_families() -> None:
    assert {stem(w) for w in ("paint", "painted", "painting", "paints")} == {"paint"}
    assert stem("loved") == stem("love") == stem("loves")
    assert stem("running") == "run" and stem("studies") == "study" and stem("class") == "class"


def test_content_words_drop_stop_words_speakers_and_user() -> None:
    words = content_words("The user's sister Caroline painted a lake sunrise!", ["Caroline"])
    assert words == {"sister", "paint", "lak", "sunris"}


def test_shares_content_is_measured_on_the_reference() -> None:
    obs = content_words("Melanie ran a charity race for mental health last Saturday", ["Melanie"])
    whole = content_words("Melanie ran a charity race for mental health last Saturday.")
    part = content_words("Melanie ran a race")
    assert shares_content(obs, whole)
    assert not shares_content(obs, part)  # 2 of 7 observation words
    assert shares_content(part - {"melani"}, obs)  # the fact's own words are all in it
    assert not shares_content(set(), whole)


def test_fair_baseline_helpers() -> None:
    from bench.locomo import answer_in, budget_context, named, rrf, sessions_of

    assert named({"content": "hi", "metadata": {"speaker": "Mel"}}) == "Mel: hi"
    # fusion: an item high in both lists beats one that tops a single list
    assert rrf([["a", "b", "c"], ["b", "c", "a"]])[0] == "b"
    assert answer_in("7 May, 2023", "- [x] Mel: it was on 7 may 2023.")
    assert not answer_in("May 2023", "- [x] Mel: 17 May 20234")
    lines = {"a": "- [a] one two three", "b": "- [b] four", "c": "- [c] five six"}
    assert budget_context(["a", "b", "c"], lines, 8) == "- [a] one two three\n- [b] four"
    assert sessions_of(["conv-1:D3:5", "conv-1:D3:9", "conv-1:D12:1"]) == {
        "conv-1:D3",
        "conv-1:D12",
    }
