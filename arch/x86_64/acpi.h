/*
 * ACPI tables as mmlab reads them: the RSDP, XSDT or RSDT, and the MADT,
 * SPCR, HPET and FADT. The parser reads memory only through acpi_map(), so
 * it runs in the kernel (acpi_report.c) and on the host over synthetic
 * tables; it never prints, every problem is a message in struct acpi_info.
 * Not thread-safe: parse once on the boot CPU. Layouts: ACPI 6.5 5.2, the
 * Microsoft SPCR specification, the IA-PC HPET specification 1.0a.
 */
#ifndef ARCH_X86_64_ACPI_H
#define ARCH_X86_64_ACPI_H

#include "compiler.h"
#include "types.h"

#define ACPI_MSG_MAX 8	      /* problems kept in struct acpi_info */
#define ACPI_MSG_LEN 96	      /* bytes per message, NUL included */
#define ACPI_MAX_TABLES 128   /* valid tables remembered from the root table */
#define ACPI_MAX_IOAPICS 16   /* large servers have more than 8 */
#define ACPI_MAX_OVERRIDES 16 /* interrupt source overrides: one per ISA IRQ */

/* ---- table layouts (all little-endian, packed) ---- */

/* ACPI 6.5 5.2.5.3: the Root System Description Pointer. */
struct acpi_rsdp {
	char sig[8]; /* "RSD PTR " */
	u8 checksum; /* over the first 20 bytes (the ACPI 1.0 part) */
	char oem_id[6];
	u8 revision; /* 0: ACPI 1.0; 2 and up: the fields below exist */
	u32 rsdt_address;
	u32 length; /* of the whole structure */
	u64 xsdt_address;
	u8 ext_checksum; /* over length bytes */
	u8 reserved[3];
} __packed;

#define ACPI_RSDP_V1_LEN 20

