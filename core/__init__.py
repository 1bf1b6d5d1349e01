"""The bottom of the house: what every other room shares and nothing of the project's own.

- ``core.errors``: the one exception family (``GumemError`` and its kinds);
- ``core.settings``: the one ``Settings`` object (``GUMEM_*`` environment), read once;
- ``core.inputs``: incoming Messages validated at the service's edge (``MessageIn``) and the
  checks every caller shares (ids, tenant, text, times).

``core`` imports no other package of GUMem (tests/unit/test_layers.py holds it to that);
``extract``, ``graph``, the service (``gumem``) and ``api`` all build on it.
"""
