"""A counted loop's test written with the counter inside a sum or on the right is a counted loop.

``for (i = 0; i + kh <= h; i++)`` (a convolution's valid positions), ``n > i``, ``i - 1 < n``:
each is read as ``i < bound`` (parse/c_loop_tests.py), so the loop is a ``for`` with a known
trip count, its counter needs no tape, and its tapes are allocated once. Every gradient is
checked against central differences (``s2sad check``); a floating-point term stays where it is
(the loop is then a general one, still right).
"""

from __future__ import annotations

import pytest
from pycparser import c_parser

from s2sad import pipeline
from s2sad.parse.c_loop_tests import counter_test
from source_gradients import check_command

KERNEL = """
double f(int n, int k, const double x[n])
{{
    double s = 0.0;
    for (int i = {start}; {test}; i{step}) {{
        double acc = 0.0;
        for (int j = 0; j < k; j++)
            acc += x[i] * x[j] + 0.5 * x[j];
        s += acc * acc;
    }}
    return s;
}}
"""

COUNTED = [
    ("0", "i + k <= n", "++"),
    ("0", "k + i < n", "++"),
    ("1", "i - 1 < n - 1", "++"),
    ("0", "n > i", "++"),
    ("0", "n - k >= i", "++"),
    ("n - 1", "i - k >= 0", "--"),
    ("n - 1", "0 <= i - 2", "--"),
    ("0", "i + 2 * k < n", "+= 2"),
]


@pytest.mark.parametrize("target", ["c", "py"])
@pytest.mark.parametrize("start, test, step", COUNTED)
def test_a_test_with_the_counter_in_a_sum_is_a_counted_loop(tmp_path, capsys, start, test, step, target):
    source = KERNEL.format(start=start, test=test, step=step)
    code = pipeline.gradient_source(source, "f.c", "f", ["x"], "c", pipeline.Options(level=2))
    assert "tape_i" not in code and "n_iter" not in code and "realloc" not in code, code
    check_command(tmp_path, capsys, source, "f", "x", "n=9,k=3", target, "f.c")


def test_a_floating_point_term_stays_a_general_loop(tmp_path, capsys):
    source = KERNEL.format(start="0", test="i + 0.5 < n - 2", step="++")
    code = pipeline.gradient_source(source, "f.c", "f", ["x"], "c", pipeline.Options(level=2))
    assert "n_iter" in code  # a while loop: its iterations counted on a tape
    check_command(tmp_path, capsys, source, "f", "x", "n=9,k=3", "c", "f.c")


def _test(text: str):
    ast = c_parser.CParser().parse(f"void g(int i, int n, int k) {{ while ({text}) ; }}")
    return ast.ext[0].body.block_items[0].cond


@pytest.mark.parametrize("text, wanted", [
    ("i < n", ("<", "n")), ("n > i", ("<", "n")), ("i + k <= n", ("<=", "n - k")),
    ("k + i < n", ("<", "n - k")), ("i - 1 >= n", (">=", "n + 1")), ("0 <= i - 2", (">=", "0 + 2")),
])
def test_the_counter_is_put_on_the_left(text, wanted):
    from pycparser import c_generator
    cmp, bound = counter_test(_test(text), "i", lambda node: True)
    assert (cmp, c_generator.CGenerator().visit(bound)) == wanted


@pytest.mark.parametrize("text", ["i * 2 < n", "k - i < n", "i + i < n", "i < n + i", "i + k < n"])
def test_tests_that_are_not_the_counter_against_a_bound(text):
    ints = {"k"} if text != "i + k < n" else set()  # (the last: k taken for a floating-point term)
    found = counter_test(_test(text), "i", lambda node: getattr(node, "name", None) in ints)
    assert found is None