/* ACPI 6.5 5.2.6: the header every system description table starts with. */
struct acpi_sdt_header {
	char sig[4];
	u32 length; /* header included */
	u8 revision;
	u8 checksum; /* all length bytes sum to 0 mod 256 */
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;

/* ACPI 6.5 5.2.3.2: Generic Address Structure. */
struct acpi_gas {
	u8 space_id; /* ACPI_GAS_* */
	u8 bit_width;
	u8 bit_offset;
	u8 access_size;
	u64 address;
} __packed;

#define ACPI_GAS_MEMORY 0
#define ACPI_GAS_IO 1

/* ACPI 6.5 5.2.12: the MADT ("APIC") and its interrupt controller entries. */
struct acpi_madt {
	struct acpi_sdt_header hdr;
	u32 lapic_address;
	u32 flags; /* ACPI_MADT_PCAT_COMPAT */
} __packed;

#define ACPI_MADT_PCAT_COMPAT (1u << 0) /* dual 8259 PICs are present */

enum acpi_madt_type {
	ACPI_MADT_LAPIC = 0,
	ACPI_MADT_IOAPIC = 1,
	ACPI_MADT_IRQ_OVERRIDE = 2,
	ACPI_MADT_NMI_SOURCE = 3,
	ACPI_MADT_LAPIC_NMI = 4,
	ACPI_MADT_LAPIC_OVERRIDE = 5,
	ACPI_MADT_X2APIC = 9,
	ACPI_MADT_X2APIC_NMI = 0xa,
};

/* Processor flags shared by type 0 and type 9 entries. */
#define ACPI_MADT_CPU_ENABLED (1u << 0)
#define ACPI_MADT_CPU_ONLINE_CAPABLE (1u << 1) /* ACPI 6.3: may be enabled later */

struct acpi_madt_entry {
	u8 type;
	u8 length;
} __packed;

struct acpi_madt_lapic {
	struct acpi_madt_entry e;
	u8 uid;
	u8 apic_id;
	u32 flags;
} __packed;

struct acpi_madt_ioapic {
	struct acpi_madt_entry e;
	u8 id;
	u8 reserved;
	u32 address;
	u32 gsi_base;
} __packed;

struct acpi_madt_irq_override {
	struct acpi_madt_entry e;
	u8 bus;
	u8 source;
	u32 gsi;
	u16 flags;
} __packed;

struct acpi_madt_lapic_override {
	struct acpi_madt_entry e;
	u16 reserved;
	u64 address;
} __packed;

struct acpi_madt_x2apic {
	struct acpi_madt_entry e;
	u16 reserved;
	u32 x2apic_id;
	u32 flags;
	u32 uid;
} __packed;

/* Microsoft SPCR specification (table revisions 1 to 4). */
struct acpi_spcr {
	struct acpi_sdt_header hdr;
	u8 interface_type; /* ACPI_SPCR_16550 ... */
	u8 reserved[3];
	struct acpi_gas base;
	u8 interrupt_type;
	u8 irq;
	u32 gsi;
	u8 baud; /* 0: as the firmware left it; 3, 4, 6, 7: 9600 ... 115200 */
	u8 parity;
	u8 stop_bits;
	u8 flow_control;
	u8 terminal_type;
	u8 language;
	u16 pci_device_id;
	u16 pci_vendor_id;
	u8 pci_bus, pci_device, pci_function;
	u32 pci_flags;
	u8 pci_segment;
	u32 uart_clock_hz; /* revision 3 and up */
} __packed;

#define ACPI_SPCR_16550 0x00
#define ACPI_SPCR_16450 0x01
#define ACPI_SPCR_16550_GAS 0x12 /* 16550-compatible, register layout from the GAS */

/* IA-PC HPET specification 1.0a, section 3.2.4. */
struct acpi_hpet {
	struct acpi_sdt_header hdr;
	u32 block_id;
	struct acpi_gas base;
	u8 number;
	u16 min_tick;
	u8 page_protection;
} __packed;

/* ACPI 6.5 5.2.9: the two FADT fields read here, by offset (the table is long). */
#define ACPI_FADT_BOOT_ARCH_OFFSET 109 /* u16 IAPC_BOOT_ARCH, FADT revision 3 and up */
#define ACPI_FADT_FLAGS_OFFSET 112     /* u32 fixed feature flags, every revision */
#define ACPI_FADT_BOOT_ARCH_REV 3      /* ACPI 2.0's FADT; before it the field was reserved */

/* IAPC_BOOT_ARCH bits (ACPI 6.5 table 5.11). */
#define ACPI_BOOT_LEGACY_DEVICES (1u << 0) /* LPC/ISA devices the OS cannot enumerate */
#define ACPI_BOOT_8042 (1u << 1)	   /* an 8042 keyboard controller */
#define ACPI_BOOT_NO_VGA (1u << 2)
#define ACPI_BOOT_NO_MSI (1u << 3)
#define ACPI_BOOT_NO_ASPM (1u << 4)
#define ACPI_BOOT_NO_CMOS_RTC (1u << 5)
/* FADT flags bit (ACPI 6.5 table 5.10): no legacy fixed hardware at all. */
#define ACPI_FADT_HW_REDUCED (1u << 20)

BUILD_ASSERT(sizeof(struct acpi_rsdp) == 36);
BUILD_ASSERT(sizeof(struct acpi_sdt_header) == 36);
BUILD_ASSERT(sizeof(struct acpi_madt) == 44);
BUILD_ASSERT(sizeof(struct acpi_madt_x2apic) == 16);
BUILD_ASSERT(sizeof(struct acpi_spcr) == 80);
BUILD_ASSERT(sizeof(struct acpi_hpet) == 56);

/* ---- what the parser found ---- */

/* One usable CPU: enabled now, or online-capable (may be hot-added). */
struct acpi_cpu {
	u32 apic_id; /* x2APIC ID for type 9 entries, else the 8-bit xAPIC ID */
	u32 uid;     /* ACPI processor UID */
	bool enabled;
	bool online_capable;
	bool x2apic_entry; /* came from a type 9 entry */
};

struct acpi_ioapic {
	u8 id;
	paddr_t addr;
	u32 gsi_base;
};

struct acpi_irq_override {
	u8 bus;	   /* 0: ISA */
	u8 source; /* bus-relative IRQ */
	u32 gsi;
	u16 flags; /* polarity and trigger mode (MPS INTI flags) */
};

struct acpi_madt_info {
	bool present;	     /* a valid MADT was parsed */
	paddr_t lapic_base;  /* after any type 5 override */
	bool lapic_override; /* a type 5 entry set lapic_base */
	bool pcat_compat;    /* dual 8259s present */
	u32 ncpus;	     /* entries used in cpu[] */
	struct acpi_cpu cpu[MAX_CPUS];
	u32 ndisabled;	 /* neither enabled nor online-capable: not in cpu[] */
	u32 nduplicates; /* entries whose APIC ID was already listed (type 0 + type 9) */
	u32 nignored;	 /* usable CPUs left out because cpu[] was full */
	bool truncated;	 /* nignored > 0 */
	u32 nioapic;
	struct acpi_ioapic ioapic[ACPI_MAX_IOAPICS];
	u32 nioapic_ignored; /* beyond ACPI_MAX_IOAPICS */
	u32 noverrides;
	struct acpi_irq_override override[ACPI_MAX_OVERRIDES];
	u32 noverrides_ignored; /* beyond ACPI_MAX_OVERRIDES */
	u32 nnmi;		/* type 4 and type 0xa entries */
	u32 nbad_entries;	/* entries skipped for a bad length (or the rest of the table) */
};

struct acpi_spcr_info {
	bool present;
	u8 interface_type; /* ACPI_SPCR_* */
	u8 space_id;	   /* ACPI_GAS_IO or ACPI_GAS_MEMORY */
	bool mmio;	   /* space_id == ACPI_GAS_MEMORY */
	u8 bit_width;	   /* register width from the GAS */
	u64 address;	   /* I/O port or physical address */
	u32 baud;	   /* 0: keep what the firmware set */
	u8 interrupt_type;
	u8 irq;
	u32 gsi;
};

struct acpi_hpet_info {
	bool present;
	paddr_t base; /* event timer block, memory space */
	u8 number;
	u16 min_tick;
};

struct acpi_fadt_info {
	bool present;
	u8 revision;
	bool boot_arch_valid; /* FADT revision >= ACPI_FADT_BOOT_ARCH_REV */
	u16 boot_arch;	      /* ACPI_BOOT_* bits, 0 when not valid */
	bool flags_valid;
	u32 flags; /* ACPI_FADT_HW_REDUCED ... */
};

/* A table that passed validation, as listed by the root table. */
struct acpi_table_ref {
	char sig[4]; /* not NUL-terminated */
	u32 length;
	paddr_t pa;
};

struct acpi_info {
	paddr_t rsdp;
	u8 revision; /* of the RSDP */
	char oem_id[7];
	bool xsdt;    /* the root table walked was the XSDT (else the RSDT) */
	paddr_t root; /* its address, 0 when none could be used */
	u32 ntables;
	struct acpi_table_ref tables[ACPI_MAX_TABLES];
	u32 nbad_tables; /* listed but skipped: unreachable, bad signature, length or checksum */
	struct acpi_madt_info madt;
	struct acpi_spcr_info spcr;
	struct acpi_hpet_info hpet;
	struct acpi_fadt_info fadt;
	u32 nmsgs;
	u32 nmsgs_dropped; /* problems beyond ACPI_MSG_MAX */
	char msgs[ACPI_MSG_MAX][ACPI_MSG_LEN];
};

/* ---- interface ---- */

/*
 * The physical memory accessor: returns a pointer through which the @len
 * bytes at physical address @pa can be read, or NULL when they cannot. The
 * pointer must stay valid while the accessor is installed (the parser holds
 * several at once), as a direct map's are.
 */
typedef const void *acpi_map_fn(paddr_t pa, size_t len);

/*
 * Installs @fn as the accessor acpi_map() uses and returns the previous one.
 * With none installed (NULL), acpi_map() reaches nothing. The kernel's
 * acpi_init() installs the direct map; host tests install their own.
 */
acpi_map_fn *acpi_set_map(acpi_map_fn *fn);

/* No CPU has it (it is the x2APIC broadcast ID): the boot CPU's ID is unknown. */
#define ACPI_APIC_ID_NONE 0xffffffffu

/*
 * Names the boot CPU's APIC ID for the parses that follow (ACPI_APIC_ID_NONE
 * until set) and returns the previous one. A MADT listing more usable CPUs
 * than MAX_CPUS keeps the boot CPU wherever it is listed: it runs whatever
 * the table says. acpi_init() sets it from CPUID; host tests set their own.
 */
u32 acpi_set_boot_apic_id(u32 apic_id);

/* Maps @len bytes at @pa through the installed accessor; NULL when unreachable. */
const void *acpi_map(paddr_t pa, size_t len);

/*
 * Parses the ACPI tables reached from the RSDP at @rsdp into @out (cleared
 * first; it is large, so give it static storage) and remembers the valid
 * tables for acpi_find_table(). Returns 0 when a MADT listing at least one
 * usable CPU was found; -ENOENT when there is no RSDP or no usable MADT
 * (the kernel then runs on one CPU); -EINVAL when neither root table can be
 * trusted (bad RSDP checksum, bad XSDT and RSDT). Whatever it returns, @out
 * holds everything that validated and a message for each problem.
 * Boot CPU only, before other CPUs run.
 */
int acpi_parse(paddr_t rsdp, struct acpi_info *out);

/*
 * Returns the @index'th (from 0) valid table with signature @sig (4 chars,
 * e.g. "APIC") found by the last acpi_parse(), mapped whole, or NULL.
 */
const struct acpi_sdt_header *acpi_find_table(const char *sig, unsigned index);

/* Whether @m lists a usable CPU with APIC ID @apic_id. */
bool acpi_madt_has_apic_id(const struct acpi_madt_info *m, u32 apic_id);

/*
 * Fills @ids (room for MAX_CPUS) with the APIC IDs of @m's enabled CPUs in
 * the order bring-up numbers them: the boot CPU @boot_apic first, as CPU 0,
 * when @m lists it, then the others in MADT order. CPUs that are only
 * online-capable are left out (mmlab adds no CPU later). Returns how many.
 */
unsigned acpi_madt_cpu_order(const struct acpi_madt_info *m, u32 boot_apic, u32 *ids);

/* Sum of @len bytes mod 256: 0 for a valid ACPI checksum. */
u8 acpi_checksum(const void *p, size_t len);

#ifndef HOST_BUILD
/*
 * Kernel only (acpi_report.c). acpi_init() installs the direct-map accessor
 * and parses from boot_info.rsdp; returns as acpi_parse(). acpi_report()
 * prints one "# acpi:" summary line and a "# WARN acpi:" line per problem.
 * acpi_this_cpu_apic_id() is the calling CPU's initial APIC ID from CPUID.
 */
int acpi_init(struct acpi_info *out);
void acpi_report(const struct acpi_info *info);
u32 acpi_this_cpu_apic_id(void);
#endif

#endif
