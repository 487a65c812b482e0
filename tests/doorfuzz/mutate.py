"""Broken variants of the golden inputs: lines deleted, duplicated or swapped, single characters
and tokens deleted or inserted, the file truncated, two inputs spliced, identifiers and numbers
replaced by odd ones. Each is run with the golden case's own command line (its function, its
``--wrt``, its flags), now and then with one more option, to stdout or to ``-o``.
"""

from __future__ import annotations

import random
import re

from .case import Case, file
from .golden import Golden, golden_inputs

CHARS = list("()[]{}:;,.+-*/%=<>!&|^~#'\"\\@?$` \t\n") + ["\r", "\x0c", "0", "e", "_", "x"]
TOKENS = [
    # Python
    "def", "return", "if", "elif", "else", "for", "while", "in", "not", "and", "or", "lambda", "yield", "await",
    "async", "class", "global", "nonlocal", "del", "import", "from", "with", "try:", "except", "raise", "assert",
    "pass", "break", "continue", "None", "True", "False", "**", "//", "->", ":=", "@", "...", "*args", "**kw",
    "print(", "f'{x}'", "b'x'", "'''", '"""', "\\", "# s2sad: checkpoint periodic(0)",
    "# s2sad: checkpoint binomial(snapshots=-1)", "# s2sad: checkpoint nonsense", "match x:", "case _:",
    "numba.prange(", "np.", "x[::-1]", "x[..., None]", "if True:", "for i in range(n):",
    # C and CUDA
    "int", "double", "float", "long", "unsigned", "void", "char", "struct", "union", "enum", "typedef", "static",
    "const", "volatile", "restrict", "inline", "extern", "sizeof", "goto", "switch", "case 1:", "default:", "do",
    "*", "&", "->", "++", "--", "<<=", "?", "#define", "#include", "#include \"nothere.h\"", "#include <stdio.h>",
    "#if 0", "#endif", "#pragma omp parallel for", "#pragma omp parallel for reduction(+:s)",
    "#pragma s2sad checkpoint binomial(0)", "#pragma s2sad checkpoint periodic(99999999999999999999)",
    "__global__", "__device__", "__shared__", "__syncthreads();", "threadIdx.x", "blockIdx.x", "atomicAdd(",
    "/*", "*/", "//", "L\"", "'\\0'", "0x", "1e", "...", ";;", "{", "}", "[0]", "(void)",
]
ODD_NAMES = [
    "nan", "NaN", "inf", "Infinity", "float('nan')", "math.nan", "np.inf", "NAN", "INFINITY", "__builtins__",
    "_", "__", "d_return", "grad_f", "None", "True", "self", "print", "exit", "np", "math", "int", "double",
    "float", "range", "len", "sizeof", "main", "return", "lambda", "class", "struct", "x" * 300, "é", "σ",
    "x\u200b", "ｘ", "𝑥", "a.b", "a[0]", "0abc", "$x", "in", "in_", "d_x", "tape", "__global__", "static",
]
ODD_NUMBERS = [
    "1e400", "-1e400", "1e-400", "0x1p-1074", "0x1.fffffffffffffp+1023", "0x1p99999", "9" * 400, "0.0", "-0.0",
    "0", "00", "007", "1_000", "0b101", "0o17", "0xFFFFFFFFFFFFFFFFFFFF", "1j", "1e", "0x", "1.5L", "1.0f",
    "2.0e+308", "4.9e-324", "9223372036854775808", "18446744073709551616", "-9223372036854775809", "1.",
    ".5", "1e+", "1__0", "0x1.8p1", "1e308*10", "(1/0)", "2**1000", "10**10**10", "1.0e-5f", "3u", "3ul", "3LL",
    "nan", "float('inf')", "NAN", "1/3", "0.1e-99999",
]
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z_0-9]*\b")
_NUMBER = re.compile(r"(?<![A-Za-z_0-9.])(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFlLuU]*")


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) or [""]


