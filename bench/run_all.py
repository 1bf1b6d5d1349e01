"""All three benchmarks at a size that finishes in about 15 minutes on a 2-core machine.

Each benchmark starts and stops its own private Neo4j (or uses --neo4j-uri). Results go
to bench/results/{ingest,recall,locomo}.json and a combined bench/results/all.json.
Bigger runs: --ingest-messages 20000 --recall-sizes 10000,100000 --locomo-conversations 0.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from bench import ingest, locomo, recall
from bench.common import RESULTS, log, machine, write_json


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ingest-messages", type=int, default=1000)
    p.add_argument("--ingest-users", type=int, default=50)
    p.add_argument("--profile-messages", type=int, default=300)
    p.add_argument("--recall-sizes", default="1000,2000")
    p.add_argument("--recall-users", type=int, default=1000)
    p.add_argument("--recall-queries", type=int, default=100)
    p.add_argument("--locomo", default=str(locomo.DEFAULT_DATA))
    p.add_argument("--locomo-conversations", type=int, default=1, help="0: all")
    p.add_argument("--skip", default="", help="comma list of ingest,recall,locomo")
    p.add_argument("--neo4j-uri")
    p.add_argument("--neo4j-password")
    p.add_argument("--out-dir", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    if "locomo" not in skip and not Path(args.locomo).is_file():
        raise SystemExit(
            f"LoCoMo data not found at {args.locomo}: give its path (make bench LOCOMO=<path>, "
            "--locomo <path>) or --skip locomo"
        )
    common = []
    if args.neo4j_uri:
        common = ["--neo4j-uri", args.neo4j_uri]
        if args.neo4j_password:
            common += ["--neo4j-password", args.neo4j_password]
    out: dict[str, Any] = {"machine": machine()}
    t0 = time.perf_counter()
    if "ingest" not in skip:
        out["ingest"] = ingest.main(
            [
                *common,
                "--messages",
                str(args.ingest_messages),
                "--users",
                str(args.ingest_users),
                "--profile-messages",
                str(args.profile_messages),
                "--out",
                str(args.out_dir / "ingest.json"),
            ]
        )
    if "recall" not in skip:
        out["recall"] = recall.main(
            [
                *common,
                "--sizes",
                args.recall_sizes,
                "--users",
                str(args.recall_users),
                "--queries",
                str(args.recall_queries),
                "--out",
                str(args.out_dir / "recall.json"),
            ]
        )
    if "locomo" not in skip:
        out["locomo"] = locomo.main(
            [
                *common,
                "--data",
                args.locomo,
                "--conversations",
                str(args.locomo_conversations),
                "--out",
                str(args.out_dir / "locomo.json"),
            ]
        )
    out["seconds"] = time.perf_counter() - t0
    write_json(args.out_dir / "all.json", out)
    log(f"all benchmarks done in {out['seconds'] / 60:.1f} min")


if __name__ == "__main__":
    main()
