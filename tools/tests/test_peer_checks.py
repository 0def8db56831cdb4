"""Tests for the Linux peer's own checks (tools/peer/src): the TLB
interrupts a tlb run must show, the header's configuration facts, and the
readers' "running on CPU k" handshake. The C is built on the host with a
small driver; skipped without a C compiler."""
import os
import shutil
import subprocess
import tempfile
import unittest

from toolpath import PEER_SRC as SRC, PeerDriverCase
DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "peer.h"
int main(int argc, char **argv)
{
	char out[1024];

	if (argv[1][0] == 'e') {
		for (int cpus = 1; cpus <= 4; cpus++)
			for (int b = 0; b < 2; b++)
				printf("%d %d %ld %d %d\n", cpus, b, peer_tlb_irqs_expected(cpus, 8, b),
				       peer_tlb_irqs_ok(peer_tlb_irqs_expected(cpus, 8, b), cpus, 8, b),
				       peer_tlb_irqs_ok(peer_tlb_irqs_expected(cpus, 8, b) - 1, cpus, 8, b));
		return 0;
	}
	if (argc < 3)
		return 2;
	if (argv[1][0] == 'm') {
		peer_mitigations(argv[2], out, sizeof(out));
		printf("%s\n", out);
	} else if (argv[1][0] == 'f') {
		printf("%d\n", peer_init_on_free(argv[2]));
	} else {
		printf("%d\n", peer_memcg(argv[2]));
	}
	return 0;
}
"""


class PeerChecks(PeerDriverCase):
    NAME, DRIVER, SOURCES = "checks", DRIVER, ["peer_check.c", "peer_env.c"]

    def run_exe(self, *args):
        return subprocess.run([self.exe, *args], check=True, capture_output=True,
                              text=True).stdout.splitlines()

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_tlb_interrupts_expected(self):
        rows = [tuple(int(w) for w in line.split()) for line in self.run_exe("e")]
        # cpus, batched, expected at 8 pages, ok at expected, ok one short
        self.assertEqual(rows, [(1, 0, 0, 1, 0), (1, 1, 0, 1, 0),
                                (2, 0, 8, 1, 0), (2, 1, 1, 1, 0),
                                (3, 0, 16, 1, 0), (3, 1, 2, 1, 0),
                                (4, 0, 24, 1, 0), (4, 1, 3, 1, 0)])

    def test_mitigations_listed_in_order(self):
        vuln = os.path.join(self.tmp, "vuln")
        self.write("vuln/spectre_v2", "Mitigation: Retpolines; IBPB: conditional\n")
        self.write("vuln/meltdown", "Mitigation: PTI\n")
        self.write("vuln/mds", "Not affected\n")
        self.assertEqual(self.run_exe("m", vuln),
                         ["mds:Not affected,meltdown:Mitigation: PTI,"
                          "spectre_v2:Mitigation: Retpolines"])
        self.assertEqual(self.run_exe("m", os.path.join(self.tmp, "none")), ["unknown"])

    def test_init_on_free_from_the_command_line(self):
        self.assertEqual(self.run_exe("f", self.write("c1", "quiet init_on_free=1 x\n")), ["1"])
        self.assertEqual(self.run_exe("f", self.write("c2", "init_on_free=1 init_on_free=0\n")),
                         ["0"])
        self.assertEqual(self.run_exe("f", self.write("c3", "console=ttyS0\n")), ["0"])
        self.assertEqual(self.run_exe("f", os.path.join(self.tmp, "nope")), ["-1"])

    def test_memcg_from_proc_cgroups(self):
        head = "#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
        on = self.write("g1", head + "cpu\t0\t1\t1\nmemory\t0\t1\t1\n")
        off = self.write("g2", head + "memory\t0\t1\t0\n")
        none = self.write("g3", head + "cpu\t0\t1\t1\n")
        self.assertEqual([self.run_exe("g", p)[0] for p in (on, off, none)], ["1", "0", "-1"])


@unittest.skipUnless(shutil.which("gcc") and (os.cpu_count() or 1) >= 2,
                     "needs gcc and two CPUs")
class PeerHandshake(unittest.TestCase):
    def test_reader_says_where_it_runs_before_timing(self):
        with tempfile.TemporaryDirectory() as tmp:
            exe = os.path.join(tmp, "mmpeer")
            subprocess.run(["gcc", "-O2", "-pthread", "-Wall", "-Wextra", "-Werror", "-o", exe,
                            *sorted(os.path.join(SRC, f) for f in os.listdir(SRC)
                                    if f.endswith(".c")), "-lm"],
                           check=True, capture_output=True, text=True)
            # ktrace=0: mmpeer must never take this host's own tracer.
            out = subprocess.run([exe, "bench=tlb", "iters=1", "cpus=2", "pages=1", "ktrace=0"],
                                 capture_output=True, text=True, timeout=300).stdout
        lines = out.splitlines()
        ready = next(i for i, line in enumerate(lines)
                     if line.startswith("# bench tlb: reader 1 running on CPU 1, "))
        # As root the reader runs SCHED_FIFO, so no kernel thread leaves its CPU lazy.
        if os.geteuid() == 0:
            self.assertTrue(lines[ready].endswith(", SCHED_FIFO"), lines[ready])
        after = lines[ready + 1:]
        # This host may flush without IPIs (INVLPGB, a paravirt flush): then every run is
        # rejected and the case fails naming why; otherwise each line counts its rejects.
        benches = [line for line in after if line.startswith("BENCH ")]
        fails = [line for line in after if line.startswith("# bench FAIL tlb")]
        self.assertEqual(len(benches) + len(fails), 2, out)
        for line in benches:
            self.assertIn('"rejected_runs":', line)
        for line in fails:
            self.assertIn("missed a reader's TLB interrupt", line)
        self.assertFalse([line for line in lines[:ready] if line.startswith("BENCH ")])


if __name__ == "__main__":
    unittest.main()
