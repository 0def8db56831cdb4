"""Tests for tools/check-tree.py: each rule on a tiny folder, clean and broken."""
import contextlib
import importlib.util
import io
import os
import tempfile
import unittest

import toolpath

spec = importlib.util.spec_from_file_location(
    "check_tree", os.path.join(toolpath.TOOLS, "check-tree.py"))
check_tree = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_tree)

CLEAN = {
    "mm/pt.c": "int pt_walk(void)\n{\n\treturn 0;\t/* a comment */\n}\n",
    "tools/x.py": "def f():\n    return 1\n",
    "README.md": "# title\n",
}


def run(files, rules=()):
    """(exit status, printed lines) of check-tree over a folder holding files."""
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        out = io.StringIO()
        argv = ["--root", root] + [a for r in rules for a in ("--rule", r)]
        with contextlib.redirect_stdout(out):
            rc = check_tree.main(argv)
        return rc, out.getvalue().splitlines()


class CheckTreeTest(unittest.TestCase):
    def test_clean_tree_passes_every_rule(self):
        self.assertEqual(run(CLEAN), (0, []))

    def test_leftover_of_a_merge_fails(self):
        rc, lines = run(dict(CLEAN, **{"tools/mmlab/table.py.orig": "x\n"}), ["leftovers"])
        self.assertEqual(rc, 1)
        self.assertEqual(lines, ["tools/mmlab/table.py.orig:1: rule leftovers: "
                                 "a merge or patch leftover is tracked"])

    def test_reject_file_fails(self):
        rc, _ = run(dict(CLEAN, **{"mm/pt.c.rej": "x\n"}), ["leftovers"])
        self.assertEqual(rc, 1)

    def test_trailing_blank_fails_with_its_line(self):
        rc, lines = run(dict(CLEAN, **{"tools/x.py": "a = 1 \n"}), ["whitespace"])
        self.assertEqual((rc, lines), (1, ["tools/x.py:1: rule whitespace: trailing blanks"]))

    def test_c_indented_with_spaces_fails_but_python_may(self):
        rc, lines = run(dict(CLEAN, **{"mm/pt.c": "int f(void)\n{\n        return 0;\n}\n"}),
                        ["whitespace"])
        self.assertEqual((rc, lines), (1, ["mm/pt.c:3: rule whitespace: indented with spaces"]))

    def test_alignment_after_tabs_with_fewer_spaces_passes(self):
        rc, _ = run(dict(CLEAN, **{"mm/pt.c": "int f(int a,\n\t  int b);\n"}), ["whitespace"])
        self.assertEqual(rc, 0)

    def test_columns_count_tabs_to_multiples_of_eight(self):
        ok = "\t" * 2 + "x" * 84 + "\n"
        long = "\t" * 2 + "x" * 85 + "\n"
        self.assertEqual(run({"a.c": ok}, ["columns"])[0], 0)
        rc, lines = run({"a.c": long}, ["columns"])
        self.assertEqual((rc, lines), (1, ["a.c:1: rule columns: 101 columns (at most 100)"]))

    def test_not_a_directory_is_a_usage_error(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(check_tree.main(["--root", "/nonexistent/x"]), 2)


if __name__ == "__main__":
    unittest.main()
