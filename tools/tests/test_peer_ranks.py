"""The Linux peer's median-interval ranks against the kernel's.

tools/peer/src/peer_result.c says its ranks are lib/stats.c's; this builds
a small host program from both sources and compares their rank functions
for every n from 1 to 1000, and both with tools/mmlab/stats.py. Skipped
when the host has no C compiler.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from toolpath import TOOLS
from mmlab.stats import median_ci_rank

ROOT = os.path.dirname(TOOLS)
MAX_N = 1000
DRIVER = r"""
#include <stdio.h>
#include "lib/stats.h"
#include "peer.h"
struct peer_opts peer_opts;
int main(void)
{
	for (unsigned n = 1; n <= %d; n++)
		printf("%%u %%u %%d\n", n, stats_median_ci_rank(n), peer_median_ci_rank((int)n));
	return 0;
}
"""


def build_and_run(tmp):
    """(n, kernel rank, peer rank) for n = 1..MAX_N from a host build of both sources."""
    driver = os.path.join(tmp, "ranks.c")
    with open(driver, "w") as f:
        f.write(DRIVER % MAX_N)
    exe = os.path.join(tmp, "ranks")
    subprocess.run(["cc", "-std=gnu11", "-O1", "-DHOST_BUILD", "-I", ROOT,
                    "-I", os.path.join(ROOT, "include"),
                    "-I", os.path.join(TOOLS, "peer", "src"), "-o", exe, driver,
                    os.path.join(ROOT, "lib", "stats.c"),
                    os.path.join(TOOLS, "peer", "src", "peer_result.c"), "-lm"],
                   check=True, capture_output=True, text=True)
    out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    return [tuple(int(w) for w in line.split()) for line in out.splitlines()]


@unittest.skipUnless(shutil.which("cc"), "no C compiler")
class PeerRanksMatchKernel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as tmp:
            cls.rows = build_and_run(tmp)

    def test_every_n_printed(self):
        self.assertEqual([r[0] for r in self.rows], list(range(1, MAX_N + 1)))

    def test_peer_equals_kernel(self):
        differ = [(n, k, p) for n, k, p in self.rows if k != p]
        self.assertEqual(differ, [])

    def test_tools_equal_kernel(self):
        differ = [(n, k) for n, k, _ in self.rows if median_ci_rank(n) != k]
        self.assertEqual(differ, [])

    def test_ranks_are_sane(self):
        by_n = {n: k for n, k, _ in self.rows}
        self.assertEqual(by_n[5], 0)
        self.assertEqual(by_n[6], 1)
        self.assertEqual(by_n[10], 2)
        self.assertEqual(by_n[30], 10)
        self.assertEqual(by_n[60], 22)


if __name__ == "__main__":
    unittest.main()
