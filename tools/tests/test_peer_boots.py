"""Tests for run.sh --peer's alternating boots (tools/peer/peer.sh).

peer.sh is sourced by run.sh; here it is sourced by a small bash script
whose qemu_args/run_qemu/decode_status stand in for run.sh's mmlab boot
and whose tools/peer/linux.sh stands in for the Linux boot, each
appending its name to one order file. The boots must alternate, mmlab's
first boot being run.sh's own, and every boot's log must reach the report.
"""
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from toolpath import TOOLS

PEER_SH = os.path.join(TOOLS, "peer", "peer.sh")
DRIVER = textwrap.dedent(r"""
    set -u
    here=$1 results=$2 order=$2/order
    peer=linux bench=tlb extra=(iters=4) accel=tcg smp=2 mem=1G machine=pc cpu_model=""
    timeout_s=60 emulator=qemu mode=bench rc=0 verdict=pass O=$2/build
    [ -z "${FAKE_TIMING-}" ] || timing=$FAKE_TIMING
    say() { :; }
    die_usage() { echo "usage: $*"; exit 2; }
    qemu_args() { :; }
    run_qemu() { echo "mmlab $(basename "$results")" >> "$order"; : > "$results/serial.log"; }
    decode_status() { rc=${MMLAB_FAKE_RC:-0}; verdict=fake; }
    . "$here/tools/peer/peer.sh"
    run_peer
    echo "rc=$rc"
    printf '%s\n' "${peer_report_args[@]}"
""")
FAKE_LINUX = textwrap.dedent(r"""
    #!/bin/bash
    out=$2
    mkdir -p "$out"
    echo "linux $out" >> "$(dirname "$0")/../../order"
    echo "$*" >> "$(dirname "$0")/../../args"
    echo log > "$out/serial.log"
    exit "${MMLAB_FAKE_PEER_RC:-0}"
""")


class AlternatingBoots(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        os.makedirs(os.path.join(self.tmp, "tools", "peer"))
        shutil.copy(PEER_SH, os.path.join(self.tmp, "tools", "peer", "peer.sh"))
        fake = os.path.join(self.tmp, "tools", "peer", "linux.sh")
        with open(fake, "w") as f:
            f.write(FAKE_LINUX)
        self.driver = os.path.join(self.tmp, "driver.sh")
        with open(self.driver, "w") as f:
            f.write(DRIVER)

    def run_peer(self, **env):
        # The fake linux.sh finds the order file two folders above itself: here the
        # checkout and the results folder are both the temporary folder.
        out = subprocess.run(["bash", self.driver, self.tmp, self.tmp], capture_output=True,
                             text=True, env={**os.environ, **env}, timeout=60)
        with open(os.path.join(self.tmp, "order")) as f:
            order = [line.split()[0] + " " + os.path.relpath(line.split()[1], self.tmp)
                     if line.startswith("linux") else line.strip() for line in f]
        return out.stdout.splitlines(), order

    def test_three_boots_each_alternate(self):
        lines, order = self.run_peer()
        self.assertEqual(order, ["linux peer-linux", "mmlab boot-2",
                                 "linux peer-linux/boot-2", "mmlab boot-3",
                                 "linux peer-linux/boot-3"])
        self.assertEqual(lines[0], "rc=0")
        t = self.tmp
        self.assertEqual(lines[1:], [
            "--peer", f"{t}/peer-linux/serial.log",
            "--boot", f"{t}/boot-2/serial.log", "--peer-boot", f"{t}/peer-linux/boot-2/serial.log",
            "--boot", f"{t}/boot-3/serial.log", "--peer-boot", f"{t}/peer-linux/boot-3/serial.log"])

    def linux_args(self):
        with open(os.path.join(self.tmp, "args")) as f:
            return [line.split() for line in f]

    def test_exact_mode_boots_linux_exact(self):
        self.run_peer(MMLAB_PEER_BOOTS="2", FAKE_TIMING="exact")
        args = self.linux_args()
        self.assertEqual(len(args), 2)
        for a in args:
            self.assertIn("--exact", a[:a.index("--")])

    def test_time_mode_boots_linux_timed(self):
        self.run_peer(MMLAB_PEER_BOOTS="1", FAKE_TIMING="time")
        self.assertNotIn("--exact", self.linux_args()[0])

    def test_boot_count_from_the_environment(self):
        _, order = self.run_peer(MMLAB_PEER_BOOTS="1")
        self.assertEqual(order, ["linux peer-linux"])

    def test_failed_mmlab_boot_stops_and_keeps_the_first_status(self):
        lines, order = self.run_peer(MMLAB_FAKE_RC="1")
        self.assertEqual(order, ["linux peer-linux", "mmlab boot-2"])
        self.assertEqual(lines[0], "rc=0")
        self.assertNotIn("--boot", lines)

    def test_failed_peer_stops_and_fails(self):
        lines, order = self.run_peer(MMLAB_FAKE_PEER_RC="1")
        self.assertEqual(order, ["linux peer-linux"])
        self.assertEqual(lines[0], "rc=1")


if __name__ == "__main__":
    unittest.main()
