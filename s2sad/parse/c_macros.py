"""C macros: tokens, ``#define`` definitions and their expansion (C99 6.10.3).

The preprocessor (``c_preprocess``) hands each line of code to ``Expander.expand``
as tokens that know where the user wrote them, and gets back the tokens pycparser
must see. Expansion follows the standard, by Prosser's algorithm: every token
carries a *hide set*, the names of the macros whose expansion made it, and a name
in its own hide set is not expanded again, so a macro never expands inside
itself (``#define x (x + 1)`` gives ``(x + 1)``) while a later, unrelated use of
it still does. A function-like macro's arguments are fully expanded before they
are substituted, except where ``#`` makes a string of one or ``##`` pastes it;
the result is scanned again with the rest of the line (``#define F G`` then
``F(1)`` calls ``G``).

Positions are what the user needs to read a diagnostic: a token the user wrote
keeps its own line and column wherever it ends up (an argument inside an
expansion still points at itself), and a token a macro's body made points at the
macro's name where it is called (and spans the call, to its ``)``), so an error
inside ``SQR(f(x))`` points into the user's file, never into the body.

Object-like macros the front end can read as a constant (``Expander.keep``) are
not expanded in code: they stay names, so the C output prints ``N`` and its
``#define`` (``c_preprocess`` decides which).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Optional

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\f\v\r]+)
  | (?P<str>(?:u8|[LuU])?"(?:\\.|[^"\\\n])*"?)
  | (?P<chr>(?:[LuU])?'(?:\\.|[^'\\\n])*'?)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)
  | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[*/%+\-&^|]=|\#\#|[][(){}.&*+\-~!/%<>^|?:;=,\#])
  | (?P<other>.)
    """,
    re.X,
)


@dataclass(frozen=True)
class Token:
    """One preprocessing token, and where the user wrote it.

    ``line`` is the preprocessor's running line number (every line of every file read has
    its own, see ``c_source_map``). A token the user wrote is ``exact``: ``line`` and ``col``
    are its own. One a macro's body made points at the call instead: ``line``/``col`` at the
    macro's name, ``end_line``/``end_col`` just after the call's ``)`` (or the name).
    """

    text: str
    kind: str  # "id", "num", "str", "chr", "punct", "other"; "mark": an empty argument beside ##
    line: int
    col: int
    ws: bool = False  # white space before it, as written
    hide: frozenset[str] = frozenset()
    exact: bool = True
    end_line: int = 0
    end_col: int = 0


def tokenize(text: str, line: int, first_col: int = 1) -> list[Token]:
    """The tokens of one line of text (comments already gone), columns counted from ``first_col``."""
    out: list[Token] = []
    ws = False
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "other"
        if kind == "ws":
            ws = True
            continue
        out.append(Token(m.group(), kind, line, first_col + m.start(), ws))
        ws = False
    return out


def would_paste(left: str, right: str) -> bool:
    """Whether ``left`` written right before ``right`` reads as other tokens (``-`` ``-``: ``--``)."""
    if not left or not right:
        return False
    first = _TOKEN.match(left + right)
    return first is None or first.group() != left


def spell(tokens: list[Token]) -> str:
    """Tokens as text, one space where the user (or the macro's body) had white space."""
    out = []
    for k, t in enumerate(tokens):
        if k and (t.ws or would_paste(tokens[k - 1].text, t.text)):
            out.append(" ")
        out.append(t.text)
    return "".join(out)


class MacroProblem(Exception):
    """A misuse of a macro, at the token where it shows (an unterminated call: the name)."""

    def __init__(self, token: Optional[Token], message: str, hint: str = ""):
        super().__init__(message)
        self.token = token
        self.message = message
        self.hint = hint


class NeedMore(Exception):
    """A call's arguments, or a name that may be one, run past the tokens given: the caller
    joins the next line of the file and expands again (``final`` says there is none)."""


@dataclass(frozen=True)
class Definition:
    """A ``#define``: ``params`` is None for an object-like macro; a variadic one's last
    parameter is ``__VA_ARGS__``."""

    name: str
    params: Optional[tuple[str, ...]]
    body: tuple[Token, ...]
    variadic: bool = False

    @property
    def text(self) -> str:
        return spell(list(self.body))

    def same_as(self, other: "Definition") -> bool:
        """A redefinition C allows silently: the same parameters and the same body tokens."""
        return (self.params, self.variadic) == (other.params, other.variadic) and \
            [t.text for t in self.body] == [t.text for t in other.body]


