"""The configuration of a development Neo4j: the ``neo4j`` user, its password (the environment
variable it comes in, the minimum length), the default heap and the JVM options, and the
checks of ports, raw Neo4j settings and heap sizes that :func:`tools.neo4j_dev.start` runs."""

from __future__ import annotations

import re
from collections.abc import Mapping

from tools.neo4j_build import Neo4jDevError

PASSWORD_ENV = "NEO4J_DEV_PASSWORD"
MIN_PASSWORD_LENGTH = 8
USER = "neo4j"

DEFAULT_HEAP = "1g"

# As in Neo4j's own neo4j.conf (server.jvm.additional) for Java 17, plus java.lang.
JVM_OPTS: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)


CONF_KEY = re.compile(r"^[A-Za-z0-9_.\-]+$")
HEAP = re.compile(r"^[1-9][0-9]*[kKmMgG]?$")


def validate_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise Neo4jDevError(
            f"the Neo4j password must have at least {MIN_PASSWORD_LENGTH} characters"
        )


def validate_port(name: str, port: int) -> None:
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise Neo4jDevError(f"{name} must be a port number 1-65535, got {port!r}")


def validate_conf(extra_conf: Mapping[str, str]) -> None:
    for key, value in extra_conf.items():
        if not CONF_KEY.match(key):
            raise Neo4jDevError(f"bad Neo4j setting name: {key!r}")
        if "\n" in value or "\r" in value:
            raise Neo4jDevError(f"the value of Neo4j setting {key} has a line break")
