"""Pathological input files: deep nesting (parentheses, blocks, ifs, calls, conditional
expressions, subscripts, unary operators) at depths 50..3000, long sums and long chains of
calls, many functions, very long lines, NUL bytes, invalid UTF-8, byte-order marks, coding
cookies, CRLF and lone CR line ends, empty files and files of only comments.
"""

from __future__ import annotations

import random

from .case import Case, file
from .golden import golden_inputs

LANGS = ["py", "py", "c", "c", "cu"]
SUFFIX = {"py": ".py", "c": ".c", "cu": ".cu"}


def depth(rng: random.Random, low: int = 50, high: int = 3000) -> int:
    """Log-uniform in [low, high]: as many shallow as deep cases."""
    return int(low * (high / low) ** rng.random())


def program(lang: str, body: str, params: str = "x, y") -> str:
    """``f(x, y)`` returning ``body`` (an expression), or doing ``body`` (statements, ``s`` the sum)."""
    statements = "\n" in body or body.startswith("{") or body.startswith("if") or body.startswith("s ")
    if lang == "py":
        if statements:
            return f"import math\n\n\ndef f({params}):\n    s = 0.0\n{body}\n    return s\n"
        return f"import math\n\n\ndef f({params}):\n    return {body}\n"
    head = "__device__ double" if lang == "cu" else "double"
    cparams = ", ".join(f"double {p.strip()}" for p in params.split(","))
    kernel = ("\n__global__ void k(double *out, const double *in) {\n"
              "    out[threadIdx.x] = f(in[threadIdx.x], 1.0);\n}\n") if lang == "cu" else ""
    if statements:
        return f"#include <math.h>\n\n{head} f({cparams}) {{\n    double s = 0.0;\n{body}\n    return s;\n}}\n{kernel}"
    return f"#include <math.h>\n\n{head} f({cparams}) {{\n    return {body};\n}}\n{kernel}"


def _nest(open_: str, middle: str, close: str, d: int) -> str:
    return open_ * d + middle + close * d


def deep_parens(rng, lang):
    d = depth(rng)
    kind = rng.choice(["plain", "sum", "product"])
    if kind == "plain":
        return _nest("(", "x", ")", d), f"{d} nested parentheses"
    op = "+" if kind == "sum" else "*"
    return _nest(f"(x {op} ", "y", ")", d), f"{d} nested parenthesized {kind}s"


def deep_calls(rng, lang):
    d = depth(rng)
    name = rng.choice(["sin", "exp", "sqrt", "g"])
    if lang == "py" and name != "g":
        name = "math." + name
    text = _nest(f"{name}(", "x", ")", d)
    if name == "g":
        g = "def g(t):\n    return t * 0.5\n\n\n" if lang == "py" else \
            ("__device__ " if lang == "cu" else "") + "double g(double t) { return t * 0.5; }\n"
        return ("prefix", g), text, f"{d} nested calls of g"
    return text, f"{d} nested calls of {name}"


def deep_unary(rng, lang):
    d = depth(rng)
    op = rng.choice(["-", "+", "~" if lang == "py" else "!", "not " if lang == "py" else "-"])
    return op * d + "x", f"{d} unary {op.strip()!r}"


def deep_conditional(rng, lang):
    d = depth(rng)
    if lang == "py":
        return "".join(f"x + {k} if x > {k} else " for k in range(d)) + "y", f"{d} chained conditional expressions"
    return "".join(f"x > {k} ? x + {k} : " for k in range(d)) + "y", f"{d} chained conditional expressions"