def delete_line(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    lines = _lines(text)
    k = rng.randrange(len(lines))
    return "".join(lines[:k] + lines[k + 1:]), f"delete line {k + 1}"


def duplicate_line(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    lines = _lines(text)
    k = rng.randrange(len(lines))
    times = rng.choice([1, 1, 2, 50])
    return "".join(lines[:k] + [lines[k]] * (times + 1) + lines[k + 1:]), f"duplicate line {k + 1} x{times}"


def swap_lines(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    lines = _lines(text)
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return "".join(lines), f"swap lines {a + 1} and {b + 1}"


def delete_char(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    if not text:
        return text, "delete nothing"
    # Mostly a bracket, an operator or a quote: the characters that keep a file's shape.
    marks = [i for i, ch in enumerate(text) if ch in "()[]{}:;,=+-*/'\"#\\<>"]
    k = rng.choice(marks) if marks and rng.random() < 0.8 else rng.randrange(len(text))
    return text[:k] + text[k + 1:], f"delete {text[k]!r} at offset {k}"


def insert_char(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    k = rng.randrange(len(text) + 1)
    ch = rng.choice(CHARS)
    return text[:k] + ch + text[k:], f"insert {ch!r} at offset {k}"


def insert_token(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    token = rng.choice(TOKENS)
    if rng.random() < 0.4:  # on a line of its own, indented as the line it goes before
        lines = _lines(text)
        k = rng.randrange(len(lines) + 1)
        indent = re.match(r"[ \t]*", lines[k] if k < len(lines) else "").group()
        lines.insert(k, indent + token + "\n")
        return "".join(lines), f"insert line {token!r} before line {k + 1}"
    k = rng.randrange(len(text) + 1)
    pad = rng.choice(["", " "])
    return text[:k] + pad + token + pad + text[k:], f"insert {token!r} at offset {k}"


def truncate(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    k = rng.randrange(len(text) + 1)
    return text[:k], f"truncate at offset {k}"


def splice(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    if rng.random() < 0.5:
        a, b = _lines(text), _lines(other)
        i, j = rng.randrange(len(a) + 1), rng.randrange(len(b) + 1)
        return "".join(a[:i] + b[j:]), f"splice: lines 1..{i} + another input's lines {j + 1}.."
    i, j = rng.randrange(len(text) + 1), rng.randrange(len(other) + 1)
    return text[:i] + other[j:], f"splice: offset {i} + another input from offset {j}"


def replace_identifier(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    found = list(_IDENT.finditer(text))
    if not found:
        return text, "no identifier"
    m = rng.choice(found)
    new = rng.choice(ODD_NAMES)
    if rng.random() < 0.5:  # every occurrence: the program stays consistent, the name odd
        return re.sub(rf"\b{re.escape(m.group())}\b", lambda _: new, text), f"rename {m.group()!r} to {new!r}"
    return text[:m.start()] + new + text[m.end():], f"replace {m.group()!r} at offset {m.start()} by {new!r}"


def replace_number(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    found = list(_NUMBER.finditer(text))
    new = rng.choice(ODD_NUMBERS)
    if not found:
        return insert_token(rng, text, other)
    m = rng.choice(found)
    return text[:m.start()] + new + text[m.end():], f"replace number {m.group()!r} at offset {m.start()} by {new!r}"


def reindent(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    lines = _lines(text)
    k = rng.randrange(len(lines))
    how = rng.choice(["  ", "    ", "\t", "-"])
    if how == "-":
        lines[k] = lines[k].lstrip(" \t")
    else:
        lines[k] = how + lines[k]
    return "".join(lines), f"indent line {k + 1} by {how!r}"


MUTATIONS = [delete_line, duplicate_line, swap_lines, delete_char, delete_char, insert_char, insert_char,
             insert_token, insert_token, truncate, splice, replace_identifier, replace_identifier, replace_number,
             replace_number, reindent]

EXTRA_OPTIONS = [
    ("-O0",), ("-O1",), ("--may-alias",), ("--report",), ("--checkpoint", "recompute"),
    ("--checkpoint", "binomial(3)"), ("--checkpoint", "periodic(2)"), ("--target", "c"), ("--target", "py"),
    ("--target", "numba"), ("--target", "cuda"), ("--passes", "inline,cse,licm,dce"),
]
SUFFIX = {"py": ".py", "numba": ".py", "c": ".c", "cuda": ".cu"}


def command_line(rng: random.Random, g: Golden, name: str) -> list[str]:
    """The golden case's command line for the input file ``name``: at times one more option,
    and the output on stdout or in a file."""
    argv = ["grad", name, "--func", g.func, "--wrt", ",".join(g.wrt), *g.flags]
    if rng.random() < 0.25:
        extra = rng.choice(EXTRA_OPTIONS)
        if not (extra[0] == "--target" and (g.flags or g.suffix == ".cu")):
            argv += extra
    if rng.random() < 0.5:
        target = argv[argv.index("--target") + 1] if "--target" in argv else None
        argv += ["-o", "grad" + (SUFFIX[target] if target else g.suffix)]
    return argv


def mutate_case(seed: int, rng: random.Random) -> Case:
    inputs = golden_inputs()
    g = rng.choice(inputs)
    other = rng.choice(inputs).text()
    text = g.text()
    done = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        text, what = rng.choice(MUTATIONS)(rng, text, other)
        done.append(what)
    name = g.input.name
    entries = [file(name, text.encode("utf-8", "surrogatepass"))] + [file(h.name, h.read_bytes()) for h in g.headers]
    return Case(seed, "mutate", f"golden/{g.name}: {'; '.join(done)}", entries, command_line(rng, g, name))
