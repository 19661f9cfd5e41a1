"""uuidkit: every UUID of RFC 9562, for Python.

The standard library's ``uuid`` generators with the same names, signatures and
results (``uuid.UUID`` objects, built without parsing), and all of uuidkit: v7 by
method and at a given time, v8 layouts, v1 <-> v6, strict parsing and eight text
forms, the text of a new UUID with no ``uuid.UUID`` in between (``uuid7_str()``,
``uuid7_str_many(n)``, ...), batches with the GIL released, one v7 order across threads, and state shared
across processes through a state file (``UUIDKIT_STATE``) or ``uuidkitd``
(``UUIDKIT_DAEMON``).

>>> import uuid, uuidkit
>>> u = uuidkit.uuid7()
>>> type(u) is uuid.UUID and u.version == 7
True
>>> uuidkit.uuid7() > u
True
"""

from uuid import (
    RESERVED_FUTURE,
    RESERVED_MICROSOFT,
    RESERVED_NCS,
    RFC_4122,
    UUID,
    SafeUUID,
)

from uuidkit._uuidkit import (
    FORMS,
    LAYOUTS,
    MAX,
    METHODS,
    NAMESPACE_DNS,
    NAMESPACE_OID,
    NAMESPACE_URL,
    NAMESPACE_X500,
    NIL,
    ParseError,
    format,
    getnode,
    inspect,
    parse,
    take_store_warnings,
    use_daemon,
    use_state_file,
    uuid1,
    uuid1_str,
    uuid3,
    uuid4,
    uuid4_bytes,
    uuid4_many,
    uuid4_str,
    uuid4_str_many,
    uuid5,
    uuid6,
    uuid6_str,
    uuid7,
    uuid7_bytes,
    uuid7_many,
    uuid7_str,
    uuid7_str_many,
    uuid8,
    uuid8_str,
    v1_to_v6,
    v6_to_v1,
)
from uuidkit._uuidkit import __version__

__all__ = [
    "FORMS",
    "LAYOUTS",
    "MAX",
    "METHODS",
    "NAMESPACE_DNS",
    "NAMESPACE_OID",
    "NAMESPACE_URL",
    "NAMESPACE_X500",
    "NIL",
    "RESERVED_FUTURE",
    "RESERVED_MICROSOFT",
    "RESERVED_NCS",
    "RFC_4122",
    "ParseError",
    "SafeUUID",
    "UUID",
    "format",
    "getnode",
    "inspect",
    "parse",
    "take_store_warnings",
    "use_daemon",
    "use_state_file",
    "uuid1",
    "uuid1_str",
    "uuid3",
    "uuid4",
    "uuid4_bytes",
    "uuid4_many",
    "uuid4_str",
    "uuid4_str_many",
    "uuid5",
    "uuid6",
    "uuid6_str",
    "uuid7",
    "uuid7_bytes",
    "uuid7_many",
    "uuid7_str",
    "uuid7_str_many",
    "uuid8",
    "uuid8_str",
    "v1_to_v6",
    "v6_to_v1",
]