def deep_blocks(rng, lang):
    d = depth(rng)
    kind = rng.choice(["if", "for", "block", "elif"])
    if lang == "py":
        if kind == "elif":
            chain = "    if x > 0:\n        s = s + x\n" + "".join(f"    elif x > {k}:\n        s = s + {k}\n"
                                                             for k in range(1, d))
            return chain, f"an if with {d} elifs"
        head = "if x > 0:" if kind in ("if", "block") else "for i in range(2):"
        lines = ["    " * (k + 1) + head for k in range(d)] + ["    " * (d + 1) + "s = s + x * y"]
        return "\n".join(lines), f"{d} nested {head}"
    if kind == "elif":
        chain = "    if (x > 0) s += x;\n" + "".join(f"    else if (x > {k}) s += {k};\n" for k in range(1, d))
        return chain, f"an if with {d} else-ifs"
    head = {"if": "if (x > 0) {", "for": "for (int i = 0; i < 2; i++) {", "block": "{"}[kind]
    lines = ["    " + head * d, "    s += x * y;", "    " + "}" * d]
    return "\n".join(lines), f"{d} nested {head}"


def deep_subscripts(rng, lang):
    d = depth(rng)
    return ("(" + _nest("a[", "0", "]", d) + ")") if lang == "py" else _nest("a[(int)", "0", "]", d), \
        f"{d} nested subscripts"


