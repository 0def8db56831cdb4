"""The interpreter the tools need: one that imports numpy and scipy.

Debian's python3-numpy and python3-scipy (tools/deps.sh) install for
Debian's own /usr/bin/python3; a python3 put first on PATH (pyenv, a
venv, a user's build) may not see them. Rather than fail there, the
entry points run themselves again under DEBIAN_PYTHON. Standard library
only: this runs before anything imports numpy.
"""
import os
import sys

DEBIAN_PYTHON = "/usr/bin/python3"
_AGAIN = "MMLAB_REEXEC"  # set on the second try, so a missing numpy cannot loop


def has_numpy():
    """True when this interpreter imports numpy and scipy (a user's python3 may have the
    one without the other)."""
    try:
        import numpy  # noqa: F401
        import scipy.special  # noqa: F401
    except ImportError:
        return False
    return True


def ensure_numpy(argv):
    """Re-execute argv (a script and its arguments) under DEBIAN_PYTHON when this
    interpreter lacks numpy or scipy and that one is another; else return and let
    the import fail with its own message (mmlab.stats names the packages)."""
    if has_numpy() or os.environ.get(_AGAIN) or not os.access(DEBIAN_PYTHON, os.X_OK):
        return
    if os.path.realpath(sys.executable) == os.path.realpath(DEBIAN_PYTHON):
        return
    os.environ[_AGAIN] = "1"
    os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, *argv])
