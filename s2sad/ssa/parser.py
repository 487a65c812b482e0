"""Reads the textual form of the IR (what ``s2sad.ssa.printer`` writes) back into a ``Module``.

``print_module(parse_module(print_module(m))) == print_module(m)`` holds for every
module whose name hints are not themselves of the form ``name.N``. The grammar is
the printer's (see its docstring); hand-written text may in addition use
``// comments``, any whitespace and line breaks, and may leave out the ``^():``
header of a region without arguments.

Names are resolved like the verifier checks them: a value is visible after its
definition in its own block and in every region nested below that point; a
region's block arguments (``^(%i: i64):``) are visible in that region only. The
printed name gives back the ``name_hint``: the ``.N`` the printer appends to a
repeated hint is stripped (``%acc.1`` -> ``acc``) and a purely numeric name
(``%3``) means no hint. ``@line:col`` becomes ``SourceLoc(source_file, line, col)``.

The parser checks syntax and name resolution only; op names, types and region
shapes are the verifier's business (``s2sad.ssa.verifier``), so that IR which is
wrong can still be read, printed and verified with a precise message. Errors raise
``IRParseError`` carrying the line and column of the offending token.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any, Optional

from .ir import Block, Function, Module, Op, SourceLoc, Value
from .types import Type, parse_type

__all__ = ["IRParseError", "parse_module", "parse_function"]


class IRParseError(ValueError):
    """A syntax or name-resolution error at ``line``:``col`` (1-based) of the IR text."""

    def __init__(self, message: str, line: int, col: int, source_line: str = ""):
        self.message = message
        self.line = line
        self.col = col
        text = f"{line}:{col}: {message}"
        if source_line:
            text += f"\n  {source_line}\n  {' ' * (col - 1)}^"
        super().__init__(text)


@dataclass
class _Tok:
    kind: str  # value (%name), symbol (@name), loc (@l:c), ident, number, string, punct, eof
    text: str  # the payload: a name without its sigil, a decoded string, the punctuation itself
    pos: int
    end: int
    loc: tuple[int, int] = (0, 0)  # (line, col), as given to the number of a loc token

    def describe(self) -> str:
        if self.kind == "eof":
            return "end of input"
        if self.kind == "value":
            return f"'%{self.text}'"
        if self.kind == "symbol":
            return f"'@{self.text}'"
        if self.kind == "string":
            return "a string"
        return f"'{self.text}'" if self.kind != "loc" else "a location"


_SPACE = re.compile(r"(?:\s+|//[^\n]*)+")
_BARE = re.compile(r"[\w.$]+")
_IDENT = re.compile(r"[A-Za-z_][\w.$]*")
# ``inf`` and ``nan`` lex as identifiers (an attribute key may be spelled so); ``-inf`` as a number.
_NUMBER = re.compile(r"-(?:inf|nan)\b|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?")
_LOC = re.compile(r"@(\d+):(\d+)")
_INT = re.compile(r"-?\d+\Z")
_PUNCT = ("->", "(", ")", "{", "}", "[", "]", "<", ">", ",", ":", "=", "^")
_SIMPLE_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r", "0": "\0"}
_REPEAT_SUFFIX = re.compile(r"(.+)\.[0-9]+\Z")
_NUMERIC = re.compile(r"[0-9]+\Z")


def hint_of(name: str) -> str:
    """The ``name_hint`` a printed value name stands for (``acc.1`` -> ``acc``, ``3`` -> none)."""
    m = _REPEAT_SUFFIX.match(name)
    if m:
        name = m.group(1)
    return "" if _NUMERIC.match(name) else name


class _Lexer:
    def __init__(self, text: str):
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, pos: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def source_line(self, line: int) -> str:
        start = self.line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start : end if end >= 0 else len(self.text)]

    def error(self, message: str, pos: int) -> IRParseError:
        line, col = self.position(pos)
        return IRParseError(message, line, col, self.source_line(line))

    def tokens(self) -> list[_Tok]:
        text, pos, out = self.text, 0, []
        while True:
            m = _SPACE.match(text, pos)
            if m:
                pos = m.end()
            if pos >= len(text):
                out.append(_Tok("eof", "", pos, pos))
                return out
            out.append(self._token(pos))
            pos = out[-1].end

    def _token(self, pos: int) -> _Tok:
        text = self.text
        ch = text[pos]
        if ch == '"':
            value, end = self._string(pos)
            return _Tok("string", value, pos, end)
        if ch in "%@":
            m = _LOC.match(text, pos) if ch == "@" else None
            if m:
                return _Tok("loc", m.group(0), pos, m.end(), (int(m.group(1)), int(m.group(2))))
            if ch == "@" and text[pos + 1 : pos + 2].isdigit():
                raise self.error("malformed location: expected '@line:col'", pos)
            kind = "value" if ch == "%" else "symbol"
            if pos + 1 < len(text) and text[pos + 1] == '"':
                value, end = self._string(pos + 1)
                return _Tok(kind, value, pos, end)
            m = _BARE.match(text, pos + 1)
            if not m:
                raise self.error(f"expected a name after '{ch}'", pos)
            return _Tok(kind, m.group(0), pos, m.end())
        if text.startswith("->", pos):
            return _Tok("punct", "->", pos, pos + 2)
        m = _NUMBER.match(text, pos)
        if m:
            return _Tok("number", m.group(0), pos, m.end())
        m = _IDENT.match(text, pos)
        if m:
            return _Tok("ident", m.group(0), pos, m.end())
        if ch in _PUNCT:
            return _Tok("punct", ch, pos, pos + 1)
        raise self.error(f"unexpected character {ch!r}", pos)

    def _string(self, start: int) -> tuple[str, int]:
        text, pos, out = self.text, start + 1, []
        while True:
            if pos >= len(text):
                raise self.error("unterminated string", start)
            ch = text[pos]
            if ch == '"':
                return "".join(out), pos + 1
            if ch != "\\":
                out.append(ch)
                pos += 1
                continue
            esc = text[pos + 1 : pos + 2]
            if esc in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[esc])
                pos += 2
                continue
            width = {"x": 2, "u": 4, "U": 8}.get(esc)
            digits = text[pos + 2 : pos + 2 + width] if width else ""
            if not width or len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise self.error(f"bad escape sequence in string: {text[pos:pos + 2]!r}", pos)
            out.append(chr(int(digits, 16)))
            pos += 2 + width


class _Parser:
    def __init__(self, text: str, source_file: str):
        self.lexer = _Lexer(text)
        self.toks = self.lexer.tokens()
        self.toks += [self.toks[-1]] * 3
        self.i = 0
        self.source_file = source_file
        # Per function: the stack of visible names, and where every name was defined
        # (to tell "not in scope" from "never defined" in messages).
        self.scopes: list[dict[str, Value]] = []
        self.defined_at: dict[str, _Tok] = {}

    # -- tokens -------------------------------------------------------------------
    def peek(self, k: int = 0) -> _Tok:
        return self.toks[self.i + k]  # k <= 2; the token list ends in enough eofs

    def next(self) -> _Tok:
        tok = self.toks[self.i]
        if tok.kind != "eof":
            self.i += 1
        return tok

    def at(self, kind: str, text: Optional[str] = None, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == kind and (text is None or tok.text == text)

    def at_punct(self, text: str, k: int = 0) -> bool:
        return self.at("punct", text, k)

    def error(self, message: str, tok: Optional[_Tok] = None) -> IRParseError:
        return self.lexer.error(message, (tok or self.peek()).pos)

    def expect(self, kind: str, text: Optional[str] = None, what: str = "") -> _Tok:
        if not self.at(kind, text):
            wanted = what or (f"'{text}'" if text else kind)
            raise self.error(f"expected {wanted}, found {self.peek().describe()}")
        return self.next()

    def expect_punct(self, text: str, what: str = "") -> _Tok:
        return self.expect("punct", text, what)

    def where(self, tok: _Tok) -> str:
        line, col = self.lexer.position(tok.pos)
        return f"{line}:{col}"

    # -- names --------------------------------------------------------------------
    def lookup(self, tok: _Tok) -> Value:
        for scope in reversed(self.scopes):
            if tok.text in scope:
                return scope[tok.text]
        if tok.text in self.defined_at:
            raise self.error(
                f"value '%{tok.text}' is not in scope here: it is defined at "
                f"{self.where(self.defined_at[tok.text])}, in a region that does not enclose this use",
                tok,
            )
        raise self.error(f"use of undefined value '%{tok.text}' (a value must be defined before its use)", tok)

    def define(self, tok: _Tok, value: Value) -> None:
        for scope in self.scopes:
            if tok.text in scope:
                raise self.error(
                    f"redefinition of '%{tok.text}' (first defined at {self.where(self.defined_at[tok.text])})", tok
                )
        self.scopes[-1][tok.text] = value
        self.defined_at[tok.text] = tok

    # -- types and attributes -------------------------------------------------------
    def parse_type(self) -> Type:
        first = self.expect("ident", what="a type")
        last = first
        if self.at_punct("<"):
            depth = 0
            while True:
                last = self.next()
                if last.kind == "eof":
                    raise self.error("unclosed '<' in type", first)
                if last.kind == "punct" and last.text == "<":
                    depth += 1
                elif last.kind == "punct" and last.text == ">":
                    depth -= 1
                    if depth == 0:
                        break
        text = self.lexer.text[first.pos : last.end]
        try:
            return parse_type(text)
        except (ValueError, KeyError):
            raise self.error(f"unknown type '{text}'", first) from None

    def parse_type_list(self) -> list[Type]:
        types = [self.parse_type()]
        while self.at_punct(","):
            self.next()
            types.append(self.parse_type())
        return types

    def at_attr_dict(self) -> bool:
        """``{`` opens an attribute dict (``{key = ...``) rather than a region."""
        return (
            self.at_punct("{")
            and (self.at("ident", k=1) or self.at("string", k=1))
            and self.at_punct("=", k=2)
        )

    def parse_attr_dict(self) -> dict[str, Any]:
        self.expect_punct("{")
        attrs: dict[str, Any] = {}
        while not self.at_punct("}"):
            if attrs:
                self.expect_punct(",", "',' or '}'")
            key_tok = self.peek()
            if key_tok.kind not in ("ident", "string"):
                raise self.error(f"expected an attribute name, found {key_tok.describe()}")
            self.next()
            if key_tok.text in attrs:
                raise self.error(f"duplicate attribute '{key_tok.text}'", key_tok)
            self.expect_punct("=")
            attrs[key_tok.text] = self.parse_attr_value()
        self.next()
        return attrs

    def parse_attr_value(self) -> Any:
        tok = self.peek()
        if tok.kind == "number":
            self.next()
            return int(tok.text) if _INT.match(tok.text) else float(tok.text)
        if tok.kind == "string":
            self.next()
            return tok.text
        if tok.kind == "ident" and tok.text in ("true", "false", "inf", "nan"):
            self.next()
            return tok.text == "true" if tok.text in ("true", "false") else float(tok.text)
        if self.at_punct("["):
            self.next()
            items: list[Any] = []
            while not self.at_punct("]"):
                if items:
                    self.expect_punct(",", "',' or ']'")
                items.append(self.parse_attr_value())
            self.next()
            return items
        if self.at_punct("{"):
            return self.parse_attr_dict()
        raise self.error(f"expected an attribute value, found {tok.describe()}")

    def parse_loc(self) -> Optional[SourceLoc]:
        if not self.at("loc"):
            return None
        line, col = self.next().loc
        return SourceLoc(self.source_file, line, col)

    # -- ops and regions ------------------------------------------------------------
    def parse_op(self, block: Block) -> None:
        result_toks: list[_Tok] = []
        if self.at("value"):
            result_toks.append(self.next())
            while self.at_punct(","):
                self.next()
                result_toks.append(self.expect("value", what="a result name"))
            self.expect_punct("=")
        name_tok = self.expect("ident", what="an op name")
        self.expect_punct("(", f"'(' after op name '{name_tok.text}'")
        operands: list[Value] = []
        while not self.at_punct(")"):
            if operands:
                self.expect_punct(",", "',' or ')'")
            operands.append(self.lookup(self.expect("value", what="an operand")))
        self.next()
        attrs = self.parse_attr_dict() if self.at_attr_dict() else {}
        types: list[Type] = []
        colon = self.peek()
        if self.at_punct(":"):
            self.next()
            types = self.parse_type_list()
        if len(types) != len(result_toks):
            raise self.error(
                f"'{name_tok.text}' names {len(result_toks)} result(s) but lists {len(types)} result type(s)",
                colon if types else name_tok,
            )
        loc = self.parse_loc()
        regions: list[Block] = []
        while self.at_punct("{"):
            regions.append(self.parse_region())
        op = Op(name_tok.text, operands, types, attrs, regions, loc, [hint_of(t.text) for t in result_toks])
        block.append(op)
        for tok, result in zip(result_toks, op.results):
            self.define(tok, result)

    def parse_region(self) -> Block:
        open_tok = self.expect_punct("{")
        block = Block()
        self.scopes.append({})
        if self.at_punct("^"):
            self.next()
            self.expect_punct("(")
            while not self.at_punct(")"):
                if block.args:
                    self.expect_punct(",", "',' or ')'")
                tok = self.expect("value", what="a block argument")
                self.expect_punct(":")
                self.define(tok, block.add_arg(self.parse_type(), hint_of(tok.text)))
            self.next()
            self.expect_punct(":", "':' after the block arguments")
        self.parse_ops_until_close(block, open_tok)
        self.scopes.pop()
        return block

    def parse_ops_until_close(self, block: Block, open_tok: _Tok) -> None:
        while not self.at_punct("}"):
            if self.at("eof"):
                raise self.error(f"'{{' at {self.where(open_tok)} is never closed")
            self.parse_op(block)
        self.next()

    # -- functions and modules --------------------------------------------------------
    def parse_function(self) -> Function:
        self.expect("ident", "func", "'func'")
        name_tok = self.expect("symbol", what="a function name '@name'")
        self.scopes = [{}]
        self.defined_at = {}
        body = Block()
        self.expect_punct("(")
        while not self.at_punct(")"):
            if body.args:
                self.expect_punct(",", "',' or ')'")
            tok = self.expect("value", what="a parameter '%name'")
            self.expect_punct(":")
            self.define(tok, body.add_arg(self.parse_type(), hint_of(tok.text)))
        self.next()
        self.expect_punct("->", "'->' and the result types")
        if self.at_punct("("):
            self.next()
            results = [] if self.at_punct(")") else self.parse_type_list()
            self.expect_punct(")")
        else:
            results = self.parse_type_list()
        attrs: dict[str, Any] = {}
        if self.at("ident", "attributes"):
            self.next()
            if not self.at_punct("{"):
                raise self.error(f"expected '{{' after 'attributes', found {self.peek().describe()}")
            attrs = self.parse_attr_dict()
        loc = self.parse_loc()
        open_tok = self.expect_punct("{", "'{' opening the function body")
        self.parse_ops_until_close(body, open_tok)
        self.scopes = []
        return Function(name_tok.text, body, results, loc, attrs)

    def parse_module(self) -> Module:
        module = Module()
        if self.at("ident", "module"):
            self.next()
            module.source_file = self.expect("string", what="the source file name").text
            self.source_file = module.source_file
        while not self.at("eof"):
            tok = self.peek()
            fn = self.parse_function()
            if fn.name in module.functions:
                raise self.error(f"function '@{fn.name}' is defined twice", tok)
            module.add(fn)
        return module


def parse_module(text: str) -> Module:
    """Parse a whole module (``module "file"`` then functions); the header may be left out."""
    return _Parser(text, "").parse_module()


def parse_function(text: str, source_file: str = "") -> Function:
    """Parse the text of exactly one ``func``; its locations name ``source_file``."""
    parser = _Parser(text, source_file)
    fn = parser.parse_function()
    if not parser.at("eof"):
        raise parser.error(f"expected end of input after the function, found {parser.peek().describe()}")
    return fn
