"""Types of SSA values.

Scalars are values; arrays are references to memory (``load``/``store`` act on them).
Types are immutable and compared structurally. Their text form is what the IR
printer writes and the IR parser reads: ``f64``, ``i64``, ``bool``, ``array<f64,2>``.
Room is left for pointer, struct and thread types of the C and CUDA front ends.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass


class Type:
    """Base of all IR types."""

    @property
    def is_float(self) -> bool:
        return False

    @property
    def is_int(self) -> bool:
        return False

    @property
    def is_array(self) -> bool:
        return False


@dataclass(frozen=True)
class ScalarType(Type):
    """A machine scalar: ``f64``, ``f32``, ``i64``, ``i32`` or ``bool``; or ``str`` (``STR``)."""

    name: str

    @property
    def is_float(self) -> bool:
        return self.name in ("f64", "f32")

    @property
    def is_int(self) -> bool:
        return self.name in ("i64", "i32")

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class ArrayType(Type):
    """A reference to an array of ``rank`` dimensions holding ``elem`` scalars."""

    elem: ScalarType
    rank: int

    @property
    def is_array(self) -> bool:
        return True

    def __str__(self) -> str:
        return f"array<{self.elem},{self.rank}>"


F64 = ScalarType("f64")
F32 = ScalarType("f32")
I64 = ScalarType("i64")
I32 = ScalarType("i32")
BOOL = ScalarType("bool")
# A Python string parameter that the code only compares (``reduction == "mean"``): a value that
# chooses a branch, never a number; Python output keeps it as it is, C output refuses it.
STR = ScalarType("str")
# An MPI request (``ssa/mpi``): the handle a non-blocking send or receive gives and a wait takes,
# a value that ties the two together; C output declares it ``MPI_Request``.
REQUEST = ScalarType("request")
# An MPI communicator (``MPI_Comm``): a handle the program passes around and every MPI op takes.
COMM = ScalarType("comm")

SCALARS = {t.name: t for t in (F64, F32, I64, I32, BOOL, STR, REQUEST, COMM)}


def as_float32(value: float) -> float:
    """The float nearest ``value`` (C's ``0.1f``: 0.100000001490116...), as a Python float."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:  # past the largest float: C's constant is infinite
        return math.copysign(math.inf, value)


def float32_text(value: float) -> str:
    """The shortest decimal that a C ``float`` reads as ``value`` (a float's value): ``0.1``."""
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if as_float32(float(text)) == value:
            return repr(float(text))
    return repr(value)


def common_type(types: list[Type]) -> ScalarType:
    """The type Python's (and NumPy's) arithmetic gives mixed operands: bool < int < float."""
    if any(t.is_float for t in types):
        return F64
    if all(t == BOOL for t in types):
        return BOOL
    return I64


def parse_type(text: str) -> Type:
    """Parse the text form of a type (the inverse of ``str``)."""
    text = text.strip()
    if text in SCALARS:
        return SCALARS[text]
    if text.startswith("array<") and text.endswith(">"):
        elem, rank = text[len("array<") : -1].split(",")
        return ArrayType(SCALARS[elem.strip()], int(rank))
    raise ValueError(f"unknown type {text!r}")