def define(tokens: list[Token]) -> Definition:
    """The definition that ``#define`` followed by ``tokens`` makes (MacroProblem if malformed)."""
    if not tokens:
        raise MacroProblem(None, "#define needs a macro name", "write #define NAME VALUE or #define NAME(ARGS) BODY")
    if tokens[0].kind != "id":
        raise MacroProblem(tokens[0], f"'{tokens[0].text}' is not a macro name: macro names are identifiers",
                           "write #define NAME VALUE or #define NAME(ARGS) BODY")
    name = tokens[0]
    if name.text == "defined":
        raise MacroProblem(name, "'defined' cannot be a macro name")
    rest = tokens[1:]
    if not rest or rest[0].text != "(" or rest[0].ws:
        return Definition(name.text, None, tuple(rest))
    params: list[str] = []
    variadic = False
    k = 1
    while True:  # ( [name {, name}] [, ...] )
        if k >= len(rest):
            raise MacroProblem(name, f"the parameter list of macro '{name.text}' has no ')'")
        t = rest[k]
        if t.text == ")" and not params and not variadic:
            break
        if t.text == "...":
            params.append("__VA_ARGS__")
            variadic = True
        elif t.kind == "id" and t.text not in params and t.text != "__VA_ARGS__":
            params.append(t.text)
        else:
            raise MacroProblem(t, f"malformed parameter list of macro '{name.text}' at '{t.text}'",
                               "parameters are distinct names separated by commas, '...' last")
        k += 1
        if k < len(rest) and rest[k].text == ")":
            break
        if k >= len(rest) or rest[k].text != "," or variadic:
            where = rest[k] if k < len(rest) else t
            raise MacroProblem(where, f"malformed parameter list of macro '{name.text}'",
                               "parameters are distinct names separated by commas, '...' last")
        k += 1
    body = tuple(rest[k + 1:])
    for j, t in enumerate(body):
        if t.text == "#" and (j + 1 >= len(body) or body[j + 1].text not in params):
            raise MacroProblem(t, f"'#' in macro '{name.text}' is not followed by a parameter",
                               "'#' makes a string of a parameter: #x")
    for j in (0, len(body) - 1):
        if body and body[j].text == "##":
            raise MacroProblem(body[j], f"'##' cannot be at either end of macro '{name.text}'",
                               "'##' pastes the tokens on its two sides into one")
    return Definition(name.text, tuple(params), body, variadic)


_MARK = "mark"  # a placemarker: an empty argument that ## pastes (C99 6.10.3.3)


