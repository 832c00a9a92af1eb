"""A stand-in for the triton package, for tests/cli/test_capture.sh: only
the compilation-listener contract of Triton 3.4-3.8 (knobs.compilation.
listener, called by compile() with keyword arguments), written for treg's
tests; no GPU, no compiler.  compile() takes an existing cache entry folder
instead of a kernel and reports it as Triton would have."""

__version__ = "3.6.0+treg.stub"

from . import compiler  # noqa: E402  (as Triton's: triton.knobs exists after import triton)
from .compiler import compile  # noqa: E402

__all__ = ["compile", "compiler"]
