"""The value of a ``#if`` or ``#elif`` condition (C99 6.10.1).

A condition is an integer constant expression over the macros known at that line:
``defined NAME`` and ``defined(NAME)`` are read first (before expansion, as C says),
then every macro is expanded (``c_macros``), and an identifier still left is 0. The
arithmetic is C's preprocessor arithmetic: 64-bit integers (``intmax_t``), unsigned
when a literal says ``u`` or an operand is unsigned, ``/`` and ``%`` truncating,
``&&``, ``||`` and ``?:`` evaluating only the side they need (``#if N && 100 / N``
with ``N`` 0 is not a division by zero).

A malformed condition is a ``ConditionProblem`` at the token that shows it, so the
preprocessor reports it where the user wrote it.
"""

from __future__ import annotations

import re
from typing import Optional

from .c_macros import Expander, MacroProblem, Token

_BITS = 64
_MASK = (1 << _BITS) - 1
_INTEGER = re.compile(r"^(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)$")
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39, '"': 34, "?": 63}


class ConditionProblem(Exception):
    """A condition that is not a valid integer constant expression; ``token`` None: the end."""

    def __init__(self, token: Optional[Token], message: str, hint: str = ""):
        super().__init__(message)
        self.token = token
        self.message = message
        self.hint = hint or "a #if condition is an integer expression over macros, defined(NAME) and literals"


def evaluate(tokens: list[Token], expander: Expander) -> bool:
    """Whether the condition ``tokens`` (after ``#if``) holds."""
    if not tokens:
        raise ConditionProblem(None, "#if with no condition")
    try:
        expanded = expander.expand(_defined(tokens, expander), final=True)
    except MacroProblem as p:
        raise ConditionProblem(p.token, p.message, p.hint) from None
    parser = _Parser(expanded)
    value, _ = parser.conditional(True)
    if parser.k < len(expanded):
        t = expanded[parser.k]
        raise ConditionProblem(t, f"malformed #if condition: unexpected '{t.text}'")
    return value != 0


def _defined(tokens: list[Token], expander: Expander) -> list[Token]:
    """``defined X`` and ``defined(X)`` replaced by 1 or 0."""
    out: list[Token] = []
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if t.text != "defined":
            out.append(t)
            k += 1
            continue
        paren = k + 1 < len(tokens) and tokens[k + 1].text == "("
        j = k + 2 if paren else k + 1
        if j >= len(tokens) or tokens[j].kind != "id":
            raise ConditionProblem(t, "'defined' needs a macro name", "write defined(NAME) or defined NAME")
        if paren and (j + 1 >= len(tokens) or tokens[j + 1].text != ")"):
            raise ConditionProblem(t, "'defined(' has no ')'", "write defined(NAME)")
        value = "1" if tokens[j].text in expander.table else "0"
        out.append(Token(value, "num", t.line, t.col, t.ws))
        k = j + 2 if paren else j + 1
    return out


