/*
 * Readers of a file-like mapping (see bench/file_readers.h). A pass is a
 * sequence number the boot CPU bumps; a reader that sees a new one does
 * its fixed work, books its cycles and publishes the number as done. In
 * exact mode every chunk of reads yields (timing_yield()), so the passes
 * count the same instructions on every boot.
 */
#include "bench/file_readers.h"
#include "bench/bench.h"
#include "errno.h"
#include "kernel/smp.h"
#include "kernel/timing.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include "mm/page.h"
#include <arch/arch.h>

#define FR_CHUNK 16		/* reads between yields in exact mode */
#define FR_STOP (~0u)		/* the pass number that ends a reader */
#define FR_TIMEOUT_MS 60000	/* a pass of faults on a descheduled vCPU under TCG */

struct file_reader {
	u32 done;		/* the last pass finished */
	u32 probed;		/* the last probe finished */
	u32 running;
	u64 cycles;		/* that pass's own cycles */
	u64 wrong, probe_wrong;
} __cacheline_aligned;

/* The reuse probe's request: a sequence number and what to read. */
struct probe_req {
	u32 seq, armed, released;
	vaddr_t base;
	unsigned pages;
	u64 window;
};

static struct {
	u32 pass __cacheline_aligned;
	vaddr_t base;
	unsigned pages, passes, nreaders;
	bool (*throttled)(void);
	struct probe_req probe __cacheline_aligned;
	struct file_reader r[MAX_CPUS];
} frs;

/* One pass of the fixed work: every page's first word, frs.passes times. */
static void reader_work(struct file_reader *r)
{
	u64 wrong = 0;

	for (unsigned p = 0; p < frs.passes; p++)
		for (unsigned i = 0; i < frs.pages; i++) {
			const u64 *w = (const u64 *)(frs.base + (vaddr_t)i * PAGE_SIZE);

			wrong += READ_ONCE(*w) != file_page_tag(i);
			if (i % FR_CHUNK != FR_CHUNK - 1)
				continue;
			timing_yield();
			while (frs.throttled && frs.throttled())
				arch_cpu_relax();
		}
	if (wrong)
		atomic_store_relaxed(&r->wrong, r->wrong + wrong);
}

/* One read of each probe page; returns how many found anything but its tag. */
static u64 probe_sweep(void)
{
	u64 wrong = 0;

	for (unsigned i = 0; i < frs.probe.pages; i++)
		wrong += READ_ONCE(*(const u64 *)(frs.probe.base + (vaddr_t)i * PAGE_SIZE)) !=
			 file_page_tag(i);
	return wrong;
}

/*
 * A reader's part of the probe, interrupts off throughout its window: the
 * initiator's IPI waits, so its flush cannot complete in the window. The
 * first sweep (pages present) caches the translations; the second runs
 * only if the initiator released the frames inside the window, which a
 * design that waits for the flush cannot do. Between them the reader
 * touches no probe page: a miss there would fault with interrupts off
 * while the initiator holds the address space's write side.
 */
static void reader_probe(struct file_reader *r)
{
	unsigned long flags = arch_irq_save();
	u64 end = arch_tsc_read() + frs.probe.window;
	u64 wrong = probe_sweep();

	atomic_fetch_add(&frs.probe.armed, 1);
	while (!atomic_load_acquire(&frs.probe.released) && arch_tsc_read() < end)
		arch_cpu_relax();
	if (atomic_load_acquire(&frs.probe.released))
		wrong += probe_sweep();
	arch_irq_restore(flags);
	atomic_store_relaxed(&r->probe_wrong, wrong);
}

static void reader_main(void *arg)
{
	struct file_reader *r = arg;
	u32 seen = atomic_load_acquire(&frs.pass), probe = atomic_load_acquire(&frs.probe.seq);

	atomic_store_release(&r->probed, probe);
	atomic_store_release(&r->done, seen);
	for (;;) {
		u32 now = atomic_load_acquire(&frs.pass);
		u64 t0;

		if (atomic_load_acquire(&frs.probe.seq) != probe) {
			probe = atomic_load_acquire(&frs.probe.seq);
			reader_probe(r);
			atomic_store_release(&r->probed, probe);
			continue;
		}
		if (now == seen) {
			arch_cpu_relax();
			continue;
		}
		if (now == FR_STOP)
			break;
		seen = now;
		t0 = arch_tsc_read();
		reader_work(r);
		atomic_store_relaxed(&r->cycles, arch_tsc_read() - t0);
		atomic_store_release(&r->done, seen);
	}
	atomic_store_release(&r->running, 0);
}

