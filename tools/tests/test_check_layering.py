"""Tests for tools/check-layering.py: each rule on a tiny fake tree, clean and broken."""
import contextlib
import importlib.util
import io
import os
import tempfile
import unittest

import toolpath

spec = importlib.util.spec_from_file_location(
    "check_layering", os.path.join(toolpath.TOOLS, "check-layering.py"))
check_layering = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_layering)

# A tree where every rule holds: arch uses allowed kernel services only,
# mm's arrows run one way (mm -> tlb, mapping -> mm), kernel knows no bench.
CLEAN = {
    "include/types.h": "",
    "arch/x86_64/traps.c": '#include "arch/x86_64/traps.h"\n#include "types.h"\n'
                           '#include "kernel/printk.h"\n#include "lib/format.h"\n'
                           '#include <arch/arch.h>\n',
    "arch/x86_64/traps.h": '#include "types.h"\n',
    "arch/x86_64/isr.S": '#include "arch/x86_64/traps.h"\n',
    "boot/bootinfo.c": '#include "boot/bootinfo.h"\n#include "machine.h"\n',
    "boot/bootinfo.h": "",
    "mm/mm.c": '#include "mm/mm.h"\n#include "mm/tlb.h"\n#include "kernel/smp.h"\n',
    "mm/mm.h": '#include "mm/mm_types.h"\n#include <arch/mmu.h>\n',
    "mm/mm_types.h": "",
    "mm/tlb.c": '#include "mm/tlb.h"\n#include "mm/mm_types.h"\n',
    "mm/tlb.h": "",
    "mm/mapping.c": '#include "mm/mapping.h"\n#include "mm/mm.h"\n',
    "mm/mapping.h": "",
    "kernel/run.c": '#include "kernel/run.h"\n',
    "kernel/run.h": "",
    "bench/bench.c": '#include "bench/bench.h"\n#include "mm/mm.h"\n#include "tests/ktest.h"\n',
    "bench/bench.h": "",
}


