# mmlab: one non-recursive Makefile. Every output goes under $(O).
#   make              kernel image and ISO ($(O)/mmlab.elf, $(O)/mmlab.iso)
#   make netboot      PXE tree for BIOS and UEFI in $(O)/tftp (docs/lab.md)
#   make test-host    host unit tests under ASan/UBSan
#   make test-host-smp  kernel/smp.c on host threads (ASan)
#   make test-torture the host mm torture (ASan); test-torture-tsan under TSan
#   make test         everything: host tests, tool tests, QEMU self-test matrix
#                     (tests/matrix.cfg; ONLY=REGEX runs the steps it names)
#   make fuzz         each firmware-parser fuzz target for FUZZ_SECONDS (clang)
#   make help         this list
#   make CC=clang     or CROSS_COMPILE=x86_64-elf-;  V=1 shows commands
# Knobs (-D overrides, printed in the MMLAB header): MAX_CPUS, TRACE (0: trace hooks compiled out).
# TEST_DESIGN=1 adds tests/design_example.c, TEST_DESIGN=broken the broken designs (use their own O=).

O ?= build
# Dependency files name each object both as $(O) is spelled and by its
# absolute path (DEPTARGETS): run.sh passes an absolute O and make test a
# relative one, and either must see a header change made under the other.
DEPTARGETS = -MT $@ -MT $(abspath $@)
V ?= 0
CROSS_COMPILE ?=
MAX_CPUS ?= 1024
PYTHON ?= python3

ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
LD := $(CROSS_COMPILE)ld
NM := $(CROSS_COMPILE)nm
HOSTCC ?= cc

ifeq ($(V),1)
Q :=
quiet = @:
else
Q := @
quiet = @printf '  %-8s %s\n'
endif

VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)

# ---- sources -----------------------------------------------------------------

# One list per directory. mm/ builds for the kernel and the host alike;
# so do the portable parts of lib/, kernel/, boot/ and arch/ that the host
# tests need (HOST_PORTABLE_SRCS).
BOOT_SRCS := boot/header.S boot/entry.S boot/bootinfo.c boot/mb1_cmdline.c
ARCH_SRCS := arch/x86_64/acpi.c arch/x86_64/acpi_report.c arch/x86_64/ap_start.S arch/x86_64/apic.c \
	arch/x86_64/arch.c arch/x86_64/console.c arch/x86_64/cpu_asm.S arch/x86_64/cpuinfo.c \
	arch/x86_64/fwdump.c arch/x86_64/gdt.c arch/x86_64/idt.c arch/x86_64/init.c arch/x86_64/ioapic.c \
	arch/x86_64/ipi.c arch/x86_64/isr.S arch/x86_64/kpt.c arch/x86_64/mem.c arch/x86_64/pic.c \
	arch/x86_64/serial.c arch/x86_64/smpboot.c arch/x86_64/traps.c arch/x86_64/tsc.c \
	arch/x86_64/tsc_sync.c
ARCH_SRCS += arch/x86_64/acpi_numa.c arch/x86_64/topology.c arch/x86_64/topology_report.c
KERNEL_SRCS := kernel/cmdline.c kernel/crash.c kernel/design.c kernel/json.c kernel/ksyms.c kernel/main.c \
	kernel/panic.c kernel/percpu.c kernel/printk.c kernel/report.c kernel/run.c kernel/run_modes.c \
	kernel/rwlock.c kernel/smp.c kernel/smp_wait.c kernel/spinlock.c kernel/timing.c kernel/trace.c \
	kernel/version.c
