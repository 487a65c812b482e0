"""Every gradient function states the contract's convention for its own parameters
(``s2sad.emit.convention``): a docstring in Python, a comment above it in C and CUDA.

Checked on every golden output: the gradient the caller calls names each of its shadows and
its seed in its J, says what the shadows hold on return and what it gives back for each
scalar; a helper's says it follows that convention.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
PYTHON = sorted(GOLDEN.rglob("expected*.py"))
C = sorted([*GOLDEN.rglob("expected*.c"), *GOLDEN.rglob("expected*.cu")])


def _entry(text: str) -> str:
    """The gradient the file is for: the header says which function it differentiates."""
    m = re.search(r"the gradient of (\w+) with respect to", text)
    assert m, "no header naming the function"
    return f"grad_{m.group(1)}"


@pytest.mark.parametrize("path", PYTHON, ids=lambda p: str(p.relative_to(GOLDEN)))
def test_every_python_gradient_has_its_docstring(path):
    text = path.read_text()
    entry = _entry(text)
    gradients = [f for f in ast.parse(text).body if isinstance(f, ast.FunctionDef) and f.name.startswith("grad_")]
    assert any(f.name == entry for f in gradients)
    for f in gradients:
        raw = ast.get_docstring(f)
        assert raw, f"{f.name} has no docstring"
        doc = " ".join(raw.split())  # the words, whatever the line breaks
        if f.name != entry:
            assert "follow the same convention" in doc or "without its checks" in doc, doc
            continue
        params = [a.arg for a in f.args.args]
        formula = next(line for line in raw.splitlines() if line.strip().startswith("J = "))
        for p in params:
            if p.startswith("d_") and p[2:] in params:  # a shadow: in J, and said what it holds on return
                assert f"<{p}, {p[2:]}>" in formula, (p, formula)
                assert p in doc.split("On return, ")[1], doc
        if "d_return" in params:
            assert "d_return" in formula
        # (a Numba entry that checks ranks returns what the gradient it calls returns)
        if any(isinstance(s, ast.Return) and s.value is not None and not isinstance(s.value, ast.Call)
               for s in ast.walk(f)):
            assert "Returns dJ/d" in doc or "Returns (dJ/d" in doc, doc


@pytest.mark.parametrize("path", C, ids=lambda p: str(p.relative_to(GOLDEN)))
def test_every_c_gradient_has_its_comment(path):
    text = path.read_text()
    entry = _entry(text)
    lines = text.split("\n")
    heads = [k for k, line in enumerate(lines) if re.match(r"(static |__global__ |__device__ |static inline )*"
                                                             r"(void|double|float) (grad_\w+)\(", line)]
    assert heads, "no gradient function"
    for k in heads:
        name = re.search(r"(grad_\w+)\(", lines[k]).group(1)
        if name == f"{entry}_workspace_free":  # (--workspace: no gradient, its own comment)
            continue
        above = []
        j = k - 1
        while j >= 0 and lines[j].startswith("//"):
            above.insert(0, lines[j][2:].strip())
            j -= 1
        comment = " ".join(" ".join(above).split())
        if name in (entry, f"{entry}_ws"):  # (grad_f_ws: the entry on a workspace, --workspace)
            assert comment.startswith("The gradient of"), (name, comment)
            # each adjoint it adds goes where one of its parameters points (*d_a, d_w->gamma)
            signature = " ".join(lines[k:k + next(i for i, line in enumerate(lines[k:]) if "{" in line) + 1])
            declared = set(re.findall(r"(\w+)\s*[,)]", signature))
            for target in re.findall(r"dJ/d\S+ to \*?(\w+)", comment.split(" Adds ")[-1]):
                assert target in declared, (name, target, signature)
        else:
            assert "follow the same convention" in comment, (name, comment)
