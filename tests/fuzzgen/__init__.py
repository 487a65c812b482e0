"""A differential fuzzer for s2sad: random valid programs, every gradient checked.

``program`` holds the program tree, ``intrinsics`` the math functions and their domains,
``generate`` draws programs, ``render_py`` / ``render_c`` print them (and a traced Python twin
that records every branch decision), ``gradients`` differentiates and calls the output of each
target, ``check`` compares the gradients with central differences and with one another,
``shrink`` minimizes a failing program, ``driver`` runs many programs (``scripts/fuzz``).
"""