class Expander:
    """Expands tokens with a table of definitions.

    ``keep(name)``: an object-like macro left as its name (in code, the constants the front
    end reads; in ``#if``, none).
    """

    def __init__(self, table: dict[str, Definition], keep: Callable[[str], bool] = lambda name: False):
        self.table = table
        self.keep = keep

    def expand(self, tokens: list[Token], final: bool = True) -> list[Token]:
        """``tokens`` with every macro call replaced by its expansion.

        Without ``final``, a call whose ``)`` is not among the tokens, or a function-like
        macro's name as the last token, raises NeedMore; with it, the first is a MacroProblem
        and the second stays a name."""
        out: list[Token] = []
        stack = tokens[::-1]  # the next token last
        while stack:
            t = stack.pop()
            d = self.table.get(t.text) if t.kind == "id" else None
            if d is None or t.text in t.hide or (d.params is None and self.keep(t.text)):
                out.append(t)
                continue
            if d.params is None:
                stack += self._substitute(d, [], t.hide | {d.name}, t, t)[::-1]
                continue
            if not stack:
                if not final:
                    raise NeedMore()
                out.append(t)
                continue
            if stack[-1].text != "(":
                out.append(t)  # a function-like macro's name without a call is a plain name
                continue
            args, close = self._arguments(stack, t, d, final)
            stack += self._substitute(d, args, (t.hide & close.hide) | {d.name}, t, close)[::-1]
        return out

    def _arguments(self, stack: list[Token], name: Token, d: Definition,
                   final: bool) -> tuple[list[list[Token]], Token]:
        """The arguments of the call whose ``(`` is next on ``stack``, popped with its ``)``."""
        assert d.params is not None
        stack.pop()
        args: list[list[Token]] = [[]]
        depth = 0
        while True:
            if not stack:
                if not final:
                    raise NeedMore()
                raise MacroProblem(name, f"unterminated call to macro '{d.name}': its ')' is missing",
                                   f"close the arguments of {d.name}(...) with ')'")
            t = stack.pop()
            if t.text == ")" and depth == 0:
                close = t
                break
            depth += {"(": 1, ")": -1}.get(t.text, 0)
            if t.text == "," and depth == 0 and not (d.variadic and len(args) >= len(d.params)):
                args.append([])
                continue
            args[-1].append(t)
        wanted = len(d.params)
        if wanted == 0 and args == [[]]:
            return [], close
        if d.variadic and len(args) == wanted - 1:
            args.append([])  # F(a) of F(a, ...): no variable arguments
        if len(args) != wanted:
            given = len(args)
            raise MacroProblem(name, f"macro '{d.name}' takes {wanted} argument{'s' * (wanted != 1)}, "
                               f"{given} given", f"call it as {d.name}({', '.join(d.params)})")
        return args, close

    def _substitute(self, d: Definition, args: list[list[Token]], hide: frozenset[str], name: Token,
                    close: Token) -> list[Token]:
        """``d``'s body with ``args`` put in for its parameters, ``#`` and ``##`` done, every
        token given ``hide``; body tokens point at the call (``name`` to ``close``)."""
        if name.exact:
            end = (close.line, close.col + len(close.text)) if close.line == name.line \
                else (name.line, name.col + len(name.text))
            at = dict(line=name.line, col=name.col, exact=False, end_line=end[0], end_col=end[1])
        else:  # made by an outer expansion: point where that one does
            at = dict(line=name.line, col=name.col, exact=False, end_line=name.end_line, end_col=name.end_col)
        params = {p: k for k, p in enumerate(d.params or ())}
        body = d.body
        out: list[Token] = []
        k = 0
        while k < len(body):
            b = body[k]
            if b.text == "#" and d.params is not None:
                arg = args[params[body[k + 1].text]]
                out.append(Token(_stringify(arg), "str", ws=b.ws, **at))
                k += 2
                continue
            if b.text == "##":
                right = body[k + 1]
                pasted = list(args[params[right.text]]) if right.text in params else [replace(right, **at)]
                pasted = pasted or [Token("", _MARK, **at)]
                left = out.pop() if out else Token("", _MARK, **at)
                out += [self._paste(left, pasted[0], name, at)] + pasted[1:]
                k += 2
                continue
            if b.text in params and d.params is not None:
                arg = args[params[b.text]]
                if k + 1 < len(body) and body[k + 1].text == "##":
                    piece = list(arg) or [Token("", _MARK, **at)]
                else:
                    piece = self.expand(arg, final=True)
                if piece:
                    piece[0] = replace(piece[0], ws=b.ws)
                out += piece
                k += 1
                continue
            out.append(replace(b, **at))
            k += 1
        result = [replace(t, hide=t.hide | hide) for t in out if t.kind != _MARK]
        if result:
            result[0] = replace(result[0], ws=name.ws)
        return result

    @staticmethod
    def _paste(left: Token, right: Token, name: Token, at: dict) -> Token:
        if left.kind == _MARK:
            return right
        if right.kind == _MARK:
            return left
        text = left.text + right.text
        m = _TOKEN.fullmatch(text)
        if m is None or m.lastgroup in ("ws", "other"):
            raise MacroProblem(name, f"pasting '{left.text}' and '{right.text}' does not give a valid token",
                               "'##' must make one token: a name, a number or an operator")
        return Token(text, m.lastgroup or "other", ws=left.ws, hide=left.hide & right.hide, **at)


def _stringify(tokens: list[Token]) -> str:
    """``#x``: the argument's spelling as a string literal (quotes and backslashes of string
    and character literals in it escaped)."""
    parts = []
    for k, t in enumerate(tokens):
        text = t.text.replace("\\", "\\\\").replace('"', '\\"') if t.kind in ("str", "chr") else t.text
        parts.append((" " if k and t.ws else "") + text)
    return '"' + "".join(parts) + '"'
