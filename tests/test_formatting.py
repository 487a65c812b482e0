"""``s2sad.emit_py.formatting``: generated Python laid out exactly as ``ruff format`` lays it out.

Held to ruff itself (default settings) on random programs built from the constructs s2sad
writes (random name lengths put every statement near the 88-column edge somewhere), and on
rules stated here, so that the layout stays right where ruff is not installed.
"""

from __future__ import annotations

import ast
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from s2sad.emit_py.formatting import formatted

RUFF = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
needs_ruff = pytest.mark.skipif(not Path(RUFF).exists(), reason="ruff is not installed")


def ruff_format(text: str) -> str:
    r = subprocess.run([RUFF, "format", "--isolated", "--no-cache", "-"], input=text, capture_output=True,
                       text=True, check=True)
    return r.stdout


# -- random programs --------------------------------------------------------------------

_BINOPS = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv, ast.Mod, ast.MatMult]


class _Programs:
    """Random functions of the statements and expressions generated gradients hold."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)

    def name(self) -> str:
        r = self.r
        return r.choice(["x", "d_", "tape_", "t", "a", "é"]) + "".join(
            r.choice("abcxyz_0123") for _ in range(r.choice([1, 2, 3, 5, 8, 12, 20, 30]))) + "v"

    def atom(self) -> ast.expr:
        k = self.r.random()
        if k < 0.5:
            return ast.Name(self.name())
        if k < 0.7:
            return ast.Constant(self.r.choice([1.0, 2.0, 0.5, 3, 1e-05, 0.6931471805599453]))
        if k < 0.8:
            return ast.Attribute(ast.Name(self.name()), self.r.choice(["shape", "T", "size"]))
        return ast.Attribute(ast.Name("math"), "pi")

    def call(self, depth: int) -> ast.expr:
        r = self.r
        f = r.choice(["math.exp", "np.sum", "max", "np.where", "float", self.name(), "np.broadcast_to"])
        func = ast.Attribute(ast.Name(f.split(".")[0]), f.split(".")[1]) if "." in f else ast.Name(f)
        keywords = [ast.keyword("axis", ast.Constant(1))] if r.random() < 0.15 else []
        return ast.Call(func, [self.expr(depth - 1) for _ in range(r.choice([1, 1, 2, 3, 4]))], keywords)

    def index(self, depth: int) -> ast.expr:
        c = self.r.random()
        if c < 0.4:
            return self.expr(depth - 1)
        if c < 0.6:
            return ast.Slice(self.expr(depth - 2), None, None)
        if c < 0.7:
            return ast.Slice(None, self.expr(depth - 2), None)
        if c < 0.8:
            return ast.Slice(self.atom(), self.expr(depth - 2), ast.Constant(2) if self.r.random() < 0.3 else None)
        return ast.Tuple([self.expr(depth - 2), ast.Slice(None, None, None) if self.r.random() < 0.5 else self.atom()])

    def expr(self, depth: int) -> ast.expr:
        r = self.r
        if depth <= 0:
            return self.atom()
        k = r.random()
        if k < 0.4:
            return ast.BinOp(self.expr(depth - 1), r.choice(_BINOPS)(), self.expr(depth - 1))
        if k < 0.55:
            return self.call(depth)
        if k < 0.65:
            return ast.Subscript(ast.Name(self.name()), self.index(depth))
        if k < 0.72:
            test = ast.Compare(self.expr(depth - 1), [r.choice([ast.Lt, ast.GtE, ast.NotEq])()], [self.expr(depth - 1)])
            return ast.IfExp(test, self.expr(depth - 1), self.expr(depth - 1))
        if k < 0.78:
            return ast.UnaryOp(r.choice([ast.USub(), ast.USub(), ast.Not()]), self.expr(depth - 1))
        if k < 0.82:
            return ast.Tuple([self.expr(depth - 1), self.expr(depth - 1)])
        if k < 0.87:
            inner = ast.Call(ast.Attribute(ast.Name(self.name()), "reshape"), [self.expr(depth - 1)], [])
            tail = r.choice(["T", "copy", "reshape"])
            e: ast.expr = ast.Attribute(inner, tail)
            return e if tail == "T" else ast.Call(e, [self.atom()] if tail == "reshape" else [], [])
        if k < 0.9:
            loop = ast.comprehension(ast.Name("i"), ast.Call(ast.Name("range"), [self.atom()], []), [], 0)
            return ast.ListComp(self.expr(depth - 1), [loop])
        if k < 0.95:
            return ast.BoolOp(r.choice([ast.And(), ast.Or()]), [self.expr(depth - 1), self.expr(depth - 1)])
        return ast.Compare(self.expr(depth - 1), [ast.Lt()], [self.expr(depth - 1)])

    def statement(self) -> ast.stmt:
        r = self.r
        k, e = r.random(), self.expr(r.choice([1, 2, 3, 4, 5]))
        if k < 0.4:
            return ast.Assign([ast.Name(self.name())], e, lineno=0)
        if k < 0.55:
            target = ast.Subscript(ast.Name(self.name()), self.expr(1))
            return ast.AugAssign(target, r.choice([ast.Add(), ast.Sub()]), e)
        if k < 0.65:
            return ast.Return(e)
        if k < 0.72:
            return ast.Assign([ast.Name(self.name())], ast.Tuple([e, self.expr(2)]), lineno=0)
        if k < 0.8:
            return ast.If(e, [ast.Pass()], [ast.Expr(self.call(2))] if r.random() < 0.3 else [])
        if k < 0.86:
            bounds = ast.Call(ast.Name("range"), [self.expr(2), self.expr(2), ast.Constant(-1)], [])
            return ast.For(ast.Name("i"), bounds, [ast.Pass()], [], lineno=0)
        if k < 0.92:
            return ast.While(e, [ast.Break()], [])
        return ast.Expr(ast.Call(ast.Name(self.name()), [e, self.expr(2)], []))

    def module(self, functions: int) -> str:
        defs = []
        for k in range(functions):
            params = [ast.arg(self.name()) for _ in range(self.r.choice([1, 2, 4, 7]))] + [ast.arg("d_return")]
            args = ast.arguments([], params, None, [], [], None, [ast.Constant(1.0)])
            defs.append(ast.FunctionDef(f"f{k}", args, [self.statement() for _ in range(10)], [], None, lineno=0))
        text = ast.unparse(ast.fix_missing_locations(ast.Module(defs, [])))
        return "# Generated\n\n\n" + text.replace("\n\ndef ", "\n\n\ndef ") + "\n"


def _seeds() -> range:
    """4 seeds in the suite; ``S2SAD_FORMAT_SEEDS=10-700`` for a campaign."""
    first, _, last = os.environ.get("S2SAD_FORMAT_SEEDS", "0-3").partition("-")
    return range(int(first), int(last or first) + 1)


@needs_ruff
@pytest.mark.parametrize("seed", _seeds())
def test_formatting_is_ruff_format_on_random_programs(seed):
    text = _Programs(seed).module(15)
    assert formatted(text) == ruff_format(text)


@pytest.mark.parametrize("seed", range(2))
def test_formatting_is_a_fixed_point(seed):
    once = formatted(_Programs(100 + seed).module(8))
    assert formatted(once) == once


# -- the rules, stated ------------------------------------------------------------------


def _body(text: str) -> str:
    return formatted("def f(x):\n" + "".join(f"    {line}\n" for line in text.strip("\n").split("\n")))


@pytest.mark.parametrize("source, laid_out", [
    ("y = x ** 2.0 + a.b ** -c", "y = x**2.0 + a.b**-c"),  # simple operands hug
    ("y = f(x) ** 2.0 + (a + b) ** 2", "y = f(x) ** 2.0 + (a + b) ** 2"),
    ("y = -x ** 2.0", "y = -(x**2.0)"),  # a unary operator's power in parentheses
    ("y = v[i * d:] + v[n:] + v[-1:] + v[a.b:]", "y = v[i * d :] + v[n:] + v[-1:] + v[a.b :]"),
    ("d_x += (t if c else 0.0)", "d_x += t if c else 0.0"),  # a whole value's parentheses go
    ("y = (a and b) or c", "y = (a and b) or c"),  # others stay
])
def test_spacing_rules(source, laid_out):
    assert _body(source) == f"def f(x):\n    {laid_out}\n"


def test_a_long_sum_breaks_before_its_operators_inside_parentheses():
    names = [f"term_number_{k}_of_the_sum" for k in range(5)]
    got = _body(f"total = {' + '.join(names)}")
    assert got == "def f(x):\n    total = (\n" + "".join(
        f"        {'+ ' if k else ''}{n}\n" for k, n in enumerate(names)) + "    )\n"


def test_a_value_ending_in_brackets_breaks_them_and_takes_no_parentheses():
    got = _body("t0 = d_s / (2.0 * math.sqrt(cross_x * cross_x + cross_y * cross_y + cross_z * cross_z))")
    assert got == ("def f(x):\n    t0 = d_s / (\n"
                   "        2.0 * math.sqrt(cross_x * cross_x + cross_y * cross_y + cross_z * cross_z)\n    )\n")


def test_arguments_go_on_one_line_then_one_per_line_with_a_trailing_comma():
    short = _body("grad_subtract(x[i * d:], mu_of_the_cluster[c * d:], d_mu_of_the_cluster[c * d:], tmp_for_it)")
    assert short.split("\n")[1:4] == [
        "    grad_subtract(",
        "        x[i * d :], mu_of_the_cluster[c * d :], d_mu_of_the_cluster[c * d :], tmp_for_it",
        "    )",
    ]
    long = _body("g(" + ", ".join(f"argument_number_{k}" for k in range(6)) + ")")
    assert long.split("\n")[1:9] == ["    g("] + [f"        argument_number_{k}," for k in range(6)] + ["    )"]


def test_comments_blank_lines_and_names_outside_ascii_are_kept():
    text = ("# header\n\n\ndef f(é):\n    # the line's comment\n    y = é ** 2.0  # why\n\n"
            "    if y > 0.0:\n        y = 0.0\n    elif y < -1.0:\n        y = 1.0\n"
            "    else:\n        pass\n    return y\n")
    assert formatted(text) == text.replace("é ** 2.0", "é**2.0")


@needs_ruff
def test_rules_agree_with_ruff():
    cases = ["y = x ** 2.0 + a.b ** -c", "y = -x ** 2.0", "y = v[i * d:] + v[n:] + v[-1:] + v[a.b:]",
             "d_x += (t if c else 0.0)"]
    text = "def f(x):\n" + "".join(f"    {c}\n" for c in cases)
    assert formatted(text) == ruff_format(text)


@needs_ruff
def test_a_gradient_with_keyword_only_parameters_is_laid_out_too():
    """A parameter with a default before the seed makes d_return keyword-only (``*, d_return``):
    the layout copied such a function as printed, so its long lines and spaced slices stayed as
    they were (probes: layer_norm, heat_equation_rebind)."""
    text = ("def grad_f(u0, d_u0, alpha, d_alpha, nsteps=50, *, d_return, scale=1.0):\n"
            "    d_var = np.sum(np.sum(-(t2 * xhat), axis=0, keepdims=True) / (2.0 * t1), axis=0, keepdims=True)\n"
            "    d_un[:tape[step]] += t14\n"
            "    d_un[1:tape2[step] - 1] += t9\n"
            "    return d_alpha\n")
    assert formatted(text) == ruff_format(text)
    assert "d_un[: tape[step]]" in formatted(text)


@needs_ruff
def test_a_function_decorated_with_a_dict_of_options_is_laid_out_too():
    """``@numba.njit(parallel={"numpy": False}, ...)``: the layout knew no dict literal and copied
    the whole decorated function as printed (replay of fuzz seed 13102402)."""
    text = ('@numba.njit(parallel={"numpy": False}, cache=NUMBA_CACHE)\n'
            "def grad_f(x, d_x, W, n):\n"
            "    t41 = np.mean(np.log(2.0 + np.tanh(np.sum(np.log(2.0 + np.tanh(W)) * x_long, axis=1))))\n"
            "    return {\"a\": t41, \"b\": [1, 2]}\n")
    assert formatted(text) == ruff_format(text)
    assert "    t41 = np.mean(\n" in formatted(text)