def long_sum(rng, lang):
    n = depth(rng, 500, 20000)
    term = rng.choice(["x", "x * y", "sin(x)" if lang != "py" else "math.sin(x)", "1.0"])
    sep = rng.choice([" + ", " - ", " * "])
    if rng.random() < 0.5:
        return sep.join([term] * n), f"a sum of {n} terms {term!r} on one line"
    cont = " \\\n        " if lang == "py" else "\n        "
    return "(" + cont.join(sep.join([term] * 10) + sep.strip() for _ in range(n // 10)) + " x)", \
        f"a sum of {n} terms over {n // 10} lines"


def long_statements(rng, lang):
    n = depth(rng, 200, 5000)
    if lang == "py":
        return "\n".join(f"    s = s * 0.5 + x * {k % 7}.0" for k in range(n)), f"{n} statements"
    return "\n".join(f"    s = s * 0.5 + x * {k % 7}.0;" for k in range(n)), f"{n} statements"


def call_chain(rng, lang):
    n = depth(rng, 50, 1000)
    dev = "__device__ " if lang == "cu" else ""
    parts = []
    for k in range(n):
        nxt = f"h{k + 1}(t) * 1.0001" if k + 1 < n else "t"
        if lang == "py":
            parts.append(f"def h{k}(t):\n    return {nxt}\n\n\n")
        else:
            parts.append(f"{dev}double h{k + 1}(double t);\n" if k + 1 < n else "")
            parts.append(f"{dev}double h{k}(double t) {{ return {nxt}; }}\n")
    return ("prefix", "".join(parts)), "h0(x) + y", f"a chain of {n} calls"


def many_functions(rng, lang):
    n = depth(rng, 200, 5000)
    dev = "__device__ " if lang == "cu" else ""
    if lang == "py":
        funcs = "".join(f"def u{k}(t):\n    return t + {k}\n\n\n" for k in range(n))
    else:
        funcs = "".join(f"{dev}double u{k}(double t) {{ return t + {k}; }}\n" for k in range(n))
    return ("prefix", funcs), f"u{n - 1}(x) * y", f"{n} functions"


def long_line(rng, lang):
    n = depth(rng, 10_000, 2_000_000)
    kind = rng.choice(["comment", "spaces", "name", "string"])
    if kind == "comment":
        c = "#" if lang == "py" else "//"
        return ("prefix", f"{c} {'z' * n}\n"), "x * y", f"a comment line of {n} characters"
    if kind == "spaces":
        return "x" + " " * n + "* y", f"{n} spaces inside an expression"
    if kind == "name":
        name = "v" * n
        return ("params", f"{name}, y"), f"{name} * y", f"a parameter name of {n} characters"
    q = '"'
    return ("prefix", f"S = {q}{'s' * n}{q}\n" if lang == "py" else f"static const char *S = {q}{'s' * n}{q};\n"), \
        "x * y", f"a string of {n} characters"


EXPRESSIONS = [deep_parens, deep_calls, deep_unary, deep_conditional, deep_subscripts, long_sum, call_chain,
               many_functions, long_line]
STATEMENTS = [deep_blocks, long_statements]


def _built(rng: random.Random, lang: str) -> tuple[str, str, str]:
    """(text, --wrt, description) of a program drawn from EXPRESSIONS or STATEMENTS."""
    gen = rng.choice(EXPRESSIONS + STATEMENTS * 2)
    got = gen(rng, lang)
    prefix, params = "", "x, y"
    while isinstance(got[0], tuple):
        key, value = got[0]
        if key == "prefix":
            prefix += value
        else:
            params = value
        got = got[1:]
    body, what = got
    if gen is deep_subscripts:
        params = "x, y, a"
    text = program(lang, body, params)
    if prefix:  # after the includes and imports, before f
        head, _, rest = text.partition("\n\n")
        text = head + "\n\n" + prefix + "\n" + rest
    wrt = rng.choice(["x", "x,y", "y"]) if "v" * 20 not in params else "y"
    return text, wrt, what


def _base(rng: random.Random) -> tuple[str, bytes, list[str], str]:
    """A valid input to damage at the byte level: (file name, bytes, command line after the name,
    what it is)."""
    if rng.random() < 0.5:
        lang = rng.choice(LANGS)
        if rng.random() < 0.2:
            text, wrt, what = _built(rng, lang)
        else:
            text, wrt, what = program(lang, "x * y + math.sin(x)" if lang == "py" else "x * y + sin(x)"), "x", ""
        return "f" + SUFFIX[lang], text.encode(), _flags(lang, wrt), what
    g = rng.choice(golden_inputs())
    rest = ["--func", g.func, "--wrt", ",".join(g.wrt), *g.flags]
    return g.input.name, g.input.read_bytes(), rest, f"golden/{g.name}"


def _flags(lang: str, wrt: str) -> list[str]:
    """A built program's function and --wrt: f's, or for CUDA the kernel k's (which calls f)."""
    return ["--func", "k", "--wrt", "in"] if lang == "cu" else ["--func", "f", "--wrt", wrt]


def _insert(rng: random.Random, data: bytes, piece: bytes) -> bytes:
    k = rng.randrange(len(data) + 1)
    return data[:k] + piece + data[k:]


def nul_bytes(rng, data, name):
    for _ in range(rng.choice([1, 1, 3])):
        data = _insert(rng, data, b"\x00" * rng.choice([1, 1, 100]))
    return data, "NUL bytes"


BAD_UTF8 = [b"\xff", b"\xfe", b"\xc3", b"\xc3(", b"\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf",
            b"\xe2\x82", b"\xf0\x9f\x98"]


def invalid_utf8(rng, data, name):
    piece = rng.choice(BAD_UTF8)
    if rng.random() < 0.4:  # in a comment, where a lenient reader would not look
        comment = b"# " if name.endswith(".py") else b"// "
        return comment + piece + b"\n" + data, f"invalid UTF-8 {piece!r} in a comment"
    return _insert(rng, data, piece), f"invalid UTF-8 {piece!r}"


def bom(rng, data, name):
    kind = rng.choice(["utf8", "utf8", "twice", "cookie", "utf16", "middle"])
    if kind == "utf8":
        return b"\xef\xbb\xbf" + data, "a UTF-8 BOM"
    if kind == "twice":
        return b"\xef\xbb\xbf\xef\xbb\xbf" + data, "two UTF-8 BOMs"
    if kind == "cookie":
        return b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n" + data, "a UTF-8 BOM and a latin-1 cookie"
    if kind == "utf16":
        return b"\xff\xfe" + data.decode("utf-8", "replace").encode("utf-16-le"), "UTF-16 with a BOM"
    return _insert(rng, data, b"\xef\xbb\xbf"), "a UTF-8 BOM inside the file"


COOKIES = [b"# -*- coding: latin-1 -*-\n", b"# coding: utf-8\n", b"# coding=cp1252\n", b"# coding: klingon\n",
           b"# vim: set fileencoding=utf-16 :\n", b"# coding: ascii\n", b"#!/usr/bin/env python\n# coding: latin-1\n",
           b"\n\n# coding: latin-1\n", b"# coding: rot13\n", b"# coding: utf-8-sig\n"]


def coding_cookie(rng, data, name):
    cookie = rng.choice(COOKIES)
    extra = rng.choice([b"", b"# caf\xe9\n", b"# caf\xc3\xa9\n", b"# \xff\xfe\n"])
    return cookie + extra + data, f"coding cookie {cookie!r} then {extra!r}"


def line_ends(rng, data, name):
    kind = rng.choice(["crlf", "cr", "mixed", "crcrlf", "ff", "vt", "ls", "nel", "none"])
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n"), "CRLF line ends"
    if kind == "cr":
        return data.replace(b"\n", b"\r"), "lone CR line ends"
    if kind == "mixed":
        lines = data.split(b"\n")
        return b"".join(line + rng.choice([b"\n", b"\r\n", b"\r"]) for line in lines), "mixed line ends"
    if kind == "crcrlf":
        return data.replace(b"\n", b"\r\r\n"), "CR CR LF line ends"
    if kind == "ff":
        return data.replace(b"\n", b"\n\x0c", 3), "form feeds"
    if kind == "vt":
        return data.replace(b"\n", b"\n\x0b", 2), "vertical tabs"
    if kind == "ls":
        return data.replace(b"\n", "\u2028".encode(), 3), "U+2028 line separators"
    if kind == "nel":
        return data.replace(b"\n", b"\xc2\x85", 3), "NEL line ends"
    return data.rstrip(b"\n"), "no newline at the end"


BYTE_DAMAGE = [nul_bytes, invalid_utf8, bom, coding_cookie, line_ends, line_ends]

EMPTY_PY = [b"", b"\n", b" ", b"\t\n", b"\n" * 1000, b"# only a comment\n", b"# a\n# b\n" * 100,
            b'"""only a docstring"""\n', b"pass\n", b"#", b"\\", b"\\\n", b"x = 1\n", b"import math\n",
            b"def f(x): ...\n", b"def f(x):\n    pass\n", b"class f:\n    pass\n", b"f = lambda x: x * x\n",
            b"async def f(x):\n    return x\n", b"def f(*x):\n    return x[0]\n", b"def f(x, /, y):\n    return x\n"]
EMPTY_C = [b"", b"\n", b"/* only a comment */\n", b"// a\n" * 100, b"/*", b"/* /* */ */", b"#if 0\n#endif\n",
           b"#error nope\n", b"#include <math.h>\n", b";\n", b"double f(double x);\n", b"int x;\n",
           b"double f(double x) { }\n", b"double f(double x) { return x; }\n}\n", b"#define f(x) x\n",
           b"double f(double x, ...) { return x; }\n", b"double f(x) double x; { return x; }\n",
           b"typedef double f;\n", b"double (*f)(double);\n"]


def empty_or_comments(rng: random.Random) -> tuple[str, bytes, str]:
    lang = rng.choice(LANGS)
    data = rng.choice(EMPTY_PY if lang == "py" else EMPTY_C)
    return "f" + SUFFIX[lang], data, f"{data[:30]!r}"


def patho_case(seed: int, rng: random.Random) -> Case:
    kind = rng.random()
    if kind < 0.5:
        lang = rng.choice(LANGS)
        text, wrt, what = _built(rng, lang)
        name, data, rest = "f" + SUFFIX[lang], text.encode(), _flags(lang, wrt)
        if rng.random() < 0.2:
            data, more = rng.choice(BYTE_DAMAGE)(rng, data, name)
            what += "; " + more
    elif kind < 0.85:
        name, data, rest, base = _base(rng)
        data, what = rng.choice(BYTE_DAMAGE)(rng, data, name)
        what = f"{base}; {what}" if base else what
    else:
        name, data, what = empty_or_comments(rng)
        rest = rng.choice([["--wrt", "x"], ["--func", "f", "--wrt", "x"]])
    argv = ["grad", name, *rest]
    if rng.random() < 0.4:
        argv += ["-o", "grad" + (".cu" if "cuda" in rest or name.endswith(".cu") else SUFFIX[name.split(".")[-1]])]
    return Case(seed, "patho", what, [file(name, data)], argv)
