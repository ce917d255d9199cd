"""Reading one JSON object into typed fields, each refusal one sentence naming where.

Every ``from_json`` of the contract reads through :class:`Fields`: a key that is missing, of
the wrong JSON type, out of its range, too long, or not one of an enum's values raises the
reader's error (a :class:`ContractError`) that says which object, which key and why.
"""

from __future__ import annotations

import math
from typing import (
    Callable,
    Dict,
    FrozenSet,
    List,
    Optional,
    Tuple,
    Type,
    TypeVar,
    Union,
    cast,
)

from .enums import StrEnum

__all__ = [
    "ContractError",
    "DocumentInvalid",
    "Fields",
    "JSONObject",
    "JSONScalar",
    "MessageInvalid",
    "PlanInvalid",
    "RecordInvalid",
    "json_number",
    "json_scalars",
    "member",
    "number_value",
]

#: A JSON object as decoded: its values are checked before use (``object``, never ``Any``).
JSONObject = Dict[str, object]
JSONScalar = Union[str, int, float, bool, None]
E = TypeVar("E", bound=StrEnum)
T = TypeVar("T")


class ContractError(ValueError):
    """Something that crossed a boundary is not what the contract says; one sentence why."""


class RecordInvalid(ContractError):
    """A line that is not a valid record (or session line); the message says which field."""


class PlanInvalid(ContractError):
    """A plan that cannot be run; the message says what is wrong, in one sentence."""


class MessageInvalid(ContractError):
    """A protocol line that is not a message of the expected protocol."""


class DocumentInvalid(ContractError):
    """An env.json (or another document) that is not what the contract says."""


