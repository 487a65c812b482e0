"""``s2sad explain``: one self-contained HTML page that shows how a gradient came about.

The page holds, side by side, the primal source (each line numbered and addressable) and the
generated gradient, whose ``line N:`` comments are links to the source line each adjoint block
comes from (hovering a source line marks the blocks that come from it); below them what the
reverse sweep caches (the ``--report`` summary: each tape, its type and bytes per iteration),
and what every optimization pass did, before and after differentiation (the ops it removed or
added, the IR after it behind a fold). Nothing is fetched: styles and the one small script are
in the page, so it opens from disk, in a mail attachment or in CI's artifacts alike.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from . import pipeline
from .opt.passes import Ran, observing
from .ssa.ir import Module
from .ssa.printer import print_module
from .version import VERSION
from .source_files import source_lines


@dataclass
class PassEffect:
    """One pass as it ran: where, how many ops the module had before and after, its IR after."""

    label: str  # "primal", "adjoint" or "target"
    name: str
    place: int
    total: int
    before: int
    after: int
    ir: str
    changed: bool  # whether the IR differs from the IR before it

def _ops(module: Module) -> int:
    return sum(1 for fn in module.functions.values() for _ in fn.walk())


def explain_page(source: str, filename: str, func: Optional[str], wrt: list[str], target: str = "py",
                 options: pipeline.Options = pipeline.DEFAULT) -> str:
    """The page for the gradient ``s2sad grad FILE --func F --wrt ... --target T`` writes."""
    effects: list[PassEffect] = []
    last: dict[str, tuple[int, str]] = {}  # pipeline -> (ops, IR) before its next pass

    def seen(ran: Ran, module: Module) -> None:
        now = (_ops(module), print_module(module))
        if ran.place:
            before = last[ran.label]
            effects.append(PassEffect(ran.label, ran.name, ran.place, len(ran.names), before[0], now[0], now[1],
                                      now[1] != before[1]))
        last[ran.label] = now

    report: list[str] = []
    with observing(seen):
        gradient = pipeline.gradient_source(source, filename, func, wrt, target, replace(options, report=True), report)
    name = pipeline.choose_function(source, filename, func, options.cflags)
    return _page(Path(filename).name, name, wrt, target, source, gradient, report, effects)


def _page(file: str, func: str, wrt: list[str], target: str, source: str, gradient: str, report: list[str],
          effects: list[PassEffect]) -> str:
    title = f"The gradient of {func} with respect to {', '.join(wrt)}"
    lines = source_lines(source)
    primal = "".join(f'<span class="line" id="L{k}"><span class="no">{k}</span>{html.escape(text)}</span>'
                       for k, text in enumerate(lines, 1))
    linked = "\n".join(_gradient_line(text, len(lines)) for text in gradient.splitlines())
    memory = html.escape("\n".join(report)) if report else "nothing is cached"
    return _TEMPLATE.format(
        title=html.escape(title), file=html.escape(file), target=html.escape(target), version=html.escape(VERSION),
        primal=primal, gradient=linked, memory=memory, passes=_passes(effects),
    )


_LINE_COMMENT = re.compile(r"^(\s*)(#|//) line (\d+):(.*)$")


def _gradient_line(text: str, count: int) -> str:
    """One line of the gradient; a ``line N:`` comment links to source line N and starts a
    block that hovering that line marks."""
    found = _LINE_COMMENT.match(text)
    if found is None or not 1 <= int(found.group(3)) <= count:
        return html.escape(text)
    indent, mark, line, rest = found.groups()
    return (f'{html.escape(indent)}<a class="from" href="#L{line}" data-line="{line}">'
            f"{html.escape(mark)} line {line}:</a>{html.escape(rest)}")


def _passes(effects: list[PassEffect]) -> str:
    if not effects:
        return "<p>No pass ran (-O0 runs only the adjoint's dead-code elimination, which found nothing).</p>"
    rows = []
    for e in effects:
        said = f"{e.before} → {e.after} ops ({e.after - e.before:+d})" if e.changed else "no change"
        rows.append(
            f'<tr><td>{html.escape(e.label)}</td><td>{e.place} of {e.total}</td><td><code>{html.escape(e.name)}'
            f"</code></td><td>{html.escape(said)}</td><td><details><summary>IR after</summary>"
            f"<pre>{html.escape(e.ir)}</pre></details></td></tr>")
    return ("<table><thead><tr><th>pipeline</th><th>pass</th><th>name</th><th>effect</th><th></th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


_TEMPLATE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em; color: #1d1d1f; background: #fff; }}
h1 {{ font-size: 1.3em; }} h2 {{ font-size: 1.1em; margin-top: 1.5em; }}
.columns {{ display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }}
pre {{ background: #f6f7f9; border: 1px solid #d8dbe0; padding: 0.6em; overflow-x: auto; font-size: 0.85em;
       line-height: 1.35; }}
.line {{ display: block; }} .no {{ display: inline-block; width: 3em; color: #8a8f98; user-select: none; }}
.line:target, .line.lit {{ background: #fff3b0; }} a.from {{ color: #0b5cad; }} a.from.lit {{ background: #fff3b0; }}
table {{ border-collapse: collapse; font-size: 0.9em; }} td, th {{ border: 1px solid #d8dbe0; padding: 0.3em 0.6em;
       text-align: left; vertical-align: top; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p>{file}, as <code>s2sad grad --report</code> writes it for <code>--target {target}</code> (s2sad {version}). Each
<code>line N</code> comment of the gradient links to the source line its adjoint code comes from; hover a
source line to see its adjoint blocks.</p>
<div class="columns">
<section><h2>The function</h2><pre id="primal">{primal}</pre></section>
<section><h2>Its gradient</h2><pre id="gradient">{gradient}</pre></section>
</div>
<h2>What the reverse sweep caches</h2>
<pre id="memory">{memory}</pre>
<h2>What each optimization pass did</h2>
<div id="passes">{passes}</div>
<script>
for (const line of document.querySelectorAll("#primal .line")) {{
  const n = line.id.slice(1);
  const blocks = document.querySelectorAll('a.from[data-line="' + n + '"]');
  line.addEventListener("mouseenter", () => blocks.forEach(b => b.classList.add("lit")));
  line.addEventListener("mouseleave", () => blocks.forEach(b => b.classList.remove("lit")));
}}
</script>
</body>
</html>
"""
