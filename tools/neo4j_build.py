"""The launcher of the development Neo4j (``tools/neo4j-dev``), built with Maven.

``dev.gumem.Neo4jDev`` runs an embedded Neo4j DBMS from Maven Central artifacts; :func:`build`
packages it once (``mvn -q -B package``) and rebuilds only when ``pom.xml`` or a source is
newer than the jar. :mod:`tools.neo4j_dev` starts and stops it.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import time
import zipfile
from pathlib import Path

from tools.locking import flock

DEFAULT_TOOLS_DIR = Path(__file__).resolve().parent / "neo4j-dev"
JAR_NAME = "neo4j-dev.jar"


class Neo4jDevError(Exception):
    """The development Neo4j could not be built, started, or stopped. Never carries secrets."""


def find_java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("java")
    if found is None:
        raise Neo4jDevError("Java not found (need Java 17+ on PATH or in JAVA_HOME)")
    return found


def jar_path(tools_dir: Path) -> Path:
    return tools_dir / "target" / JAR_NAME


def _manifest_classpath(jar: Path) -> list[str]:
    """The Class-Path entries of the launcher jar's manifest (relative to the jar)."""
    with zipfile.ZipFile(jar) as zf:
        text = zf.read("META-INF/MANIFEST.MF").decode("utf-8")
    # Manifest lines are wrapped at 72 bytes; continuation lines start with one space.
    unwrapped = re.sub(r"\r?\n ", "", text)
    for line in unwrapped.splitlines():
        if line.startswith("Class-Path:"):
            return line.split(":", 1)[1].split()
    return []


def _sources(tools_dir: Path) -> list[Path]:
    files = [tools_dir / "pom.xml"]
    src = tools_dir / "src"
    if src.is_dir():
        files.extend(p for p in src.rglob("*") if p.is_file())
    return files


def is_built(tools_dir: Path) -> bool:
    """True if the jar is newer than pom.xml and every source, and all its libs are there."""
    jar = jar_path(tools_dir)
    try:
        jar_mtime = jar.stat().st_mtime_ns
        if any(p.stat().st_mtime_ns > jar_mtime for p in _sources(tools_dir)):
            return False
        entries = _manifest_classpath(jar)
    except (OSError, KeyError, zipfile.BadZipFile):
        return False
    return bool(entries) and all((jar.parent / e).is_file() for e in entries)


def build(tools_dir: Path = DEFAULT_TOOLS_DIR, log: Path | None = None) -> Path:
    """Build the launcher (``mvn -q -B package``) unless it is up to date; return its jar.

    The jar's manifest puts ``target/lib/*.jar`` (every dependency) on the class path, so
    ``java -cp <jar> dev.gumem.Neo4jDev`` is enough. The Maven output goes to ``log``
    (default ``target/build.log``).
    """
    logger = logging.getLogger(__name__)  # the parameter ``log`` shadows the module logger
    tools_dir = tools_dir.resolve()
    if not (tools_dir / "pom.xml").is_file():
        raise Neo4jDevError(f"no pom.xml in {tools_dir}")
    build_log = (log or tools_dir / "target" / "build.log").resolve()
    jar = jar_path(tools_dir)
    if is_built(tools_dir):
        return jar
    with flock(tools_dir / "target" / ".build.lock"):
        if is_built(tools_dir):  # built meanwhile by another process
            return jar
        find_java()
        mvn = shutil.which("mvn")
        if mvn is None:
            raise Neo4jDevError("Maven (mvn) not found on PATH; it is needed to build the launcher")
        build_log.parent.mkdir(parents=True, exist_ok=True)
        cmd = [mvn, "-q", "-B", "-Dstyle.color=never", "package"]
        logger.info("building the Neo4j dev launcher in %s (log: %s)", tools_dir, build_log)
        t0 = time.monotonic()
        with build_log.open("w") as out:
            try:
                rc = subprocess.call(
                    cmd, cwd=tools_dir, stdin=subprocess.DEVNULL, stdout=out, stderr=out
                )
            except OSError as exc:
                raise Neo4jDevError(f"cannot run Maven: {exc}; see {build_log}") from exc
        if rc != 0:
            raise Neo4jDevError(
                f"building the Neo4j dev launcher failed (mvn exit {rc}); see {build_log}"
            )
        if not jar.is_file():
            raise Neo4jDevError(f"Maven finished but {jar} is missing; see {build_log}")
        os.utime(jar)  # the jar plugin leaves an unchanged jar alone: mark it as fresh
        if not is_built(tools_dir):
            raise Neo4jDevError(
                f"launcher built but its dependencies are incomplete in "
                f"{jar.parent / 'lib'}; see {build_log}"
            )
        logger.info("built the Neo4j dev launcher in %.1f s", time.monotonic() - t0)
    return jar