LIB_SRCS := lib/errno.c lib/format.c lib/parse.c lib/stats.c lib/string.c
# Every .c of mm/ and of each mechanism's folder and its designs/, so a new
# design file is built into the kernel and every host test binary with no
# Makefile line (docs/adding-a-design.md).
MM_SRCS := $(sort $(wildcard mm/*.c mm/*/*.c mm/*/designs/*.c))
BENCH_SRCS := bench/bench.c bench/bench_design.c bench/bench_faultlock.c bench/bench_ipi.c \
	bench/bench_mode.c bench/bench_pagemap.c bench/bench_pin.c bench/bench_result.c \
	bench/bench_runs.c bench/bench_swapfree.c bench/bench_tlb.c bench/bench_tlb_multi.c \
	bench/read_loss.c bench/tlb_readers.c bench/bench_reclaim.c bench/bench_migrate.c
BENCH_SRCS += bench/placement.c
BENCH_SRCS += bench/bench_ctx.c
BENCH_SRCS += bench/file_readers.c bench/reuse_probe.c bench/tlb_deferred.c
# The tests mirror the source folders (tests/mm/tlb/ tests mm/tlb/, ...):
# every test_*.c there builds for the host and the kernel, unless the line
# after its head comment is /* build: kernel only */ or /* build: host only */.
# Adding a test is one new file.
TEST_SRCS := $(sort $(wildcard $(addsuffix /test_*.c,tests/arch/x86_64 tests/boot tests/bench \
	tests/kernel tests/lib tests/mm tests/mm/* tests/mm/*/designs)))
# One left in tests/ itself would build nowhere, so it stops the build.
$(if $(wildcard tests/test_*.c),$(error $(wildcard tests/test_*.c): move it \
	to the folder of tests/ that mirrors what it tests))
TEST_KERNEL_ONLY := $(shell grep -lx '/[*] build: kernel only [*]/' $(TEST_SRCS))
TEST_HOST_ONLY := $(shell grep -lx '/[*] build: host only [*]/' $(TEST_SRCS))
TEST_COMMON_SRCS := tests/acpi_fw.c tests/mm_emul.c \
	$(filter-out $(TEST_KERNEL_ONLY) $(TEST_HOST_ONLY),$(TEST_SRCS))
TEST_KERNEL_SRCS := tests/ktest.c tests/ktest_mode.c tests/cpu_hold.c $(TEST_KERNEL_ONLY)
# make TEST_DESIGN=1 (best with its own O=): adds the example design of
# tests/design_example.c, which registers itself (docs/adding-a-design.md).
ifeq ($(TEST_DESIGN),1)
TEST_KERNEL_SRCS += tests/design_example.c
endif
# make TEST_DESIGN=broken (with its own O=): adds the deliberately broken
# designs (tests/design_broken.c, bench/bench_ipi.c, mm/pin/designs/) whose
# verify must fail by name; tests/steps/design.sh checks that it does.
ifeq ($(TEST_DESIGN),broken)
TEST_KERNEL_SRCS += tests/design_broken.c
endif
# mode=torture: the mm torture's core (tests/torture/, docs/testing.md) and
# its kernel environment; no MMLAB_TORTURE hook points in this image.
TEST_KERNEL_SRCS += tests/torture/torture.c tests/torture/torture_case.c tests/torture/torture_ops.c
TEST_KERNEL_SRCS += tests/torture/torture_dead.c tests/torture/torture_tables.c tests/torture/torture_call.c
TEST_KERNEL_SRCS += tests/torture/torture_pin.c
TEST_KERNEL_SRCS += tests/torture/torture_kernel.c
# Host-only: the runner and the fake arch interface.
TEST_HOST_SRCS := tests/ktest.c tests/host/host_main.c tests/host/fake_arch.c tests/host/fake_cpus.c \
	tests/host/fake_tlb.c tests/host/host_owners.c $(TEST_HOST_ONLY)
HOST_PORTABLE_SRCS := arch/x86_64/acpi.c arch/x86_64/console.c bench/read_loss.c boot/bootinfo.c \
	boot/mb1_cmdline.c kernel/cmdline.c kernel/json.c kernel/percpu.c kernel/printk.c kernel/run_modes.c \
	kernel/rwlock.c kernel/smp_wait.c kernel/spinlock.c kernel/timing.c
HOST_PORTABLE_SRCS += arch/x86_64/acpi_numa.c arch/x86_64/topology.c
HOST_PORTABLE_SRCS += bench/placement.c
HOST_PORTABLE_SRCS += kernel/design.c
HOST_LIB_SRCS := $(HOST_PORTABLE_SRCS) $(filter-out lib/string.c,$(LIB_SRCS)) $(MM_SRCS)
# make TEST_DESIGN=1: the example design joins the host builds too.
ifeq ($(TEST_DESIGN),1)
HOST_LIB_SRCS += tests/design_example.c
endif
KERNEL_ALL_SRCS := $(BOOT_SRCS) $(ARCH_SRCS) $(KERNEL_SRCS) $(LIB_SRCS) $(MM_SRCS) \
	$(BENCH_SRCS) $(TEST_COMMON_SRCS) $(TEST_KERNEL_SRCS)
KOBJS := $(patsubst %,$(O)/kernel/%.o,$(KERNEL_ALL_SRCS))
HOST_ALL_SRCS := $(HOST_LIB_SRCS) $(TEST_COMMON_SRCS) $(TEST_HOST_SRCS)
HOBJS := $(patsubst %,$(O)/host/%.o,$(HOST_ALL_SRCS))

# ---- flags -------------------------------------------------------------------

INCLUDES := -Iinclude -I. -Iarch/x86_64/include
KCFLAGS := -std=gnu11 -ffreestanding -nostdlib -nostdinc -isystem $(shell $(CC) -print-file-name=include) -mno-red-zone -mgeneral-regs-only \
	-mcmodel=kernel -fno-pic -fno-pie -fno-stack-protector -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -O2 -g -Wall -Wextra -Werror \
	-DMAX_CPUS=$(MAX_CPUS) $(INCLUDES) -MMD -MP
ifneq ($(findstring clang,$(CC)),)
KCFLAGS += --target=x86_64-unknown-none-elf
endif
ifeq ($(TEST_DESIGN),1)
KCFLAGS += -DMMLAB_TEST_DESIGN
endif
ifeq ($(TEST_DESIGN),broken)
KCFLAGS += -DMMLAB_TEST_DESIGN_BROKEN
endif
# make TRACE=0 compiles the trace hooks out (kernel/trace.h); best with its own O=.
TRACE ?= 1
KCFLAGS += -DMMLAB_TRACE=$(TRACE)
KASFLAGS := $(filter-out -std=gnu11,$(KCFLAGS)) -D__ASSEMBLER__
LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments \
	-T linker.ld

HOST_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
HCFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -DHOST_BUILD -DMAX_CPUS=$(MAX_CPUS) \
	$(INCLUDES) $(HOST_SAN) -MMD -MP
ifeq ($(TEST_DESIGN),1)
HCFLAGS += -DMMLAB_TEST_DESIGN
endif

# ---- kernel ------------------------------------------------------------------

.PHONY: all
all: $(O)/mmlab.elf $(O)/mmlab.iso

$(O)/kernel/%.c.o: %.c Makefile
	$(quiet) CC $<
	@mkdir -p $(@D)
	$(Q)$(CC) $(KCFLAGS) $(DEPTARGETS) -c $< -o $@

$(O)/kernel/%.S.o: %.S Makefile
	$(quiet) AS $<
	@mkdir -p $(@D)
	$(Q)$(CC) $(KASFLAGS) $(DEPTARGETS) -c $< -o $@

$(O)/kernel/kernel/version.c.o: KCFLAGS += -DMMLAB_VERSION='"$(VERSION)"'
$(O)/kernel/kernel/version.c.o: $(O)/version.stamp

# Rebuilds version.c.o only when git describe changes.
$(O)/version.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

# The symbol table needs the final text addresses: link once with an empty
# table, generate it, link again. .ksyms sits after .text, so text addresses
# do not move between the links; the last step checks that they did not.
$(O)/ksyms0.S: tools/gen-ksyms.sh
	@mkdir -p $(@D)
	$(Q)sh tools/gen-ksyms.sh $(NM) > $@

$(O)/%.o: $(O)/%.S
	$(Q)$(CC) $(KASFLAGS) $(DEPTARGETS) -c $< -o $@

# The linker sets' limits (include/linker_sets.h): an implicit script, given
# to every kernel and host link, whose ASSERTs make one too many a link error.
SETS_LD := $(O)/sets.ld
$(SETS_LD): kernel/sets.ld.S include/linker_sets.h
	@mkdir -p $(@D)
	$(Q)$(CC) -E -P -undef -x c -Iinclude $< -o $@

$(O)/mmlab.pass1.elf: $(KOBJS) $(O)/ksyms0.o linker.ld $(SETS_LD)
	$(quiet) LD $@
	$(Q)$(LD) $(LDFLAGS) -o $@ $(KOBJS) $(O)/ksyms0.o $(SETS_LD)

$(O)/ksyms.S: $(O)/mmlab.pass1.elf tools/gen-ksyms.sh
	$(Q)sh tools/gen-ksyms.sh $(NM) $< > $@

$(O)/mmlab.elf: $(KOBJS) $(O)/ksyms.o linker.ld $(SETS_LD)
	$(quiet) LD $@
	$(Q)$(LD) $(LDFLAGS) -o $@ $(KOBJS) $(O)/ksyms.o $(SETS_LD)
	$(Q)sh tools/gen-ksyms.sh $(NM) $@ | cmp -s - $(O)/ksyms.S || \
		{ echo "error: symbol table moved between links" >&2; rm -f $@; exit 1; }

$(O)/mmlab.iso: $(O)/mmlab.elf boot/grub.cfg tools/mkiso.sh
	$(quiet) ISO $@
	$(Q)sh tools/mkiso.sh $@ $(O)/mmlab.elf boot/grub.cfg

# ---- network boot ------------------------------------------------------------
# $(TFTP) is a TFTP root: GRUB for BIOS PXE (boot/grub/i386-pc/core.0) and for
# UEFI PXE (boot/grub/x86_64-efi/core.efi), both sourcing one boot/grub/grub.cfg
# (the ISO's menu), which loads /boot/mmlab.elf over TFTP. NETBOOT_TIMEOUT is
# the menu's countdown in seconds (0: boot at once; LAVA needs time to stop
# it, see docs/lab.md). docs/lab.md.

TFTP := $(O)/tftp
GRUB_LIB ?= /usr/lib/grub
NETBOOT_TIMEOUT ?= 0
NETBOOT_CORES := $(TFTP)/boot/grub/i386-pc/core.0 $(TFTP)/boot/grub/x86_64-efi/core.efi

.PHONY: netboot
netboot: $(NETBOOT_CORES) $(TFTP)/boot/grub/grub.cfg $(TFTP)/boot/mmlab.elf

# The platform is the core image's folder name. One grub-mknetdir at a time:
# both write the shared fonts/ and locale/.
$(TFTP)/boot/grub/x86_64-efi/core.efi: $(TFTP)/boot/grub/i386-pc/core.0
$(NETBOOT_CORES): Makefile
	$(quiet) NETDIR $@
	@mkdir -p $(TFTP)
	$(Q)grub-mknetdir --net-directory=$(TFTP) --subdir=boot/grub \
		-d $(GRUB_LIB)/$(notdir $(@D)) >/dev/null

$(TFTP)/boot/grub/grub.cfg: boot/grub.cfg $(NETBOOT_CORES) $(O)/netboot-timeout.stamp
	$(Q)sed 's/^set timeout=0$$/set timeout=$(NETBOOT_TIMEOUT)/' boot/grub.cfg > $@
	$(Q)grep -q '^set timeout=$(NETBOOT_TIMEOUT)$$' $@ || \
		{ echo "error: no 'set timeout=0' line in boot/grub.cfg" >&2; rm -f $@; exit 1; }

# Rewrites grub.cfg only when NETBOOT_TIMEOUT changes.
$(O)/netboot-timeout.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(NETBOOT_TIMEOUT)' | cmp -s - $@ || echo '$(NETBOOT_TIMEOUT)' > $@

$(TFTP)/boot/mmlab.elf: $(O)/mmlab.elf
	@mkdir -p $(@D)
	$(Q)cp $< $@

# ---- host unit tests ---------------------------------------------------------

$(O)/host/%.c.o: %.c Makefile
	$(quiet) HOSTCC $<
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(HCFLAGS) $(DEPTARGETS) -c $< -o $@

$(O)/test-host: $(HOBJS) $(SETS_LD)
	$(quiet) LINK $@
	$(Q)$(HOSTCC) $(HOST_SAN) -o $@ $(HOBJS) $(SETS_LD) -lpthread

.PHONY: test-host
test-host: $(O)/test-host
	$(Q)$(O)/test-host

# kernel/smp.c itself with threads as CPUs (tests/host/host_smp.h): its own
# binary, since test-host fakes smp_call() in the calling thread. fake_arch.c
# is built again without that fake (FAKE_ARCH_REAL_SMP); the rest is shared.
HOST_SMP_SRCS := $(HOST_LIB_SRCS) kernel/smp.c tests/ktest.c tests/mm_emul.c tests/host/host_main.c \
	tests/host/fake_cpus.c tests/host/fake_tlb.c tests/host/host_owners.c tests/host/host_smp_arch.c \
	tests/host/host_smp.c tests/host/host_smp_ea.c
HOST_SMP_OBJS := $(patsubst %,$(O)/host/%.o,$(HOST_SMP_SRCS)) $(O)/host-smp/tests/host/fake_arch.c.o

$(O)/host-smp/%.c.o: %.c Makefile
	$(quiet) HOSTCC $<+smp
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(HCFLAGS) -DFAKE_ARCH_REAL_SMP $(DEPTARGETS) -c $< -o $@

$(O)/test-host-smp: $(HOST_SMP_OBJS) $(SETS_LD)
	$(quiet) LINK $@
	$(Q)$(HOSTCC) $(HOST_SAN) -o $@ $(HOST_SMP_OBJS) $(SETS_LD) -lpthread

.PHONY: test-host-smp
test-host-smp: $(O)/test-host-smp
	$(Q)$(O)/test-host-smp

# ---- mm torture (tests/torture/, docs/testing.md) -----------------------------
# The real mm/ code on host threads (tests/host/fake_cpus.c), with the hook
# points of include/torture_hook.h compiled in (MMLAB_TORTURE): its own
# objects, under ASan/UBSan (test-torture) and under TSan (test-torture-tsan).
TORTURE_SRCS := $(HOST_LIB_SRCS) tests/mm_emul.c tests/host/fake_arch.c tests/host/fake_tlb.c
TORTURE_SRCS += tests/host/fake_cpus.c tests/host/host_owners.c
TORTURE_SRCS += tests/torture/torture.c tests/torture/torture_case.c tests/torture/torture_ops.c
TORTURE_SRCS += tests/torture/torture_dead.c tests/torture/torture_tables.c tests/torture/torture_call.c
TORTURE_SRCS += tests/torture/torture_pin.c
TORTURE_SRCS += tests/torture/torture_host.c tests/torture/torture_ktest.c tests/torture/torture_touch_host.c
TORTURE_OBJS := $(patsubst %,$(O)/torture/%.o,$(TORTURE_SRCS))
TORTURE_TSAN_OBJS := $(patsubst %,$(O)/torture-tsan/%.o,$(TORTURE_SRCS))
TORTURE_TSAN_CC ?= $(HOSTCC)
# 256 MiB of fake RAM: every frame of a flush a dark CPU missed stays quarantined
# for the rest of the run, and the first five cases of a 60 s run quarantined about
# 14,900 of the 16,000 frames of the units' 64 MiB (28 left free before the sixth).
TORTURE_CFLAGS = $(filter-out $(HOST_SAN),$(HCFLAGS)) -DMMLAB_TORTURE -DFAKE_MEM_SIZE='(256ull << 20)'
# GCC warns that TSan does not model fences (lib/atomic.h smp_mb()): known, not an error.
TORTURE_TSAN_FLAGS := -fsanitize=thread -Wno-error=tsan -Wno-tsan
TORTURE_SECONDS ?= 60

$(O)/torture/%.c.o: %.c Makefile
	$(quiet) HOSTCC $@
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(TORTURE_CFLAGS) $(HOST_SAN) $(DEPTARGETS) -c $< -o $@

$(O)/torture-tsan/%.c.o: %.c Makefile
	$(quiet) TSANCC $@
	@mkdir -p $(@D)
	$(Q)$(TORTURE_TSAN_CC) $(TORTURE_CFLAGS) $(TORTURE_TSAN_FLAGS) $(DEPTARGETS) -c $< -o $@

$(O)/test-torture: $(TORTURE_OBJS) $(SETS_LD)
	$(quiet) LINK $@
	$(Q)$(HOSTCC) $(HOST_SAN) -o $@ $(TORTURE_OBJS) $(SETS_LD) -lpthread

$(O)/test-torture-tsan: $(TORTURE_TSAN_OBJS) $(SETS_LD)
	$(quiet) LINK $@
	$(Q)$(TORTURE_TSAN_CC) -fsanitize=thread -o $@ $(TORTURE_TSAN_OBJS) $(SETS_LD) -lpthread

.PHONY: test-torture test-torture-tsan
test-torture: $(O)/test-torture
	$(Q)$(O)/test-torture --seconds=$(TORTURE_SECONDS)

# The planted bugs (tests/torture/mutants/): each must make the torture fail.
MUTANT_SECONDS ?= 30
.PHONY: test-mutants
test-mutants: $(O)/test-torture
	$(Q)tests/torture/mutants.sh --seconds=$(MUTANT_SECONDS)

test-torture-tsan: $(O)/test-torture-tsan
	$(Q)$(O)/test-torture-tsan --seconds=$(TORTURE_SECONDS)

# ---- fuzz targets ------------------------------------------------------------
# libFuzzer targets for the firmware parsers (tests/fuzz/, docs/testing.md),
# built with clang whatever CC is. `make fuzz` runs each for FUZZ_SECONDS,
# one after the other, adding what it finds to $(O)/fuzz/corpus/; `make
# fuzz-merge` adds the inputs that reach new coverage to the committed
# corpus; `make test` replays the committed corpus and regression inputs.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
# Seconds one input may take: longer is a bug (a stall at boot, worse under TCG).
FUZZ_TIMEOUT ?= 2
FUZZ_TARGETS := acpi mb1 mb2 console cmdline
FUZZ_LIB_SRCS := arch/x86_64/acpi.c arch/x86_64/console.c boot/bootinfo.c boot/mb1_cmdline.c kernel/cmdline.c \
	lib/errno.c lib/format.c lib/parse.c tests/fuzz/fuzz_mem.c tests/fuzz/fuzz_bootinfo.c
FUZZ_LIB_SRCS += kernel/run_modes.c tests/host/host_owners.c
FUZZ_LIB_SRCS += arch/x86_64/acpi_numa.c arch/x86_64/topology.c
FUZZ_LIB_OBJS := $(patsubst %,$(O)/fuzz/obj/%.o,$(FUZZ_LIB_SRCS))
FUZZ_BINS := $(patsubst %,$(O)/fuzz/fuzz_%,$(FUZZ_TARGETS))
FUZZ_MAIN_OBJS := $(patsubst %,$(O)/fuzz/obj/tests/fuzz/fuzz_%.c.o,$(FUZZ_TARGETS))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -DHOST_BUILD -DMAX_CPUS=$(MAX_CPUS) \
	$(INCLUDES) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -MMD -MP

$(O)/fuzz/obj/%.c.o: %.c Makefile
	$(quiet) FUZZCC $<
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPTARGETS) -c $< -o $@

$(O)/fuzz/fuzz_%: $(O)/fuzz/obj/tests/fuzz/fuzz_%.c.o $(FUZZ_LIB_OBJS)
	$(quiet) LINK $@
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^

.SECONDARY: $(FUZZ_MAIN_OBJS)
.PHONY: fuzz-build fuzz fuzz-merge
fuzz-build: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(O)/fuzz/corpus/$$t $(O)/fuzz/crashes; \
		echo "  FUZZ     $$t for $(FUZZ_SECONDS) s (log: $(O)/fuzz/$$t.log)"; \
		$(O)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_TIMEOUT) -print_final_stats=1 \
			-artifact_prefix=$(O)/fuzz/crashes/$$t- $(O)/fuzz/corpus/$$t \
			tests/fuzz/corpus/$$t > $(O)/fuzz/$$t.log 2>&1 || \
			{ tail -n 30 $(O)/fuzz/$$t.log; exit 1; }; \
		grep -E '^#[0-9]+[[:space:]]+DONE' $(O)/fuzz/$$t.log | sed "s/^/  $$t: /"; \
	done

