/*
 * Reader-writer spinlock, writer-preferring: once a writer has announced
 * itself, new readers wait, so a stream of readers cannot starve writers.
 * Writers queue among themselves on an inner ticket spinlock (fair except
 * under QEMU TCG, and the debug checks of kernel/spinlock.h catch a
 * recursive write_lock or a write_unlock by another CPU).
 *
 * Cost model: readers do not share a lock-free path. Every read_lock and
 * read_unlock is an atomic read-modify-write of the lock word, so readers on
 * different CPUs still bounce the lock's cache line between them even though
 * they never wait for each other. The faultlock benchmark measures exactly
 * this cost on the page-fault path.
 *
 * Rules: as for spinlock_t, a lock also taken in interrupt context must be
 * taken with the _irqsave forms everywhere. A CPU that holds the write side
 * must not take the read side (debug builds panic), and read sides do not
 * nest while a writer may be waiting (the inner read_lock would wait for the
 * writer, which waits for the outer read side). The address-space and
 * mapping locks stand in for sleeping locks and may be held across
 * cross-CPU waits (TLB shootdowns), so their write side is not counted by
 * spin_assert_none_held(): never take such a lock with the _irqsave forms,
 * or a CPU waiting for it with interrupts off would never answer.
 */
#ifndef KERNEL_RWLOCK_H
#define KERNEL_RWLOCK_H

#include "kernel/spinlock.h"
#include "types.h"

/* Lock word: reader count in the low bits, RWLOCK_WRITER when a writer owns or awaits it. */
#define RWLOCK_WRITER 0x80000000u
#define RWLOCK_READERS 0x7fffffffu

typedef struct {
	u32 state;	    /* RWLOCK_WRITER | number of readers inside */
	spinlock_t writers; /* serialises writers; held for the whole write side */
} rwlock_t;

#define RWLOCK_INIT(lock_name)                                                                     \
	{                                                                                          \
		.state = 0, .writers = SPINLOCK_INIT(lock_name)                                    \
	}

/* Initialises @l as free, named @name for panic messages. */
void rwlock_init(rwlock_t *l, const char *name);

/* Takes @l for reading; waits while a writer owns or awaits it. */
void read_lock(rwlock_t *l);

/* Leaves the read side. Debug builds panic if no reader is inside. */
void read_unlock(rwlock_t *l);

/* Takes @l for writing: waits for earlier writers, then for readers to leave. */
void write_lock(rwlock_t *l);

/* Releases the write side, which this CPU must hold. */
void write_unlock(rwlock_t *l);

/* The same with interrupts disabled first; each returns the state to restore. */
unsigned long read_lock_irqsave(rwlock_t *l);
void read_unlock_irqrestore(rwlock_t *l, unsigned long flags);
unsigned long write_lock_irqsave(rwlock_t *l);
void write_unlock_irqrestore(rwlock_t *l, unsigned long flags);

/* Racy snapshots for assertions and tests: readers inside, writer owns or awaits. */
unsigned rwlock_readers(const rwlock_t *l);
bool rwlock_write_locked(const rwlock_t *l);

#endif
