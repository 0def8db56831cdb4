"""Tests for tools/fwdump.py: fwdump=1 serial output into fuzzing seeds."""
import os
import struct
import tempfile
import unittest

from toolpath import data
from fwdump import DumpError, main, parse, seeds

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def lines():
    with open(data("fwdump_bochs.log")) as f:
        return f.read().splitlines()


def chunk_list(image):
    """[(pa, bytes)] of a memory image (tests/fuzz/fuzz_mem.h)."""
    out, off = [], 0
    while off < len(image):
        pa, n = struct.unpack_from("<II", image, off)
        out.append((pa, image[off + 8:off + 8 + n]))
        off += 8 + n
    return out


class TestParse(unittest.TestCase):
    def test_bochs_dump_regions(self):
        protocol, firmware, regions = parse(lines())
        self.assertEqual((protocol, firmware), ("multiboot1", "bios"))
        self.assertEqual(len(regions), 12)
        self.assertEqual(regions[1][:2], ("mb1-info", 0x10000))
        self.assertEqual(len(regions[1][2]), 68)
        self.assertEqual(regions[0][2], b"fwdump=1 ktest=json")

    def test_short_region_is_an_error(self):
        cut = [l for i, l in enumerate(lines()) if i != 4]  # a data line of mb1-info
        with self.assertRaisesRegex(DumpError, "mb1-info at 0x10000: 36 of 68 bytes"):
            parse(cut)

    def test_region_count_must_match(self):
        text = [l if not l.startswith("FWDUMP end") else "FWDUMP end 13" for l in lines()]
        with self.assertRaisesRegex(DumpError, "end says 13 regions, found 12"):
            parse(text)

    def test_no_dump(self):
        with self.assertRaisesRegex(DumpError, "no complete FWDUMP block"):
            parse(["MMLAB {}", "FWDUMP begin multiboot1 bios"])


class TestSeeds(unittest.TestCase):
    def test_targets_and_layout(self):
        protocol, _, regions = parse(lines())
        out = seeds(protocol, regions)
        self.assertEqual(sorted(out), ["acpi", "cmdline", "mb1"])  # Bochs has no SPCR
        self.assertEqual(out["cmdline"], b"\xfffwdump=1 ktest=json")
        self.assertEqual(out["acpi"][0], 0)
        acpi = chunk_list(out["acpi"][1:])
        self.assertEqual(acpi[0][0], 0xf9fe0)  # the RSDP first
        self.assertEqual(acpi[0][1][:8], b"RSD PTR ")
        mb1 = chunk_list(out["mb1"])
        self.assertEqual([pa for pa, _ in mb1][:2], [0x10000, 0x10078])
        self.assertIn((0xf9fe0, acpi[0][1]), mb1)  # for the BIOS scan

    def test_committed_seeds_are_reproduced(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(main(["fwdump.py", data("fwdump_bochs.log"), "bochs-bios-grub-mb1", d]), 0)
            for target in ("acpi", "cmdline", "mb1"):
                with open(os.path.join(d, target, "bochs-bios-grub-mb1"), "rb") as f:
                    made = f.read()
                with open(os.path.join(REPO, "tests/fuzz/corpus", target, "bochs-bios-grub-mb1"), "rb") as f:
                    self.assertEqual(made, f.read(), target)

    def test_bad_log_exit_status(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "serial.log")
            with open(log, "w") as f:
                f.write("\n".join(lines()[:5]) + "\n")
            self.assertEqual(main(["fwdump.py", log, "x", d]), 1)
            self.assertFalse(os.path.exists(os.path.join(d, "acpi")))


if __name__ == "__main__":
    unittest.main()
