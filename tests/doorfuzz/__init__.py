"""A front-door fuzzer for s2sad (issue 16): bad input must never get past the door as a bug.

Each case is one ``python -m s2sad ...`` run, as a user would start it, in a fresh temporary
folder, with a timeout. ``case`` holds a case (the files of its folder, FIFOs, devices and
symbolic links included, and its command line) and lays it out; ``golden`` finds the golden
inputs and their flags; ``mutate`` draws broken variants of them, ``patho`` pathological files
(deep nesting, long lines, NUL bytes, invalid UTF-8, odd line ends...), ``cmdline`` bad command
lines and odd input and output paths; ``run`` runs a case and ``classify`` says what went wrong:
a traceback, an internal error, an error without a location, a hang, a crash, a partial file
left behind, a non-regular file replaced. ``driver`` runs many cases (``scripts/doorfuzz``).
"""
