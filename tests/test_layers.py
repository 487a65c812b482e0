"""The package tree follows the pipeline: no package imports one that comes later, and no
module imports itself back through others.

Every ``import`` in s2sad counts, those inside functions and under ``TYPE_CHECKING`` too.
What still breaks the rule is listed below with the reason and where it is to go (issue 15);
a listed exception that no longer occurs fails the test as well, so the lists only shrink.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "s2sad"

# In pipeline order; a package may import those before it. The emitters are siblings: none may
# import another.
LAYERS = [
    {"ssa"},
    {"diagnostics", "languages", "version", "interpreter_settings"},
    {"source_files", "progress", "deep_stack"},
    {"analysis"},
    {"parse"},
    {"opt"},
    {"adjoint"},
    {"emit"},
    {"emit_py", "emit_c", "emit_cuda"},
    {"pipeline"},
    {"api"},
    {"check_shims"},  # check's C shims (structs, tables of rows)
    {"check", "explain"},
    {"cli"},
    {"__main__", "__init__"},
]

KNOWN_LAYER_BREAKS = {
    ("emit_cuda", "emit_c"): "CUDA C is a C dialect: the CUDA emitter is CUDA's spelling over C's",
}

KNOWN_CYCLES: dict[frozenset, str] = {}


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Module -> the s2sad modules it imports (names without the ``s2sad.`` prefix)."""
    modules = {_module(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                    target = ".".join(base + ([node.module] if node.module else [])).lstrip(".")
                elif node.module and node.module.startswith("s2sad"):
                    target = node.module.removeprefix("s2sad").lstrip(".")
                else:
                    continue
                named = [f"{target}.{a.name}".lstrip(".") for a in node.names]
                graph[name].update(m for m in named if m in modules)
                if not any(m in modules for m in named):
                    graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name.removeprefix("s2sad.") for a in node.names
                                   if a.name.startswith("s2sad."))
    return graph


def _package(module: str) -> str:
    return module.split(".")[0] if module else "__init__"


def _rank(package: str) -> int:
    return next(k for k, layer in enumerate(LAYERS) if package in layer)


def test_every_package_has_a_layer():
    packages = {_package(m) for m in _imports()} | {p.stem for p in SRC.glob("*.py")} | {
        p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set().union(*LAYERS), packages - set().union(*LAYERS)


def test_no_package_imports_a_later_one():
    breaks: dict[tuple[str, str], list[str]] = defaultdict(list)
    for module, targets in _imports().items():
        src = _package(module)
        for target in targets:
            dst = _package(target)
            if dst != src and _rank(dst) >= _rank(src):
                breaks[(src, dst)].append(f"{module} -> {target}")
    new = {k: v for k, v in breaks.items() if k not in KNOWN_LAYER_BREAKS}
    assert not new, "imports against the pipeline order:\n" + "\n".join(
        f"  {a} -> {b}: {', '.join(sorted(v))}" for (a, b), v in sorted(new.items()))
    gone = set(KNOWN_LAYER_BREAKS) - set(breaks)
    assert not gone, f"fixed, so take them off KNOWN_LAYER_BREAKS: {sorted(gone)}"


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles_between_modules():
    cycles = set(_cycles(_imports()))
    new = cycles - set(KNOWN_CYCLES)
    assert not new, f"import cycles: {[sorted(c) for c in new]}"
    gone = set(KNOWN_CYCLES) - cycles
    assert not gone, f"fixed, so take them off KNOWN_CYCLES: {[sorted(c) for c in gone]}"


def test_languages_are_spelled_once():
    """Suffixes and targets live in s2sad/languages.py; the CLI, the pipeline and the C front
    end ask it (a .cuh output is CUDA, a .H input C, as .h is)."""
    from s2sad import languages

    assert languages.target_of("grad.cuh") == "cuda" and languages.target_of("grad.py") == "py"
    assert languages.is_c("ops.H") and not languages.is_cuda("ops.h") and languages.is_cuda("k.CU")
    assert languages.source_language("notes.txt") is None
    text = "\n".join(p.read_text() for p in SRC.rglob("*.py") if p.name != "languages.py")
    for spelled in ('".cuh"', '".cu"', '(".py", "numba", "c", "cuda")'):
        assert spelled not in text, f"{spelled} spelled outside s2sad/languages.py"


def test_reverse_mode_spells_no_c():
    """A gradient keeps its primal's C declaration as the front end recorded it (ssa/attrs.py
    SOURCE_ATTRS); emit_c spells the gradient's from it and grad_info (emit_c/signature.py)."""
    for path in (SRC / "adjoint").rglob("*.py"):
        text = path.read_text()
        for attr in ('"c_params"', '"c_result"'):
            assert attr not in text, f"{path.relative_to(SRC)} reads {attr}: C spelling is emit_c's"