class FakeTree:
    """A temporary tree holding CLEAN with the given files added or replaced."""

    def __init__(self, changes):
        self.files = dict(CLEAN)
        self.files.update(changes)

    def __enter__(self):
        self.tmp = tempfile.TemporaryDirectory()
        for rel, text in self.files.items():
            path = os.path.join(self.tmp.name, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return self.tmp.name

    def __exit__(self, *exc):
        self.tmp.cleanup()


def tree(changes):
    """FakeTree with {relative path: text} changes."""
    return FakeTree(changes)


def cli(root, *args):
    """(exit status, stdout, stderr) of check-layering.py on root."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = check_layering.main(["--root", root] + list(args))
    return rc, out.getvalue(), err.getvalue()


class ArchFloor(unittest.TestCase):
    def test_clean_tree_passes(self):
        with tree({}) as root:
            rc, out, _ = cli(root, "--rule", "arch-floor")
        self.assertEqual(rc, 0, out)
        self.assertIn("rule arch-floor: holds", out)

    def test_arch_including_mm_fails_naming_file_and_rule(self):
        with tree({"arch/x86_64/traps.c": '#include "types.h"\n#include "mm/fault.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "arch-floor")
        self.assertEqual(rc, 1)
        self.assertIn("arch/x86_64/traps.c:2: rule arch-floor: includes mm/fault.h", out)

    def test_arch_include_header_including_mm_fails(self):
        with tree({"arch/x86_64/include/arch/mmu.h": '#include "mm/page.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "arch-floor")
        self.assertEqual(rc, 1)
        self.assertIn("arch/x86_64/include/arch/mmu.h:1: rule arch-floor", out)

    def test_boot_including_bench_or_tests_fails(self):
        with tree({"boot/bootinfo.c": '#include "bench/bench.h"\n# include "tests/ktest.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "arch-floor")
        self.assertEqual(rc, 1)
        self.assertIn("boot/bootinfo.c:1: rule arch-floor: includes bench/bench.h", out)
        self.assertIn("boot/bootinfo.c:2: rule arch-floor: includes tests/ktest.h", out)

    def test_arch_kernel_header_outside_the_services_fails(self):
        with tree({"arch/x86_64/isr.S": '#include "kernel/run.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "arch-floor")
        self.assertEqual(rc, 1)
        self.assertIn("kernel header kernel/run.h is not one of the services", out)


class MmNoCycle(unittest.TestCase):
    def test_clean_tree_passes(self):
        with tree({}) as root:
            rc, out, _ = cli(root, "--rule", "mm-no-cycle")
        self.assertEqual(rc, 0, out)

    def test_two_file_circle_fails_naming_both(self):
        with tree({"mm/tlb.c": '#include "mm/tlb.h"\n#include "mm/mm.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "mm-no-cycle")
        self.assertEqual(rc, 1)
        self.assertIn("mm/tlb.c:2: rule mm-no-cycle: includes mm/mm.h", out)
        self.assertIn("mm/mm.c:2: rule mm-no-cycle: includes mm/tlb.h", out)
        self.assertIn("circle: mm/mm.c, mm/tlb.c", out)

    def test_three_file_circle_fails(self):
        # mapping -> mm -> tlb -> mapping: no pair includes each other, the circle is longer.
        with tree({"mm/tlb.c": '#include "mm/mapping.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "mm-no-cycle")
        self.assertEqual(rc, 1)
        self.assertIn("circle: mm/mapping.c, mm/mm.c, mm/tlb.c", out)

    def test_circle_through_a_header_fails(self):
        # pmm.h includes page.h: pmm.c reaches page.c, and page.c includes pmm.h.
        with tree({"mm/page.c": '#include "mm/page.h"\n#include "mm/pmm.h"\n',
                   "mm/page.h": "",
                   "mm/pmm.c": '#include "mm/pmm.h"\n',
                   "mm/pmm.h": '#include "mm/page.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "mm-no-cycle")
        self.assertEqual(rc, 1)
        self.assertIn("mm/pmm.c:1: rule mm-no-cycle: includes mm/page.h (through mm/pmm.h)", out)
        self.assertIn("circle: mm/page.c, mm/pmm.c", out)

    def test_header_without_c_file_makes_no_edge(self):
        # mm_types.h has no mm_types.c: including it from both sides is no circle.
        with tree({"mm/mapping.c": '#include "mm/mapping.h"\n#include "mm/mm_types.h"\n',
                   "mm/mm.c": '#include "mm/mm.h"\n#include "mm/mapping.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "mm-no-cycle")
        self.assertEqual(rc, 0, out)

    def test_scc_finds_components(self):
        graph = {"a": {"b": 1}, "b": {"a": 1, "c": 1}, "c": {}}
        self.assertEqual(sorted(check_layering.strongly_connected(graph)), [["a", "b"], ["c"]])


class MmNoCallCycle(unittest.TestCase):
    MM = '#include "mm/mm.h"\n'
    TLB = '#include "mm/tlb.h"\n'

    def test_one_way_calls_pass(self):
        with tree({"mm/mm.c": self.MM + "void mm_switch(void)\n{\n\ttlb_switch();\n}\n",
                   "mm/tlb.c": self.TLB + "void tlb_switch(void)\n{\n}\n"}) as root:
            rc, out, _ = cli(root, "--rule", "mm-no-call-cycle")
        self.assertEqual(rc, 0, out)

    def test_calls_both_ways_fail_naming_the_functions(self):
        with tree({"mm/mm.c": self.MM + "void mm_drop(void)\n{\n}\n"
                              "void mm_switch(void)\n{\n\ttlb_switch();\n}\n",
                   "mm/tlb.c": self.TLB + "void tlb_switch(void)\n{\n\tmm_drop();\n}\n"}) as root:
            rc, out, _ = cli(root, "--rule", "mm-no-call-cycle")
        self.assertEqual(rc, 1)
        self.assertIn("mm/mm.c:7: rule mm-no-call-cycle: calls tlb_switch() of mm/tlb.c", out)
        self.assertIn("mm/tlb.c:4: rule mm-no-call-cycle: calls mm_drop() of mm/mm.c", out)
        self.assertIn("circle: mm/mm.c, mm/tlb.c", out)

    def test_a_hook_is_not_a_call(self):
        # tlb.c registers its function with mm.c, which calls it through a pointer.
        with tree({"mm/mm.c": self.MM + "static void (*hook)(void);\n"
                              "void mm_set_hook(void (*fn)(void))\n{\n\thook = fn;\n}\n"
                              "void mm_switch(void)\n{\n\thook();\n}\n",
                   "mm/tlb.c": self.TLB + "static void tlb_switch(void)\n{\n}\n"
                               "void tlb_init(void)\n{\n\tmm_set_hook(tlb_switch);\n}\n"}) as root:
            rc, out, _ = cli(root, "--rule", "mm-no-call-cycle")
        self.assertEqual(rc, 0, out)

    def test_static_functions_and_comments_make_no_edge(self):
        with tree({"mm/mm.c": self.MM + "static void mm_drop(void)\n{\n}\n"
                              "void mm_switch(void)\n{\n\ttlb_switch(); /* mm_drop() */\n}\n",
                   "mm/tlb.c": self.TLB + "static void mm_drop(void)\n{\n}\n"
                               "void tlb_switch(void)\n{\n\tmm_drop(); /* mm_switch() */\n}\n"}) as root:
            rc, out, _ = cli(root, "--rule", "mm-no-call-cycle")
        self.assertEqual(rc, 0, out)


class NoCircle(unittest.TestCase):
    # The harness calls its helper; the helper must not reach back.
    BENCH = ('#include "bench/bench.h"\n#include "bench/bench_result.h"\n'
             "void bench_fail(void)\n{\n}\n"
             "void bench_run(void)\n{\n\tbench_print_result();\n}\n")

    def test_clean_tree_passes(self):
        with tree({}) as root:
            rc, out, _ = cli(root, "--rule", "no-circle")
        self.assertEqual(rc, 0, out)
        self.assertIn("rule no-circle: holds", out)

    def test_helper_taking_types_only_passes(self):
        with tree({"bench/bench.c": self.BENCH,
                   "bench/bench_result.c": '#include "bench/bench_result.h"\n'
                                           "void bench_print_result(void)\n{\n}\n",
                   "bench/bench_result.h": '#include "bench/bench_types.h"\n',
                   "bench/bench_types.h": ""}) as root:
            rc, out, _ = cli(root, "--rule", "no-circle")
        self.assertEqual(rc, 0, out)

    def test_helper_calling_back_fails(self):
        with tree({"bench/bench.c": self.BENCH,
                   "bench/bench_result.c": '#include "bench/bench_result.h"\n'
                                           "void bench_print_result(void)\n{\n\tbench_fail();\n}\n",
                   "bench/bench_result.h": ""}) as root:
            rc, out, _ = cli(root, "--rule", "no-circle")
        self.assertEqual(rc, 1)
        self.assertIn("bench/bench.c:8: rule no-circle: calls bench_print_result() of "
                      "bench/bench_result.c", out)
        self.assertIn("bench/bench_result.c:4: rule no-circle: calls bench_fail() of bench/bench.c",
                      out)

    def test_include_one_way_and_call_the_other_fails(self):
        # Neither mm-no-cycle nor mm-no-call-cycle sees this one alone.
        with tree({"mm/swap.c": '#include "mm/swap.h"\n'
                                "void swap_on(void)\n{\n\tswap_clusters_create();\n}\n",
                   "mm/swap.h": "",
                   "mm/swap_cluster.c": '#include "mm/swap_internal.h"\n'
                                        "void swap_clusters_create(void)\n{\n}\n",
                   "mm/swap_internal.h": '#include "mm/swap.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "no-circle", "--rule", "mm-no-cycle",
                             "--rule", "mm-no-call-cycle")
        self.assertEqual(rc, 1)
        self.assertIn("rule mm-no-cycle: holds", out)
        self.assertIn("rule mm-no-call-cycle: holds", out)
        self.assertIn("mm/swap_cluster.c:1: rule no-circle: includes mm/swap.h "
                      "(through mm/swap_internal.h)", out)
        self.assertIn("circle: mm/swap.c, mm/swap_cluster.c", out)

    def test_circle_inside_an_mm_subfolder_fails(self):
        # The mechanisms live in mm/<mech>/ and mm/<mech>/designs/: walked too.
        with tree({"mm/swap/swap.c": '#include "mm/swap/swap.h"\n'
                                     "void swap_on(void)\n{\n\tswap_clusters_create();\n}\n",
                   "mm/swap/swap.h": "",
                   "mm/swap/designs/naive.c": '#include "mm/swap/swap_internal.h"\n'
                                              "void swap_clusters_create(void)\n{\n}\n",
                   "mm/swap/swap_internal.h": '#include "mm/swap/swap.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "no-circle")
        self.assertEqual(rc, 1)
        self.assertIn("mm/swap/designs/naive.c:1: rule no-circle: includes mm/swap/swap.h "
                      "(through mm/swap/swap_internal.h)", out)
        self.assertIn("circle: mm/swap/designs/naive.c, mm/swap/swap.c", out)

    def test_arch_and_kernel_may_call_each_other(self):
        with tree({"arch/x86_64/traps.c": '#include "kernel/printk.h"\n'
                                          "void trap(void)\n{\n\tkernel_irq();\n}\n",
                   "kernel/printk.c": "void kernel_irq(void)\n{\n\ttrap();\n}\n"}) as root:
            rc, out, _ = cli(root, "--rule", "no-circle")
        self.assertEqual(rc, 0, out)


class MmArchIface(unittest.TestCase):
    def test_clean_tree_passes(self):
        with tree({}) as root:
            rc, out, _ = cli(root, "--rule", "mm-arch-iface")
        self.assertEqual(rc, 0, out)

    def test_mm_including_arch_layout_fails(self):
        with tree({"mm/kstack.c": '#include "mm/kstack.h"\n#include <arch/layout.h>\n'}) as root:
            rc, out, _ = cli(root, "--rule", "mm-arch-iface")
        self.assertEqual(rc, 1)
        self.assertIn("mm/kstack.c:2: rule mm-arch-iface: includes <arch/layout.h>", out)

    def test_mm_including_arch_file_by_path_fails(self):
        with tree({"mm/fault.c": '#include "arch/x86_64/traps.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "mm-arch-iface")
        self.assertEqual(rc, 1)
        self.assertIn("mm/fault.c:1: rule mm-arch-iface: includes arch/x86_64/traps.h", out)


class KernelNoBench(unittest.TestCase):
    def test_clean_tree_passes(self):
        with tree({}) as root:
            rc, out, _ = cli(root, "--rule", "kernel-no-bench")
        self.assertEqual(rc, 0, out)

    def test_kernel_including_bench_fails(self):
        with tree({"kernel/run.c": '#include "kernel/run.h"\n#include "bench/bench.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "kernel-no-bench")
        self.assertEqual(rc, 1)
        self.assertIn("kernel/run.c:2: rule kernel-no-bench: includes bench/bench.h", out)

    def test_mm_including_tests_fails(self):
        with tree({"mm/mapping.c": '#include "tests/ktest.h"\n'}) as root:
            rc, out, _ = cli(root, "--rule", "kernel-no-bench")
        self.assertEqual(rc, 1)
        self.assertIn("mm/mapping.c:1: rule kernel-no-bench: includes tests/ktest.h", out)

    def test_not_a_default_rule(self):
        with tree({"kernel/run.c": '#include "bench/bench.h"\n'}) as root:
            rc, out, _ = cli(root)
        self.assertEqual(rc, 0, out)


class Cli(unittest.TestCase):
    def test_unknown_rule_is_a_usage_error(self):
        with tree({}) as root:
            rc, _, err = cli(root, "--rule", "no-such-rule")
        self.assertEqual(rc, 2)
        self.assertIn("unknown rule no-such-rule", err)

    def test_missing_root_is_a_usage_error(self):
        rc, _, err = cli("/nonexistent/mmlab-tree")
        self.assertEqual(rc, 2)
        self.assertIn("is not a directory", err)

    def test_ktap_names_each_rule_and_the_violation(self):
        with tree({"kernel/run.c": '#include "bench/bench.h"\n'}) as root:
            rc, out, _ = cli(root, "--all", "--ktap")
        self.assertEqual(rc, 1)
        self.assertEqual(out.splitlines()[:2], ["KTAP version 1", "1..6"])
        self.assertIn("ok 1 layering_arch_floor", out)
        self.assertIn("ok 2 layering_mm_no_cycle", out)
        self.assertIn("ok 3 layering_mm_no_call_cycle", out)
        self.assertIn("ok 4 layering_mm_arch_iface", out)
        self.assertIn("# kernel/run.c:1: rule kernel-no-bench", out)
        self.assertIn("not ok 5 layering_kernel_no_bench", out)
        self.assertIn("ok 6 layering_no_circle", out)


if __name__ == "__main__":
    unittest.main()
