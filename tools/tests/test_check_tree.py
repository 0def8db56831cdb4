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

    def test_long_string_kept_whole_passes(self):
        # The second line: 2 tabs and 7 spaces, the literal from column 24 to 105.
        text = '\t\tprintk("%s\\n",\n\t\t       "' + "m" * 80 + '");\n'
        self.assertEqual(run({"a.c": text}, ["columns"]), (0, []))
        text = '\tpanic("' + "m" * 95 + '",\n'
        self.assertEqual(run({"a.c": text}, ["columns"]), (0, []))
        macro = '#define M(x)\tf("' + "m" * 90 + '") \\\n'
        self.assertEqual(run({"a.h": macro}, ["columns"]), (0, []))
        asm = '\t.asciz "' + "m" * 95 + '"\n'
        self.assertEqual(run({"a.S": asm}, ["columns"]), (0, []))

    def test_closing_quote_past_the_limit_passes_but_not_before_it(self):
        # The closing quote is column 101; a quote at column 100 leaves ');' alone past it.
        text = "\t" + 'f("' + "m" * 89 + '");\n'
        self.assertEqual(run({"a.c": text}, ["columns"]), (0, []))
        text = "\t" + 'f("' + "m" * 88 + '");\n'
        rc, lines = run({"a.c": text}, ["columns"])
        self.assertEqual((rc, lines), (1, ["a.c:1: rule columns: 102 columns (at most 100)"]))

    def test_code_after_a_long_string_fails(self):
        text = '\tprintk("' + "m" * 88 + '", x);\n'
        rc, lines = run({"a.c": text}, ["columns"])
        self.assertEqual((rc, lines), (1, ["a.c:1: rule columns: 110 columns (at most 100)"]))

    def test_comment_after_a_long_string_fails(self):
        text = '\tf("' + "m" * 90 + '"); /* why */\n'
        self.assertEqual(run({"a.c": text}, ["columns"])[0], 1)

    def test_string_ending_before_the_limit_fails(self):
        text = '\tf("' + "m" * 80 + '", ' + "x" * 20 + ");\n"
        self.assertEqual(run({"a.c": text}, ["columns"])[0], 1)

    def test_long_code_line_fails(self):
        text = "\treturn " + " + ".join(["value"] * 14) + ";\n"
        rc, lines = run({"a.c": text}, ["columns"])
        self.assertEqual((rc, lines), (1, ["a.c:1: rule columns: 125 columns (at most 100)"]))

    def test_long_comment_line_fails(self):
        text = "\t/* " + "word " * 20 + "*/\n"
        self.assertEqual(run({"a.c": text}, ["columns"])[0], 1)

    def test_quotes_inside_a_comment_are_no_string(self):
        one_line = '\t/* "' + "m" * 100 + '" */\n'
        self.assertEqual(run({"a.c": one_line}, ["columns"])[0], 1)
        block = '/*\n * "' + "m" * 100 + '"\n */\n'
        rc, lines = run({"a.c": block}, ["columns"])
        self.assertEqual((rc, lines), (1, ["a.c:2: rule columns: 105 columns (at most 100)"]))
        line_comment = '\tx = 1; // "' + "m" * 90 + '"\n'
        self.assertEqual(run({"a.c": line_comment}, ["columns"])[0], 1)

    def test_string_after_a_closed_comment_counts(self):
        text = '/* a\n b */ char *s = "' + "m" * 95 + '";\n'
        self.assertEqual(run({"a.c": text}, ["columns"]), (0, []))

    def test_quote_character_and_escapes_do_not_open_a_string(self):
        text = "\tif (c == '\"') f(" + "x" * 90 + ', "y");\n'
        self.assertEqual(run({"a.c": text}, ["columns"])[0], 1)
        text = '\tf("a\\"b' + "m" * 95 + '");\n'
        self.assertEqual(run({"a.c": text}, ["columns"]), (0, []))

    def test_tabs_inside_the_line_count_to_multiples_of_eight(self):
        # 'ab\t' takes 8 columns, not 3: 8 + 93 = 101.
        rc, lines = run({"a.c": "ab\t" + "x" * 93 + "\n"}, ["columns"])
        self.assertEqual((rc, lines), (1, ["a.c:1: rule columns: 101 columns (at most 100)"]))
        self.assertEqual(run({"a.c": "ab\t" + "x" * 92 + "\n"}, ["columns"])[0], 0)

    def test_tracker_number_fails_outside_dated_notes(self):
        tree = dict(CLEAN, **{"tests/run-all.sh": "# see iss" + "ue 24\n",
                              "docs/notes/2026-12-06-x.md": "measured for iss" + "ue 24\n"})
        rc, out = run(tree, ["tracker"])
        self.assertEqual(rc, 1)
        self.assertEqual(out, ["tests/run-all.sh:1: rule tracker: names a tracker entry; "
                               "say what it was"])

    DESIGNS = ('const struct tlb_ops tlb_ops_naive = { .d = { .name = "naive" } };\n'
               'const struct tlb_ops tlb_ops_batched = { .d = { .name = "batched" } };\n'
               'const struct tlb_ops tlb_ops_lazy = {\n\t.d = {\n\t\t.name = "lazy",\n\t},\n};\n')

    def prose(self, rel, text):
        return run(dict(CLEAN, **{"mm/tlb_designs.c": self.DESIGNS, rel: text}), ["prose"])

    def test_prose_clean_tree_passes(self):
        self.assertEqual(self.prose("docs/design.md", "Every design of `tlb_designs[]`.\n"),
                         (0, []))

    def test_per_n_pages_fails_outside_dated_notes(self):
        rc, lines = self.prose("docs/design.md", "one round per 128 pages\n")
        self.assertEqual((rc, lines), (1, ["docs/design.md:1: rule prose: 'per 128 pages' "
                                           "restates a bound; name its constant"]))
        self.assertEqual(self.prose("docs/notes/2026-12-06-x.md", "per 128 pages\n"), (0, []))

    def test_design_list_fails_but_two_names_pass(self):
        rc, lines = self.prose("mm/tlb.h", "/* naive, batched and `lazy` share it */\n")
        self.assertEqual(rc, 1)
        self.assertEqual(lines, ["mm/tlb.h:1: rule prose: 'naive, batched and `lazy`' lists "
                                 "designs; name the table"])
        self.assertEqual(self.prose("mm/tlb.h", "/* naive against batched; lazy apart */\n"),
                         (0, []))

    def test_names_of_registered_design_files_count(self):
        # One file per design in mm/<mech>/designs/, joined by DESIGN_REGISTER.
        tree = dict(CLEAN, **{
            "mm/swap/designs/%s.c" % n: ('const struct swap_free_ops swap_free_ops_%s = {\n'
                                         '\t.d = { .name = "%s", .unit = "folio" },\n};\n'
                                         'DESIGN_REGISTER(swap_free_designs, swap_free_ops_%s, 0);\n'
                                         % (n, n, n))
            for n in ("naive", "batched", "cluster")})
        tree["mm/swap/README.md"] = "naive, batched or cluster\n"
        rc, lines = run(tree, ["prose"])
        self.assertEqual((rc, lines), (1, ["mm/swap/README.md:1: rule prose: 'naive, batched "
                                           "or cluster' lists designs; name the table"]))

    def test_measured_figures_fail(self):
        for text in ("reported 1436 -> 1225 ns per shootdown", "munmap latency -70.8%",
                     "a run is short (~10 ms)", "3 times faster"):
            rc, lines = self.prose("mm/pt.c", "/* %s */\n" % text)
            self.assertEqual(rc, 1, text)
            self.assertIn("is a measured figure", lines[0])

    def test_bounds_and_ranges_are_no_figures(self):
        for text in ("within 0.1% of the reference", "the last 20-40 % of the case",
                     "writes 1 -> 0 per call", "timeout_ms (default 1000 ms)"):
            self.assertEqual(self.prose("docs/testing.md", text + "\n"), (0, []), text)

    def test_mm_array_of_max_cpus_fails(self):
        bad = "struct q { int n; };\n\nstatic struct q qs[MAX_CPUS];\n"
        rc, lines = run(dict(CLEAN, **{"mm/lazy.c": bad}), ["percpu"])
        self.assertEqual((rc, lines), (1, ["mm/lazy.c:3: rule percpu: an array of MAX_CPUS at "
                                           "file scope; use __pcpu_data (kernel/percpu.h)"]))

    def test_mm_array_of_max_cpus_with_its_reason_passes(self):
        ok = ("/*\n * Not per-CPU data: set up before any copy is placed.\n */\n"
              "static struct q qs[MAX_CPUS];\n")
        self.assertEqual(run(dict(CLEAN, **{"mm/pmm.c": ok}), ["percpu"]), (0, []))

    def test_max_cpus_arrays_outside_mm_or_inside_functions_pass(self):
        files = dict(CLEAN, **{"bench/b.c": "static int seen[MAX_CPUS];\n",
                               "mm/x.c": "void f(void)\n{\n\tint seen[MAX_CPUS];\n}\n",
                               "mm/y.c": "struct s {\n\tu64 t[MAX_CPUS];\n};\n"})
        self.assertEqual(run(files, ["percpu"]), (0, []))

    def test_head_of_nine_lines_fails_and_of_eight_passes(self):
        def head(n):
            return "/*\n" + " * why\n" * (n - 2) + " */\n#include \"x.h\"\n"
        rc, lines = run(dict(CLEAN, **{"kernel/k.c": head(9)}), ["head"])
        self.assertEqual((rc, lines), (1, ["kernel/k.c:1: rule head: the head comment is "
                                           "9 lines (at most 8)"]))
        self.assertEqual(run(dict(CLEAN, **{"kernel/k.c": head(8)}), ["head"]), (0, []))

    def test_head_counts_every_leading_comment_but_no_later_one(self):
        split = "// one\n" * 5 + "\n/* two\n * three\n * four\n */\n"
        rc, _ = run(dict(CLEAN, **{"lib/s.S": split + ".text\n"}), ["head"])
        self.assertEqual(rc, 1)
        later = "/* what */\nint x;\n" + "/*\n" + " * why\n" * 20 + " */\n"
        self.assertEqual(run(dict(CLEAN, **{"lib/s.c": later}), ["head"]), (0, []))

    def test_build_marker_ends_the_head(self):
        head = "/*\n" + " * why\n" * 6 + " */\n"
        marked = head + "/* build: kernel only */\n#include <x.h>\n"
        self.assertEqual(run(dict(CLEAN, **{"tests/mm/test_t.c": marked}), ["head"]), (0, []))
        longer = "/*\n" + " * why\n" * 7 + " */\n/* more */\n#include <x.h>\n"
        rc, _ = run(dict(CLEAN, **{"tests/mm/test_t.c": longer}), ["head"])
        self.assertEqual(rc, 1)

    def test_long_head_outside_the_head_folders_passes(self):
        long = "/*\n" + " * why\n" * 20 + " */\nint x;\n"
        self.assertEqual(run(dict(CLEAN, **{"tools/x.c": long}), ["head"]), (0, []))

    def test_not_a_directory_is_a_usage_error(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(check_tree.main(["--root", "/nonexistent/x"]), 2)


if __name__ == "__main__":
    unittest.main()
