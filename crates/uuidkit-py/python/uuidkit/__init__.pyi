"""uuidkit: every UUID of RFC 9562, for Python.

The generators the standard library's ``uuid`` module has, with the same names,
signatures and results (``uuid.UUID`` objects), plus what only uuidkit has: v7 by
method and at a given time, v8 layouts, v1 <-> v6 conversion, strict parsing and
formatting in eight forms, the text of a new UUID with no ``uuid.UUID`` in between
(``uuid7_str()``, ``uuid7_str_many(n)``), batch generation with the GIL released, and state shared
across processes through a state file (``UUIDKIT_STATE``) or the ``uuidkitd`` service
(``UUIDKIT_DAEMON``).
"""

import datetime
import os
import uuid as _uuid
from typing import Any, Final, Literal, Union, overload

__version__: Final[str]

UUID = _uuid.UUID
SafeUUID = _uuid.SafeUUID

RESERVED_NCS: Final[str]
RFC_4122: Final[str]
RESERVED_MICROSOFT: Final[str]
RESERVED_FUTURE: Final[str]

NIL: Final[_uuid.UUID]
MAX: Final[_uuid.UUID]
NAMESPACE_DNS: Final[_uuid.UUID]
NAMESPACE_URL: Final[_uuid.UUID]
NAMESPACE_OID: Final[_uuid.UUID]
NAMESPACE_X500: Final[_uuid.UUID]

Form = Literal[
    "hyphenated", "simple", "braced", "urn", "base32", "base58", "base62", "base64url"
]
Method = Literal["counter", "random", "precision"]
Layout = Literal[
    "b1",
    "b2",
    "draft-v7-ms",
    "draft-v7-us",
    "draft-v7-ns",
    "draft-v8-32",
    "draft-v8-48",
    "draft-v8-60",
    "draft-v8-64",
]
TimeArg = Union[datetime.datetime, int, float]
Name = Union[str, bytes]

FORMS: Final[tuple[str, ...]]
METHODS: Final[tuple[str, ...]]
LAYOUTS: Final[tuple[str, ...]]

class ParseError(ValueError):
    """Text that is not a UUID in the form asked for.

    ``position`` is the index of the first byte at fault (in the text's UTF-8 bytes),
    ``text`` the input as given."""

    position: int
    text: Union[str, bytes]

def getnode() -> int: ...
def uuid1(node: int | None = None, clock_seq: int | None = None) -> _uuid.UUID: ...
def uuid3(namespace: _uuid.UUID, name: Name) -> _uuid.UUID: ...
def uuid4() -> _uuid.UUID: ...
def uuid5(namespace: _uuid.UUID, name: Name) -> _uuid.UUID: ...
def uuid6(node: int | None = None, clock_seq: int | None = None) -> _uuid.UUID: ...
def uuid7(*, method: Method = "counter", time: TimeArg | None = None) -> _uuid.UUID: ...
@overload
def uuid8(a: int | None = None, b: int | None = None, c: int | None = None) -> _uuid.UUID: ...
@overload
def uuid8(*, layout: Layout, namespace: _uuid.UUID | None = None, name: Name | None = None) -> _uuid.UUID: ...
def v1_to_v6(u: _uuid.UUID) -> _uuid.UUID: ...
def v6_to_v1(u: _uuid.UUID) -> _uuid.UUID: ...
def parse(text: Union[str, bytes], form: Form | None = None) -> _uuid.UUID: ...
def format(u: _uuid.UUID, form: Form = "hyphenated", *, upper: bool = False) -> str: ...
def inspect(u: Union[_uuid.UUID, str, bytes]) -> dict[str, Any]: ...
def uuid4_many(n: int) -> list[_uuid.UUID]: ...
def uuid7_many(n: int) -> list[_uuid.UUID]: ...
def uuid4_bytes(n: int) -> bytes: ...
def uuid7_bytes(n: int) -> bytes: ...
def uuid1_str(form: Form = "hyphenated", *, upper: bool = False) -> str: ...
def uuid4_str(form: Form = "hyphenated", *, upper: bool = False) -> str: ...
def uuid6_str(form: Form = "hyphenated", *, upper: bool = False) -> str: ...
def uuid7_str(form: Form = "hyphenated", *, upper: bool = False) -> str: ...
def uuid8_str(form: Form = "hyphenated", *, upper: bool = False) -> str: ...
def uuid4_str_many(n: int, form: Form = "hyphenated", *, upper: bool = False) -> list[str]: ...
def uuid7_str_many(n: int, form: Form = "hyphenated", *, upper: bool = False) -> list[str]: ...
def use_state_file(path: Union[str, os.PathLike[str]]) -> None: ...
def use_daemon(path: Union[str, os.PathLike[str]]) -> None: ...
def take_store_warnings() -> list[str]: ...
