"""s2sad: source-to-source reverse-mode automatic differentiation.

The command line is ``s2sad.cli``; in-process use is ``s2sad.api``, whose functions are
offered here: ``grad``, ``value_and_grad``, ``gradient_source``, ``ir`` and the exception
``DifferentiationError``.
"""

from .api import DifferentiationError, gradient_source, grad, ir, value_and_grad
from .version import VERSION as __version__

__all__ = ["DifferentiationError", "grad", "gradient_source", "ir", "value_and_grad", "__version__"]
