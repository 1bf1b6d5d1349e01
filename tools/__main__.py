"""`python -m tools`: the developer's commands (a checkout only; not installed with the wheel).

python -m tools neo4j start|stop|status   the dev Neo4j on GUMEM_DEV_* ports and home
python -m tools models prepare [--force]  the embedding model directory the runtime loads
python -m tools serve                     the dev Neo4j, then `gumem serve` against it
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from core.errors import GumemError
from core.settings import Settings, get_settings


def browser_conf(settings: Settings) -> dict[str, str]:
    """Neo4j Browser applies GUMem's style sheet and guide (served by the API) on connect.

    Browser runs in the user's web browser and fetches both from the API itself, so a
    wildcard listen address is replaced by 127.0.0.1, and that host must be on Browser's
    allowlist (which holds hostnames only). Setting names as in Neo4j 5.26 and Browser 5.x.
    """
    host = "127.0.0.1" if settings.host in ("", "0.0.0.0", "::") else settings.host
    netloc = f"[{host}]" if ":" in host else host
    base = f"http://{netloc}:{settings.port}/browser"
    return {
        "browser.post_connect_cmd": f"style {base}/gumem.grass; play {base}/guide.html",
        "browser.remote_content_hostname_whitelist": f"{netloc},localhost",
    }


def ensure_neo4j(settings: Settings) -> str:
    """Start the dev Neo4j unless GUMEM_NEO4J_URI points to one; returns the Bolt URI."""
    if settings.neo4j_uri:
        return settings.neo4j_uri
    from tools import neo4j_dev

    server = neo4j_dev.start(
        settings.dev_home,
        settings.dev_bolt_port,
        settings.dev_http_port,
        settings.neo4j_password.get_secret_value(),
        extra_conf=browser_conf(settings),
    )
    return server.bolt_uri


def cmd_neo4j(args: argparse.Namespace, settings: Settings) -> int:
    from tools import neo4j_dev

    if args.action == "start":
        uri = ensure_neo4j(settings)
        print(f"Neo4j running: {uri}  Browser: http://127.0.0.1:{settings.dev_http_port}/browser/")
        return 0
    if args.action == "stop":
        stopped = neo4j_dev.stop(settings.dev_home)
        print("stopped" if stopped else "not running")
        return 0
    server = neo4j_dev.status(settings.dev_home)
    if server is None:
        print("not running")
        return 1
    print(f"running pid={server.pid} bolt={server.bolt_uri} http={server.http_url}")
    return 0


def cmd_models(args: argparse.Namespace, settings: Settings) -> int:
    from tools.modelprep import prepare

    path = prepare(settings.model_cache, force=args.force)
    print(f"embedding model ready: {path}")
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from doors import cli

    uri = ensure_neo4j(settings)
    if not settings.neo4j_uri:
        print(
            f"Neo4j Browser: http://127.0.0.1:{settings.dev_http_port}/browser/ "
            f"(user neo4j, password from GUMEM_NEO4J_PASSWORD)"
        )
    return cli.cmd_serve(args, settings.model_copy(update={"neo4j_uri": uri}))


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m tools",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("neo4j", help="the development Neo4j (from Maven Central)")
    p.add_argument("action", choices=["start", "stop", "status"])
    p.set_defaults(func=cmd_neo4j)
    p = sub.add_parser("models", help="prepare the offline embedding model")
    p.add_argument("action", choices=["prepare"])
    p.add_argument("--force", action="store_true")
    p.set_defaults(func=cmd_models)
    p = sub.add_parser("serve", help="the dev Neo4j, then `gumem serve` against it")
    p.set_defaults(func=cmd_serve)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("neo4j").setLevel(logging.WARNING)  # its DEBUG lines carry parameters
    try:
        return int(args.func(args, get_settings()))
    except GumemError as exc:
        print(f"tools: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
