"""``s2sad ir --stage primal|optimized|adjoint`` and ``--print-after PASS|all``: the teaching
views of what the optimizer and the reverse mode do, each a parseable IR text."""

from __future__ import annotations

import re

import pytest

from s2sad import pipeline
from s2sad.cli import main
from s2sad.ssa.parser import parse_module
from s2sad.opt.passes import ADJOINT_PIPELINES

NORM = "examples/norm.py"


def _ir(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["ir", NORM, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_stages_show_what_each_step_made(capsys):
    primal = _ir(capsys, "--stage", "primal", "-O2")[1]
    optimized = _ir(capsys, "-O2")[1]
    adjoint = _ir(capsys, "--stage", "adjoint", "--wrt", "in", "-O2")[1]
    # The primal stage ignores -O; -O2 hoists the call of mag out of norm's loop.
    def norm(text: str) -> str:
        return text.split("func @norm")[1]

    assert norm(primal).index("for(") < norm(primal).index("call(")
    assert norm(optimized).index("call(") < norm(optimized).index("for(")
    assert "func @grad_norm(" in adjoint and "func @grad_norm(" not in optimized
    for text in (primal, optimized, adjoint):
        parse_module(text)  # each is IR text the parser reads back


PRIMAL = "inline,fold,arrays,counted,cse,licm,cse,inline-loops,fold,arrays,cse,licm,cse,dce"
ADJOINT = ADJOINT_PIPELINES[2]


def test_print_after_labels_every_run_of_the_pass(capsys):
    code, out, _ = _ir(capsys, "--stage", "adjoint", "--wrt", "in", "-O2", "--print-after", "cse")
    assert code == 0
    labels = re.findall(r"^// after .*$", out, flags=re.M)
    assert labels == [
        *(f"// after cse: pass {k} of 14 of the primal pipeline ({PRIMAL})" for k in (5, 7, 11, 13)),
        *(f"// after cse: pass {k} of {len(ADJOINT.split(','))} of the adjoint pipeline ({ADJOINT})" for k in (3, 5)),
    ]
    for chunk in re.split(r"^// after .*\n", out, flags=re.M)[1:]:
        parse_module(chunk)
    all_passes = _ir(capsys, "-O2", "--print-after", "all")[1]
    assert len(re.findall(r"^// after ", all_passes, flags=re.M)) == 15  # the primal's 14, and masked-where
    assert "// after masked-where: pass 1 of 1 of the pre-differentiation pipeline (masked-where)" in all_passes


def test_print_after_a_pass_that_did_not_run_says_so(capsys):
    assert _ir(capsys, "--print-after", "licm")[1] == "// licm: no such pass ran on the way to the optimized stage\n"


@pytest.mark.parametrize("argv, fragment", [
    (["--stage", "adjoint"], "--stage adjoint needs --wrt"),
    (["--wrt", "in"], "--wrt applies to --stage adjoint"),
    (["--print-after", "nope"], "--print-after nope: no such pass"),
])
def test_bad_use(capsys, argv, fragment):
    code, _, err = _ir(capsys, *argv)
    assert code == 2 and fragment in err


def test_the_pipeline_function_gives_the_same_text():
    source = open(NORM).read()
    text = pipeline.ir_text(source, NORM, None, pipeline.Options(level=2), "adjoint", ["in"])
    assert "func @grad_norm(" in text