fuzz-merge: $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		$(O)/fuzz/fuzz_$$t -merge=1 tests/fuzz/corpus/$$t $(O)/fuzz/corpus/$$t \
			> $(O)/fuzz/$$t-merge.log 2>&1 || { tail -n 20 $(O)/fuzz/$$t-merge.log; exit 1; }; \
		grep -E 'MERGE-OUTER: [0-9]+ new files' $(O)/fuzz/$$t-merge.log | sed "s/^/  $$t: /"; \
	done

# ---- the whole suite -----------------------------------------------------------

.PHONY: test
# Host packages first (tools/deps.sh installs them as root, or names the
# command to run), so a fresh clone fails before compiling, not halfway.
test:
	$(Q)bash tools/deps.sh test
	$(Q)$(MAKE) --no-print-directory all $(O)/test-host $(O)/test-host-smp
	$(Q)O=$(O) PYTHON=$(PYTHON) /usr/bin/python3 tests/matrix.py $(if $(ONLY),--only '$(ONLY)')

.PHONY: help
# The header comment of this file is the help.
help:
	@sed -n '2,/^$$/{/^#/s/^# \{0,1\}//p}' $(firstword $(MAKEFILE_LIST))

.PHONY: clean
clean:
	rm -rf $(O)

.PHONY: FORCE
FORCE:

-include $(KOBJS:.o=.d) $(HOBJS:.o=.d) $(HOST_SMP_OBJS:.o=.d) $(TORTURE_OBJS:.o=.d) $(TORTURE_TSAN_OBJS:.o=.d) \
	$(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_MAIN_OBJS:.o=.d)
