#!/usr/bin/env python3
"""Writes fuzz_acpi seeds whose XSDT lists a MADT, a SRAT and a SLIT.

usage: mknuma.py CORPUS_DIR

A real boot's dump (tools/fwdump.py) gives QEMU's own two-node tables;
these add what QEMU does not make: sparse and large proximity domains,
x2APIC affinity entries, disabled entries, nodes with CPUs and no memory
and the reverse, entries of bad lengths, and SLITs that are too small or
break ACPI's distance rules. Each seed is a flags byte (0: the harness
fixes checksums) then a memory image (tests/fuzz/fuzz_mem.h). Standard
library only; the same files every run.
"""
import os
import struct
import sys

from mkmadt import EN, RSDP_PA, XSDT_PA, lapic, rsdp, sdt, x2apic

MADT_PA, SRAT_PA, SLIT_PA = 0x7FE1000, 0x7FE3000, 0x7FE5000
GIB = 1 << 30


def srat_cpu(apic_id, pxm, flags=EN):
    return struct.pack("<BBBBIB3sI", 0, 16, pxm & 0xFF, apic_id, flags, 0,
                       (pxm >> 8).to_bytes(3, "little"), 0)


def srat_x2apic(apic_id, pxm, flags=EN):
    return struct.pack("<BBHIIIII", 2, 24, 0, pxm, apic_id, flags, 0, 0)


def srat_mem(base, length, pxm, flags=EN):
    return struct.pack("<BBIHQQIIQ", 1, 40, pxm, 0, base, length, 0, flags, 0)


def slit(n, dist, claimed=None):
    body = struct.pack("<Q", n if claimed is None else claimed)
    return sdt(b"SLIT", body + bytes(dist(i, j) for i in range(n) for j in range(n)))


def image(madt_entries, srat_entries, slit_table):
    madt = sdt(b"APIC", struct.pack("<II", 0xFEE00000, 1) + madt_entries, 3)
    srat = sdt(b"SRAT", struct.pack("<IQ", 1, 0) + srat_entries, 3)
    tables = [(MADT_PA, madt), (SRAT_PA, srat)] + ([(SLIT_PA, slit_table)] if slit_table else [])
    xsdt = sdt(b"XSDT", b"".join(struct.pack("<Q", pa) for pa, _ in tables))
    out = bytearray(b"\0")
    for pa, data in [(RSDP_PA, rsdp(XSDT_PA)), (XSDT_PA, xsdt)] + tables:
        out += struct.pack("<II", pa, len(data)) + data
    return bytes(out)


def near(i, j):
    return 10 if i == j else 20 + 3 * abs(i - j)


def seeds():
    cpus8 = b"".join(lapic(i, i, EN) for i in range(8))
    s = {}
    s["numa-2node-2x2x2"] = image(
        cpus8, b"".join(srat_cpu(i, i // 4) for i in range(8)) +
        srat_mem(0, 640 << 10, 0) + srat_mem(1 << 20, GIB - (1 << 20), 0) + srat_mem(GIB, GIB, 1),
        slit(2, near))
    s["numa-4node-sparse-x2apic"] = image(
        b"".join(x2apic(300 + i, EN, i) for i in range(8)),
        b"".join(srat_x2apic(300 + i, (7, 2, 0x10005, 0)[i // 2]) for i in range(8)) +
        b"".join(srat_mem(k * GIB // 4, GIB // 4 * (k + 1), (7, 2, 0x10005, 0)[k])
                 for k in range(4)),
        slit(8, near))
    s["numa-cpuless-memless-disabled"] = image(
        cpus8, b"".join(srat_cpu(i, i % 2, EN if i < 6 else 0) for i in range(8)) +
        srat_mem(0, GIB, 0) + srat_mem(GIB, GIB, 2) + srat_mem(2 * GIB, GIB, 3, 2),
        slit(4, near))
    s["numa-bad-lengths"] = image(
        cpus8, srat_cpu(0, 0) + struct.pack("<BB", 1, 20) + bytes(18) +
        struct.pack("<BB", 0x7F, 6) + bytes(4) + srat_cpu(1, 1) + struct.pack("<BB", 2, 0) +
        srat_cpu(2, 2), slit(3, near, claimed=1 << 40))
    s["numa-bad-slit"] = image(
        cpus8, b"".join(srat_cpu(i, i // 2) for i in range(8)),
        slit(4, lambda i, j: 10 if i != j else 0))
    return s


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__.strip())
    for name, data in seeds().items():
        with open(os.path.join(argv[1], name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv)
