/*
 * Writer-preferring reader-writer spinlock (see kernel/rwlock.h). The lock
 * word is changed only by atomic read-modify-writes; the inner spinlock is
 * held by the writer from write_lock() to write_unlock(), so at most one
 * writer ever sets RWLOCK_WRITER.
 */
#include "kernel/rwlock.h"
#include "kernel/panic.h"
#include "lib/atomic.h"
#include <arch/arch.h>

static void rwlock_check_reader(const rwlock_t *l)
{
#ifdef MMLAB_DEBUG_LOCKS
	unsigned cpu = arch_cpu_id();

	if (atomic_load_relaxed(&l->writers.owner_cpu) == cpu)
		panic("rwlock %s: read_lock on cpu %u, which holds the write side",
		      l->writers.name ? l->writers.name : "(unnamed)", cpu);
#else
	(void)l;
#endif
}

void rwlock_init(rwlock_t *l, const char *name)
{
	l->state = 0;
	spin_lock_init(&l->writers, name);
}

void read_lock(rwlock_t *l)
{
	rwlock_check_reader(l);
	for (;;) {
		/* Fully ordered: when the writer bit was clear, this is our acquire. */
		if (!(atomic_fetch_add(&l->state, 1) & RWLOCK_WRITER))
			return;
		/* A writer owns or awaits the lock: back out so it can proceed. */
		atomic_fetch_sub(&l->state, 1);
		while (atomic_load_relaxed(&l->state) & RWLOCK_WRITER)
			arch_cpu_relax();
	}
}

void read_unlock(rwlock_t *l)
{
#ifdef MMLAB_DEBUG_LOCKS
	if (!(atomic_load_relaxed(&l->state) & RWLOCK_READERS))
		panic("rwlock %s: read_unlock on cpu %u with no reader inside",
		      l->writers.name ? l->writers.name : "(unnamed)", arch_cpu_id());
#endif
	atomic_fetch_sub(&l->state, 1);
}

void write_lock(rwlock_t *l)
{
	/* Uncounted: rwlocks are waited for with interrupts on (kernel/rwlock.h). */
	spin_lock_uncounted(&l->writers);
	/* From here on new readers back out; wait for those already inside. */
	atomic_fetch_or(&l->state, RWLOCK_WRITER);
	while (atomic_load_acquire(&l->state) & RWLOCK_READERS)
		arch_cpu_relax();
}

void write_unlock(rwlock_t *l)
{
	spin_assert_held(&l->writers);
	atomic_fetch_and(&l->state, ~RWLOCK_WRITER);
	spin_unlock_uncounted(&l->writers);
}

unsigned long read_lock_irqsave(rwlock_t *l)
{
	unsigned long flags = arch_irq_save();

	read_lock(l);
	return flags;
}

void read_unlock_irqrestore(rwlock_t *l, unsigned long flags)
{
	read_unlock(l);
	arch_irq_restore(flags);
}

unsigned long write_lock_irqsave(rwlock_t *l)
{
	unsigned long flags = arch_irq_save();

	write_lock(l);
	return flags;
}

void write_unlock_irqrestore(rwlock_t *l, unsigned long flags)
{
	write_unlock(l);
	arch_irq_restore(flags);
}

unsigned rwlock_readers(const rwlock_t *l)
{
	return atomic_load_relaxed(&l->state) & RWLOCK_READERS;
}

bool rwlock_write_locked(const rwlock_t *l)
{
	return atomic_load_relaxed(&l->state) & RWLOCK_WRITER;
}