class _Parser:
    """Precedence climbing over the expanded tokens; each method returns (value, unsigned).

    ``live`` False: the operand is not evaluated (the other side of ``&&``, ``||``, ``?:``
    decided), so a division by zero there is no error."""

    _BINARY = [  # loosest first
        ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"), ("*", "/", "%"),
    ]

    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.k = 0

    def peek(self) -> Optional[Token]:
        return self.tokens[self.k] if self.k < len(self.tokens) else None

    def take(self, text: str) -> bool:
        t = self.peek()
        if t is not None and t.text == text:
            self.k += 1
            return True
        return False

    def expect(self, text: str, after: Token) -> None:
        if not self.take(text):
            t = self.peek()
            raise ConditionProblem(t or after, f"malformed #if condition: expected '{text}'"
                                   + (f" before '{t.text}'" if t is not None else " at its end"))

    def conditional(self, live: bool) -> tuple[int, bool]:
        cond, cu = self.logical_or(live)
        t = self.peek()
        if t is None or t.text != "?":
            return cond, cu
        self.k += 1
        a, au = self.conditional(live and cond != 0)
        self.expect(":", t)
        b, bu = self.conditional(live and cond == 0)
        unsigned = au or bu
        return _wrap(a if cond else b, unsigned), unsigned

    def logical_or(self, live: bool) -> tuple[int, bool]:
        value, unsigned = self.logical_and(live)
        while self.take("||"):
            right, _ = self.logical_and(live and value == 0)
            value, unsigned = int(value != 0 or right != 0), False
        return value, unsigned

    def logical_and(self, live: bool) -> tuple[int, bool]:
        value, unsigned = self.binary(0, live)
        while self.take("&&"):
            right, _ = self.binary(0, live and value != 0)
            value, unsigned = int(value != 0 and right != 0), False
        return value, unsigned

    def binary(self, level: int, live: bool) -> tuple[int, bool]:
        if level == len(self._BINARY):
            return self.unary(live)
        value, unsigned = self.binary(level + 1, live)
        while True:
            t = self.peek()
            if t is None or t.text not in self._BINARY[level]:
                return value, unsigned
            self.k += 1
            right, ru = self.binary(level + 1, live)
            value, unsigned = _apply(t, value, unsigned, right, ru, live)

    def unary(self, live: bool) -> tuple[int, bool]:
        t = self.peek()
        if t is None:
            last = self.tokens[-1] if self.tokens else None
            raise ConditionProblem(last, "malformed #if condition: it ends where an operand is expected")
        if t.text in ("!", "~", "-", "+"):
            self.k += 1
            v, u = self.unary(live)
            if t.text == "!":
                return int(v == 0), False
            if t.text == "~":
                return _wrap(~v, u), u
            return (_wrap(-v, u), u) if t.text == "-" else (v, u)
        return self.primary(live)

    def primary(self, live: bool) -> tuple[int, bool]:
        t = self.peek()
        assert t is not None
        self.k += 1
        if t.text == "(":
            value = self.conditional(live)
            self.expect(")", t)
            return value
        if t.kind == "num":
            return _integer(t)
        if t.kind == "chr":
            return _character(t), False
        if t.kind == "id":  # after expansion, an identifier is 0 (true and false as in <stdbool.h>)
            return (1 if t.text == "true" else 0), False
        raise ConditionProblem(t, f"malformed #if condition: '{t.text}' cannot start an operand")


def _wrap(value: int, unsigned: bool) -> int:
    value &= _MASK
    return value if unsigned or value < 1 << (_BITS - 1) else value - (1 << _BITS)


def _apply(op: Token, a: int, au: bool, b: int, bu: bool, live: bool) -> tuple[int, bool]:
    unsigned = au or bu
    if unsigned:
        a, b = a & _MASK, b & _MASK
    o = op.text
    if o in ("==", "!=", "<", ">", "<=", ">="):
        return int({"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[o]), False
    if o in ("/", "%"):
        if b == 0:
            if live:
                raise ConditionProblem(op, f"division by zero in a #if condition ('{o}' by 0)")
            return 0, unsigned
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
        return _wrap(q if o == "/" else a - q * b, unsigned), unsigned
    if o in ("<<", ">>"):
        unsigned = au  # a shift has the type of its left operand
        if b < 0 or b >= _BITS:
            return 0, unsigned
        return _wrap(a << b if o == "<<" else a >> b, unsigned), unsigned
    value = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "^": a ^ b, "|": a | b}[o]
    return _wrap(value, unsigned), unsigned


def _integer(t: Token) -> tuple[int, bool]:
    m = _INTEGER.match(t.text)
    if m is None:
        raise ConditionProblem(t, f"'{t.text}' is not an integer: a #if condition computes with integers")
    digits, suffix = m.group(1), m.group(2).lower()
    if suffix not in ("", "u", "l", "ul", "lu", "ll", "ull", "llu"):
        raise ConditionProblem(t, f"'{t.text}' has an invalid suffix")
    if digits[:2].lower() == "0x":
        value = int(digits, 16)
    elif digits[:2].lower() == "0b":
        value = int(digits[2:], 2)
    else:
        value = int(digits, 8) if digits.startswith("0") else int(digits)
    unsigned = "u" in suffix or value > (1 << (_BITS - 1)) - 1
    return _wrap(value, unsigned), unsigned


def _character(t: Token) -> int:
    body = t.text[t.text.index("'") + 1:-1]
    if not t.text.endswith("'") or not body:
        raise ConditionProblem(t, f"malformed character constant {t.text}")
    if body[0] != "\\":
        return ord(body[0])
    if body[1:2] in _ESCAPES and len(body) == 2:
        return _ESCAPES[body[1]]
    if body[1:2] == "x":
        return int(body[2:], 16)
    if body[1:].isdigit():
        return int(body[1:], 8)
    raise ConditionProblem(t, f"unknown escape in character constant {t.text}")