_NAMED = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def number_value(value: object) -> Optional[float]:
    """A JSON number, or one of the names strict JSON uses for non-finite values; None if
    ``value`` is neither (a bool is not a number, and a float literal that overflowed to an
    infinity, ``1e999``, is none either: strict JSON names its infinities)."""
    if isinstance(value, str):
        return _NAMED.get(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _plain_numbers(items: List[object]) -> Optional[List[float]]:
    """``items`` when all are finite ints or floats (bools excluded), checked in C (the warm
    samples of a record are up to a thousand of them); None otherwise."""
    if not set(map(type, items)) <= {float, int}:
        return None
    numbers = cast(List[float], items)
    if numbers and not (math.isfinite(min(numbers)) and math.isfinite(max(numbers))):
        return None
    return numbers


def json_number(value: float) -> Union[float, str]:
    """``value`` as strict JSON holds it (non-finite values by name)."""
    if math.isfinite(value):
        return value
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def member(value: object, key: str) -> JSONObject:
    """The object under ``key`` of a decoded JSON object, or {} where there is none (a
    free-form document read without trusting its shape)."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def json_scalars(value: object, where: str, error: Type[ContractError]) -> Dict[str, JSONScalar]:
    """An object of scalar values (settings): anything nested is refused."""
    if not isinstance(value, dict):
        raise error(f"{where} is not an object")
    out: Dict[str, JSONScalar] = {}
    for key, item in value.items():
        if item is not None and not isinstance(item, (str, int, float, bool)):
            raise error(f"{where}: '{key}' is not a string, number or boolean")
        if isinstance(item, float) and not math.isfinite(item):
            raise error(f"{where}: '{key}' is not a finite number")
        out[str(key)] = item
    return out


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


class Fields:
    """Typed access to the keys of one JSON object; ``error`` is raised naming ``where``.

    ``known``, when given, is every key the object may hold: any other is refused, so a
    reader and the published schema agree on what a valid object is.
    """

    __slots__ = ("_error", "obj", "where")

    def __init__(
        self,
        value: object,
        where: str,
        error: Type[ContractError],
        known: Optional[FrozenSet[str]] = None,
    ) -> None:
        self._error = error
        self.where = where
        if not isinstance(value, dict):
            raise error(f"{where} is a JSON {_kind(value)}, not an object")
        self.obj: JSONObject = value
        if known is not None:
            unknown = [str(k) for k in value if k not in known]
            if unknown:
                listed = ", ".join(repr(k[:40]) for k in sorted(unknown)[:3])
                raise error(f"{where} has a key this portbench does not know ({listed})")

    def fail(self, why: str) -> ContractError:
        return self._error(f"{self.where}: {why}")

    def has(self, key: str) -> bool:
        return self.obj.get(key) is not None

    def raw(self, key: str) -> object:
        return self.obj.get(key)

    def _need(self, key: str) -> object:
        if key not in self.obj:
            raise self.fail(f"'{key}' is missing")
        return self.obj[key]

    def _wrong(self, key: str, value: object, wanted: str) -> ContractError:
        return self.fail(f"'{key}' is a {_kind(value)}, not {wanted}")

    # -- strings ------------------------------------------------------------------------
    def text(self, key: str, max_chars: int = 0) -> str:
        value = self._need(key)
        if not isinstance(value, str):
            raise self._wrong(key, value, "a string")
        if max_chars and len(value) > max_chars:
            raise self.fail(f"'{key}' has {len(value)} characters, over {max_chars}")
        return value

    def opt_text(self, key: str, max_chars: int = 0) -> Optional[str]:
        return None if self.obj.get(key) is None else self.text(key, max_chars)

    def texts(self, key: str, max_items: int = 0, max_chars: int = 0) -> Tuple[str, ...]:
        items = self.items(key, max_items)
        for item in items:
            if not isinstance(item, str):
                raise self.fail(f"'{key}' holds a {_kind(item)}, not only strings")
            if max_chars and len(item) > max_chars:
                raise self.fail(f"'{key}' holds a string of over {max_chars} characters")
        return tuple(str(item) for item in items)

    def opt_texts(self, key: str, max_items: int = 0) -> Optional[Tuple[str, ...]]:
        return None if self.obj.get(key) is None else self.texts(key, max_items)

    # -- numbers ------------------------------------------------------------------------
    def integer(self, key: str, minimum: Optional[int] = None) -> int:
        value = self._need(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(key, value, "an integer")
        if minimum is not None and value < minimum:
            raise self.fail(f"'{key}' is {value}, below {minimum}")
        return value

    def opt_integer(self, key: str, minimum: Optional[int] = None) -> Optional[int]:
        return None if self.obj.get(key) is None else self.integer(key, minimum)

    def number(self, key: str, nonneg: bool = False) -> float:
        """A number (an integer is one too), or NaN / Infinity by name."""
        value = self._need(key)
        number = number_value(value)
        if number is None:
            raise self._wrong(key, value, "a number")
        if nonneg and number < 0:
            raise self.fail(f"'{key}' is negative ({str(value)[:20]})")
        return number

    def opt_number(self, key: str, nonneg: bool = False) -> Optional[float]:
        return None if self.obj.get(key) is None else self.number(key, nonneg)

    def numbers(self, key: str, max_items: int, nonneg: bool = False) -> Tuple[float, ...]:
        items = self.items(key, max_items)
        plain = _plain_numbers(items)
        if plain is not None:
            if nonneg and plain and min(plain) < 0:
                raise self.fail(f"'{key}' holds a negative number")
            return tuple(map(float, plain))
        out: List[float] = []
        for item in items:
            number = number_value(item)
            if number is None or (nonneg and number < 0):
                raise self.fail(f"'{key}' holds {str(item)[:20]!r}, not a number")
            out.append(number)
        return tuple(out)

    # -- other kinds ----------------------------------------------------------------------
    def flag(self, key: str) -> bool:
        value = self._need(key)
        if not isinstance(value, bool):
            raise self._wrong(key, value, "true or false")
        return value

    def opt_flag(self, key: str) -> Optional[bool]:
        return None if self.obj.get(key) is None else self.flag(key)

    def enum(self, key: str, enum: Type[E]) -> E:
        value = self._need(key)
        try:
            return enum(value)
        except ValueError:
            allowed = ", ".join(str(member.value) for member in enum)
            raise self.fail(f"'{key}' is {str(value)[:40]!r}, not one of {allowed}") from None

    def opt_enum(self, key: str, enum: Type[E]) -> Optional[E]:
        return None if self.obj.get(key) is None else self.enum(key, enum)

    def items(self, key: str, max_items: int = 0) -> List[object]:
        value = self._need(key)
        if not isinstance(value, list):
            raise self._wrong(key, value, "a list")
        if max_items and len(value) > max_items:
            raise self.fail(f"'{key}' holds {len(value)} items, over {max_items}")
        return value

    def nested(
        self,
        key: str,
        known: Optional[FrozenSet[str]] = None,
        error: Optional[Type[ContractError]] = None,
    ) -> Fields:
        return Fields(self._need(key), f"{self.where}.{key}", error or self._error, known)

    def opt(self, key: str, read: Callable[[object, str], T]) -> Optional[T]:
        """``read(value, where)`` of the key's value, or None where it is absent or null."""
        value = self.obj.get(key)
        return None if value is None else read(value, f"{self.where}.{key}")

    def scalars(self, key: str) -> Dict[str, JSONScalar]:
        return json_scalars(self._need(key), f"{self.where}.{key}", self._error)
