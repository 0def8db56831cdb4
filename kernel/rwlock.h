/*
 * Reader-writer spinlock, writer-preferring so readers cannot starve writers;
 * writers queue on an inner ticket spinlock. Each read_lock/unlock is an RMW
 * of one word, so readers on different CPUs still bounce its cache line.
 * Rules: _irqsave forms if also taken in interrupt context; no read side
 * under this CPU's write side, no nested read sides while a writer may wait.
 * The mm locks are held across cross-CPU waits: never take them _irqsave.
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
