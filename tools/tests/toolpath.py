"""Puts tools/ on the import path for the tests and names their fixtures.

Every test module imports this first; it is not a test itself. With
tools/ on the path the package imports as mmlab (tools/mmlab/) and the
standalone scripts that tests load by name (fwdump) import as themselves.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data")

if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)


def data(name):
    """The path of fixture name under tools/tests/data/."""
    return os.path.join(DATA, name)


def tool(name):
    """The path of the tool script name under tools/."""
    return os.path.join(TOOLS, name)


def command(*args):
    """The argv that runs `python3 tools/mmlab ARGS...`, as run.sh runs it."""
    return [sys.executable, os.path.join(TOOLS, "mmlab"), *args]
