"""Puts tools/ on the import path for the tests and names their fixtures.

Every test module imports this first; it is not a test itself. With
tools/ on the path the package imports as mmlab (tools/mmlab/) and the
standalone scripts that tests load by name (fwdump) import as themselves.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

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


PEER_SRC = os.path.join(TOOLS, "peer", "src")


def build_peer_driver(tmp, name, driver, sources, flags=()):
    """Compiles the C test driver text `driver` with the mmpeer files `sources`
    (tools/peer/src) into tmp/name and returns the executable's path."""
    path = os.path.join(tmp, name + ".c")
    with open(path, "w") as f:
        f.write(driver)
    exe = os.path.join(tmp, name)
    subprocess.run(["cc", "-std=gnu11", *flags, "-Wall", "-Wextra", "-Werror", "-I", PEER_SRC,
                    "-o", exe, path, *(os.path.join(PEER_SRC, s) for s in sources)],
                   check=True, capture_output=True, text=True)
    return exe


@unittest.skipUnless(shutil.which("cc"), "no C compiler")
class PeerDriverCase(unittest.TestCase):
    """A test case around one C driver of mmpeer code, built once per class: the
    subclass sets NAME, DRIVER (the C text), SOURCES and optionally FLAGS; self.exe."""
    NAME = DRIVER = None
    SOURCES = FLAGS = ()

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.exe = build_peer_driver(cls.tmp, cls.NAME, cls.DRIVER, cls.SOURCES, cls.FLAGS)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)
