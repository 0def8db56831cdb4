#!/usr/bin/env python3
"""Writes fuzz_acpi seeds whose MADT lists a large server's CPUs.

usage: mkmadt.py CORPUS_DIR

QEMU under TCG cannot boot x2APIC IDs from 256 (it asks for KVM's
irqchip), so no fwdump of a real boot has such a MADT. Each seed is a
flags byte (0: the harness fixes checksums, though these are valid) then a
memory image (tests/fuzz/fuzz_mem.h): a revision 2 RSDP, an XSDT and a
MADT of hundreds to over a thousand type 9 (x2APIC) entries, mixed with
type 0, flags, duplicates, the broadcast ID and the boot CPU (APIC ID 0
in the fuzz target) listed late. Standard library only; the same files
every run.
"""
import os
import struct
import sys

RSDP_PA, XSDT_PA, MADT_PA = 0xE0000, 0x7FE0000, 0x7FE1000
EN, OC = 1, 2


def checksummed(table, at):
    """table with the byte at offset at set so that all bytes sum to 0 mod 256."""
    t = bytearray(table)
    t[at] = 0
    t[at] = (-sum(t)) & 0xFF
    return bytes(t)


def sdt(sig, body, rev=1):
    """An ACPI table: the 36-byte header over body, checksum fixed."""
    head = struct.pack("<4sIBB6s8sI4sI", sig, 36 + len(body), rev, 0, b"MMLAB ",
                       b"BIGMADT ", 1, b"MMLB", 1)
    return checksummed(head + body, 9)


def rsdp(xsdt):
    """A revision 2 RSDP with no RSDT, both checksums fixed."""
    r = bytearray(struct.pack("<8sB6sBIIQB3x", b"RSD PTR ", 0, b"MMLAB ", 2, 0, 36, xsdt, 0))
    r = bytearray(checksummed(bytes(r[:20]), 8) + bytes(r[20:]))
    return checksummed(bytes(r), 32)


def lapic(uid, apic_id, flags):
    return struct.pack("<BBBBI", 0, 8, uid, apic_id, flags)


def x2apic(apic_id, flags, uid):
    return struct.pack("<BBHIII", 9, 16, 0, apic_id, flags, uid)


def devices():
    """An I/O APIC, two interrupt overrides and an x2APIC NMI entry, as QEMU lists."""
    return (struct.pack("<BBBBII", 1, 12, 0, 0, 0xFEC00000, 0) +
            struct.pack("<BBBBIH", 2, 10, 0, 0, 2, 0) +
            struct.pack("<BBBBIH", 2, 10, 0, 9, 9, 0xD) +
            struct.pack("<BBHIBBBB", 0xA, 12, 5, 0xFFFFFFFF, 1, 0, 0, 0))


def image(entries):
    """The seed: flags byte, then RSDP, XSDT and MADT chunks."""
    madt = sdt(b"APIC", struct.pack("<II", 0xFEE00000, 1) + entries, 3)
    xsdt = sdt(b"XSDT", struct.pack("<Q", MADT_PA))
    out = bytearray(b"\0")
    for pa, data in ((RSDP_PA, rsdp(XSDT_PA)), (XSDT_PA, xsdt), (MADT_PA, madt)):
        out += struct.pack("<II", pa, len(data)) + data
    return bytes(out)


def seeds():
    """name -> MADT entries."""
    flag_cycle = (EN, OC, 0, EN | OC)
    s = {}
    s["madt-x2apic-256"] = b"".join(x2apic(i, EN, i) for i in range(256)) + devices()
    s["madt-x2apic-1024"] = b"".join(x2apic(256 + 2 * i, EN, i) for i in range(1024))
    s["madt-x2apic-mixed"] = (b"".join(lapic(i, i, EN) for i in range(255)) +
                              b"".join(x2apic(i, EN, i) for i in range(255, 1024)) +
                              b"".join(x2apic(i, EN, 5000 + i) for i in range(0, 255, 17)) +
                              devices())
    s["madt-x2apic-flags-sparse"] = (
        b"".join(x2apic(i * 0xFFFFFFFE // 1023, flag_cycle[i % 4], i) for i in range(1024)) +
        x2apic(0xFFFFFFFF, EN, 1024) + x2apic(0xFFFFFFFF, 0, 1025))
    s["madt-x2apic-over-boot-late"] = (b"".join(x2apic(256 + i, EN, i) for i in range(1030)) +
                                       x2apic(0, EN, 1030) + x2apic(0, EN, 1031) + devices())
    return s


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__.strip())
    for name, entries in seeds().items():
        with open(os.path.join(argv[1], name), "wb") as f:
            f.write(image(entries))


if __name__ == "__main__":
    main(sys.argv)