/* Waits until every reader is done with @pass (or, for @stopping, has left). */
static int wait_readers(u32 pass, bool stopping)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * FR_TIMEOUT_MS;

	for (unsigned k = 1; k <= frs.nreaders; k++) {
		struct file_reader *r = &frs.r[k];

		while (stopping ? atomic_load_acquire(&r->running)
				: atomic_load_acquire(&r->done) != pass) {
			if (arch_tsc_read() > deadline)
				return -ETIMEDOUT;
			arch_cpu_relax();
		}
	}
	return 0;
}

int file_readers_start(const struct bench_ctx *c, vaddr_t base, unsigned pages, unsigned passes,
		       bool (*throttled)(void))
{
	memset(&frs, 0, sizeof(frs));
	frs.throttled = throttled;
	frs.base = base;
	frs.pages = pages;
	frs.passes = passes;
	for (unsigned idx = 1; idx < c->ncpus; idx++) {
		struct file_reader *r = &frs.r[idx];
		int err;

		r->done = FR_STOP; /* not a pass: start waits for the reader's first look */
		r->running = 1;
		err = smp_run_async(c->cpu[idx], reader_main, r);
		if (err) {
			r->running = 0;
			file_readers_stop();
			return err;
		}
		frs.nreaders = idx;
	}
	return wait_readers(0, false);
}

int file_readers_stop(void)
{
	int err = wait_readers(atomic_load_relaxed(&frs.pass), false);

	atomic_store_release(&frs.pass, FR_STOP);
	return wait_readers(FR_STOP, true) ? -ETIMEDOUT : err;
}

void file_readers_go(void)
{
	u32 next = atomic_load_relaxed(&frs.pass) + 1;

	atomic_store_release(&frs.pass, next == FR_STOP ? 1 : next);
}

bool file_readers_done(void)
{
	u32 pass = atomic_load_relaxed(&frs.pass);

	for (unsigned k = 1; k <= frs.nreaders; k++)
		if (atomic_load_acquire(&frs.r[k].done) != pass)
			return false;
	return true;
}

int file_readers_wait(void)
{
	return wait_readers(atomic_load_relaxed(&frs.pass), false);
}

u64 file_readers_cycles(void)
{
	u64 sum = 0;

	for (unsigned k = 1; k <= frs.nreaders; k++)
		sum += atomic_load_relaxed(&frs.r[k].cycles);
	return sum;
}

u64 file_readers_wrong(void)
{
	u64 n = 0;

	for (unsigned k = 1; k <= frs.nreaders; k++)
		n += atomic_load_relaxed(&frs.r[k].wrong);
	return n;
}

/* Waits until every reader is armed (@armed) or done with the probe. 0 or -ETIMEDOUT. */
static int probe_wait_all(u32 armed)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * FR_TIMEOUT_MS;
	u32 seq = atomic_load_relaxed(&frs.probe.seq);

	for (unsigned k = 1; k <= frs.nreaders; k++)
		while (armed ? atomic_load_acquire(&frs.probe.armed) < frs.nreaders
			     : atomic_load_acquire(&frs.r[k].probed) != seq) {
			if (arch_tsc_read() > deadline)
				return -ETIMEDOUT;
			arch_cpu_relax();
		}
	return 0;
}

int file_readers_probe_arm(vaddr_t base, unsigned pages, u64 window_cycles)
{
	frs.probe.base = base;
	frs.probe.pages = pages;
	frs.probe.window = window_cycles;
	atomic_store_relaxed(&frs.probe.armed, 0);
	atomic_store_relaxed(&frs.probe.released, 0);
	atomic_store_release(&frs.probe.seq, frs.probe.seq + 1);
	return probe_wait_all(true);
}

void file_readers_probe_release(void)
{
	atomic_store_release(&frs.probe.released, 1);
}

int file_readers_probe_wait(u64 *wrong)
{
	int err = probe_wait_all(false);

	*wrong = 0;
	for (unsigned k = 1; k <= frs.nreaders; k++)
		*wrong += atomic_load_relaxed(&frs.r[k].probe_wrong);
	return err;
}
