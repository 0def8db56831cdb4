"""Tests for tools/mmlab/__main__.py and cli.py: the one command line of the tools."""
import contextlib
import io
import os
import subprocess
import tempfile
import unittest

from toolpath import TOOLS, command, data
from mmlab.cli import COMMANDS
from mmlab.log import main as log_main


def run(*args, **kwargs):
    """Run `tools/mmlab ARGS...`; return the finished process."""
    return subprocess.run(command(*args), capture_output=True, text=True, **kwargs)


class TestEntry(unittest.TestCase):
    def test_help_lists_every_command(self):
        done = run("--help")
        self.assertEqual(done.returncode, 0, done.stderr)
        listed = [line.split()[0] for line in done.stdout.splitlines()
                  if line.startswith("    ") and not line.startswith("     ")]
        self.assertEqual(listed, list(COMMANDS))

    def test_the_commands(self):
        # What run.sh, make test and the docs call: none may go missing.
        self.assertEqual(sorted(COMMANDS), ["compare", "ipi-steps", "log", "page", "progress",
                                            "report", "summary", "trace"])

    def test_no_command_or_an_unknown_one_is_a_usage_error(self):
        for argv in ((), ("nosuch",), ("--nosuch",)):
            with self.subTest(argv=argv):
                done = run(*argv)
                self.assertEqual(done.returncode, 2)
                self.assertEqual(done.stdout, "")
                self.assertIn("usage: mmlab [-h] COMMAND ...", done.stderr)

    def test_each_command_reaches_its_own_parser(self):
        # Arguments after the command are the command's own, --help too; page
        # takes no options and answers an option with its usage (status 2).
        for name in COMMANDS:
            with self.subTest(command=name):
                done = run(name, "--help")
                self.assertEqual(done.returncode, 2 if name == "page" else 0, done.stderr)
                self.assertIn(f"usage: mmlab {name} ", done.stdout + done.stderr)

    def test_a_command_prints_what_its_module_prints(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = log_main([data("bench_malformed.log")])
        done = run("log", data("bench_malformed.log"))
        self.assertEqual(status, 1)
        self.assertEqual((done.returncode, done.stdout), (status, out.getvalue()))

    def test_runs_from_any_folder_and_leaves_no_bytecode(self):
        # The package's html and trace modules must not hide the standard
        # library's (summary of a KTAP file uses neither, report's page uses html).
        with tempfile.TemporaryDirectory() as d:
            done = run("report", "--no-plots", data("bench_good.log"), os.path.join(d, "run"),
                       cwd=d)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertTrue(os.path.exists(os.path.join(d, "run", "index.html")))
        self.assertEqual([p for p, _, _ in os.walk(TOOLS) if p.endswith("__pycache__")], [])


if __name__ == "__main__":
    unittest.main()
