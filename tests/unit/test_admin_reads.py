"""`gumem show`'s lookup order (graph/admin_reads.py) and its command line."""

from __future__ import annotations

import argparse

from doors.cli import parser
from graph.admin_reads import NODE_KINDS, kinds_to_try


def test_kinds_to_try_follows_the_id_prefixes_then_message() -> None:
    assert kinds_to_try("f_0a1b") == ("Fact", "Message")
    assert kinds_to_try("s_0a1b") == ("Summary", "Message")
    assert kinds_to_try("t_0a1b") == ("Topic", "Message")
    assert kinds_to_try("m1") == ("Message",)
    assert kinds_to_try("f_0a1b", "Message") == ("Message",)


def test_show_command_offers_the_kinds_the_graph_reads() -> None:
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    show = sub.choices["show"]
    kind = next(a for a in show._actions if a.dest == "kind")
    assert tuple(kind.choices or ()) == NODE_KINDS
    args = parser().parse_args(["show", "f_1", "--tenant", "t", "--kind", "Fact", "--json"])
    assert (args.id, args.tenant, args.kind, args.json) == ("f_1", "t", "Fact", True)
