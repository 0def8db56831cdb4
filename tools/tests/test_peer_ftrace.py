"""Tests for the Linux peer's function_graph trace parser (tools/peer/src/peer_ftrace.c).

The C is built on the host with a small driver that sums a trace file per
function, as mmpeer does after each traced run. data/ftrace_graph.txt is a
real trace of Debian's 6.1 kernel (function_graph on unmap_page_range,
tlb_finish_mmu and flush_tlb_mm_range with funcgraph-tail, under QEMU TCG):
leaf calls, calls with a nested call and closing braces, and durations
with the + ! # marks. Edge lines (the widths of long durations, lost
events, process columns, lines that end no call) are written here.
Skipped without a C compiler.
"""
import os
import subprocess
import unittest

from toolpath import PeerDriverCase, data

DRIVER = r"""
#include <stdio.h>
#include <string.h>
#include "peer.h"
int main(int argc, char **argv)
{
	struct peer_ftrace_sum sums[8];
	FILE *f = fopen(argv[1], "r");
	long lost;

	if (!f || argc - 2 > 8)
		return 2;
	for (int i = 2; i < argc; i++)
		sums[i - 2] = (struct peer_ftrace_sum){ .fn = argv[i] };
	lost = peer_ftrace_sum_file(f, sums, argc - 2);
	for (int i = 0; i < argc - 2; i++)
		printf("%s %ld %.1f\n", sums[i].fn, sums[i].calls, sums[i].ns);
	printf("lost %ld\n", lost);
	return 0;
}
"""


class TraceSums(PeerDriverCase):
    NAME, DRIVER, SOURCES = "sums", DRIVER, ["peer_ftrace.c"]
    FLAGS = ["-O1"]

    def sums(self, path, *fns):
        """({fn: (calls, ns)}, lost events) of the trace at path."""
        out = subprocess.run([self.exe, path, *fns], check=True, capture_output=True,
                             text=True).stdout.split("\n")
        rows = [line.split() for line in out if line]
        return {r[0]: (int(r[1]), float(r[2])) for r in rows[:-1]}, int(rows[-1][1])

    def trace(self, text):
        path = os.path.join(self.tmp, "trace.txt")
        with open(path, "w") as f:
            f.write("# tracer: function_graph\n#\n" + text)
        return path

    def test_real_trace_sums(self):
        sums, lost = self.sums(data("ftrace_graph.txt"), "flush_tlb_mm_range",
                               "unmap_page_range", "tlb_finish_mmu", "native_flush_tlb_multi")
        self.assertEqual(sums["flush_tlb_mm_range"], (19, 1562806.0))
        self.assertEqual(sums["unmap_page_range"], (20, 345366.0))
        # Four calls end on a closing brace after a nested flush, one is a leaf.
        self.assertEqual(sums["tlb_finish_mmu"], (5, 167159.0))
        self.assertEqual(sums["native_flush_tlb_multi"], (0, 0.0))
        self.assertEqual(lost, 0)

    def test_only_named_functions_count(self):
        sums, _ = self.sums(data("ftrace_graph.txt"), "tlb_finish_mmu")
        self.assertEqual(list(sums), ["tlb_finish_mmu"])

    def test_long_durations_and_marks(self):
        # trace_print_graph_duration keeps 7 digits: 2, 1 or no decimals past 9999 us.
        path = self.trace(" 1) @ 12345.67 us |  f();\n"
                          " 0) $ 123456.7 us |  } /* f */\n"
                          " 0) $ 1234567 us  |  f();\n"
                          " 0) * 1000.000 us |  f();\n")
        sums, _ = self.sums(path, "f")
        self.assertEqual(sums["f"], (4, 12345670.0 + 123456700.0 + 1234567000.0 + 1000000.0))

    def test_process_column_and_nesting(self):
        path = self.trace(" 0)  mmpeer-61    |               |  f() {\n"
                          " 0)  mmpeer-61    |   0.512 us    |    g();\n"
                          " 0)  mmpeer-61    |   2.001 us    |  } /* f */\n")
        sums, _ = self.sums(path, "f", "g")
        self.assertEqual(sums, {"f": (1, 2001.0), "g": (1, 512.0)})

    def test_lines_that_end_no_call(self):
        path = self.trace("# |     |   |                     |   |   |   |\n"
                          " 0)               |  f() {\n"
                          " ------------------------------------------\n"
                          " 0)   ==========> |\n"
                          " 0)   1.000 us    |  }\n"
                          " 0)   1.000 us    |  /* a comment */\n")
        sums, _ = self.sums(path, "f")
        self.assertEqual(sums["f"], (0, 0.0))

    def test_lost_events_counted(self):
        path = self.trace("CPU:1 [LOST 42 EVENTS]\n 1)   1.500 us    |  f();\n"
                          "CPU:0 [LOST EVENTS]\n")
        sums, lost = self.sums(path, "f")
        self.assertEqual(sums["f"], (1, 1500.0))
        self.assertEqual(lost, 43)


if __name__ == "__main__":
    unittest.main()
