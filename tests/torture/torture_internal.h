/*
 * What tests/torture/torture.c (state, cases, audit) and
 * tests/torture/torture_ops.c (the operations) share.
 */
#ifndef TESTS_TORTURE_INTERNAL_H
#define TESTS_TORTURE_INTERNAL_H

#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/tlb/tlb.h"
#include "tests/torture/torture.h"

#define T_SLOTS 4
#define T_PAGES 8 /* pages of each region the torture touches (the tracked ones) */
#define T_KB4 4096ul
#define T_RW (MM_READ | MM_WRITE)

/* Every address space's regions: R_PRIV and R_SHARE share a PD and a PDPT, R_SHARED the PDPT. */
enum { R_PRIV, R_SHARE, R_SHARED, T_REGIONS };
extern const vaddr_t t_base[T_REGIONS];
extern const u64 t_len[T_REGIONS];
extern const unsigned t_flags[T_REGIONS];

/* A tracked page: its expected first word (0: zero page) and its lock. */
struct tpage {
	u32 lock;
	u64 val;
};

/*
 * The words of a tracked page its owner writes and checks (torture_ops.c):
 * word k at t_word_off[k] holds t_word(val, k). T_TORN: a write that
 * failed part-way left the page's words unknown until its next write.
 */
#define T_WORDS 3
#define T_TORN (~0ull)
extern const u16 t_word_off[T_WORDS];
u64 t_word(u64 val, unsigned k);

/* The model of one region; a shared region's is shared by a fork family. */
struct tmodel {
	u32 refs;
	struct tpage p[T_PAGES];
};

enum { SLOT_EMPTY, SLOT_BUSY, SLOT_LIVE };

struct tslot {
	u32 state;
	u32 users;
	struct mm *mm;
	u64 id; /* the address space's number in owner tags */
	bool attached;
	struct tmodel *model[T_REGIONS];
};

extern struct tslot t_slots[T_SLOTS];
extern struct mm_mapping t_mapping;
extern u32 t_map_lock; /* zap-all, attach, detach, fork, create, destroy */
extern const struct tlb_ops *t_unmap_ops; /* the case's design */
extern bool t_slow_tick; /* the case is lazy at its slowest tick (torture_slow_tick_case) */
extern unsigned t_swap_type;
extern u64 t_ops, t_checks;

/* Per-CPU state of the running case. */
struct tcpu {
	u64 rng;
	bool dark_at_start; /* a CPU was dark when this CPU's operation began */
	unsigned head;
	struct torture_rec ring[TORTURE_RING];
};
extern struct tcpu t_cpus[TORTURE_MAX_CPUS];

u64 t_rand(struct tcpu *c);
void t_service(void);
void t_lock(u32 *l);
void t_unlock(u32 *l);
/* Locks / unlocks @n tracked pages in address order (the global lock order). */
void t_lock_pages(struct tpage **p, unsigned n);
void t_unlock_pages(struct tpage **p, unsigned n);
struct tslot *t_slot_get(struct tcpu *c);
void t_slot_put(struct tslot *s);
struct tmodel *t_model_new(void);
void t_model_put(struct tmodel *m);
u64 t_tag(const struct tslot *s, unsigned r, unsigned i, u64 version);
void t_rec(struct tcpu *c, unsigned op, unsigned slot, u64 va, u32 arg, s64 ret);
int t_slot_create(struct tslot *s);
int t_slot_destroy(struct tslot *s);

/* The operations (t_op_names[]); T_OP_DIE, a CPU going dark, is in rings only. */
enum {
	OP_READ, OP_WRITE, OP_FORK, OP_DESTROY, OP_POPULATE, OP_ZAP_ONE, OP_ZAP_ALL, OP_ATTACH,
	OP_UNMAP, OP_UNMAP_REGION, OP_SWITCH, OP_PIN_FAST, OP_PIN_LOCKED, OP_SWAP_OUT, OP_COW,
	OP_PAGEMAP, OP_CALL, OP_COUNT, T_OP_DIE = OP_COUNT
};
extern const char *const t_op_names[];

/* One random operation on CPU @cpu. */
void torture_op(unsigned cpu);
/* The CPUs of the running case. */
unsigned t_ncpus(void);
/* Loads word @k of the tracked page at @va of @s and checks it holds t_word(@val, k). */
int t_word_check(struct tslot *s, vaddr_t va, unsigned k, u64 val, const char *what);
/* Fails the run for a fault error no rule allows. */
void t_touch_err(const struct tcpu *c, const struct tslot *s, vaddr_t va, int err);
/* Gives tracked page @p at @va of @s the tag @tag, every word (torture_ops.c). Holds @p's lock. */
int t_page_write(struct tcpu *c, struct tslot *s, struct tpage *p, vaddr_t va, u64 tag);
/* A pin of one tracked page (tests/torture/torture_pin.c). */
void t_op_pin(struct tcpu *c, struct tslot *s, bool fast);
/* Pins CPUs keep across operations: on frame @pg; dropping CPU @cpu's. */
u32 t_held_pins(const struct page *pg);
void t_pin_release(unsigned cpu);
/* A cross-CPU call from torture CPU @self (tests/torture/torture_call.c). */
void t_op_call(struct tcpu *c, unsigned self);

/*
 * Joins the audit CPU 0 asked for, if any (CPU 0 asks, and audits, in its
 * loop: inside a long operation it asks for none); true once the case is
 * ending. Between operations and inside long ones alike.
 */
bool t_audit_join(unsigned cpu);
/* The table audit (tests/torture/torture_tables.c): every CPU at the barrier. */
void t_audit_tables(void);

/*
 * The risky paths the torture drives on purpose, counted so a run can
 * say how often it reached each (printed at its end: t_paths_line()).
 */
enum t_path {
	T_PATH_ACK_STALL,	  /* a target acknowledged early, then stalled before flushing */
	T_PATH_STALL_BESIDE_DARK, /* ... while a dark CPU was not yet written off */
	T_PATH_DEATH_AT_CHECK,	  /* the dark CPU written off at a liveness check (host) */
	T_PATH_DEATH_AT_CHECK_LAZY, /* ... in lazy's case (its push loop and reap check) */
	T_PATH_CALL_ONTO_DARK,	  /* a call op that waited on the dark CPU's write-off */
	T_PATH_UNMAP_DARK_HELD,	  /* unmap of a frame the dark CPU can write, not written off */
	T_PATH_LOCKLESS_PIN_STALL, /* the lockless pin walk stalled at its page check (host) */
	T_PATH_SETTLE_IN_STALL,	  /* a settle (early_ack: every release) while a target stalled */
	T_PATH_PUSH_BESIDE_DARK,  /* lazy: a bare flush among the CPUs above a dark one */
	T_PATHS
};
void t_path_count(enum t_path k);
/* Installs the path drivers (tlb_early_ack_gap); once, before the first case. */
void t_paths_install(void);
/* The drivers' part of an interrupt window (t_service()). */
void t_paths_service(void);
/* `# torture paths: {...}` with each count, and the environment's @extra JSON members. */
void t_paths_line(const char *extra);

/* Dead-CPU injection (tests/torture/torture_dead.c). */
extern int t_dead_cpu;		  /* the case's victim, -1: none */
extern bool t_dead_now;		  /* it is dark */
extern u64 t_dead_since_ms;	  /* since when */
extern struct tslot *t_dead_slot; /* the address space it keeps loaded, held */
void t_dead_plan(const struct torture_config *cfg, unsigned i, bool lowest, u64 start_ms,
		 u64 case_ms);
bool t_dead_due(unsigned cpu, u64 now_ms);
unsigned long t_dead_enter(unsigned cpu);
void t_dead_leave(unsigned cpu, unsigned long flags);
/*
 * True once per live CPU after a CPU went dark, while it is not written
 * off: that CPU's next operation is t_dead_unmap_held().
 */
bool t_dead_unmap_due(unsigned cpu);
/* Every live CPU of @ncpus began its t_dead_unmap_held() for this death. */
bool t_dead_all_served(unsigned ncpus);
void t_dead_unmap_held(struct tcpu *c);
/*
 * While true, @cpu (above the dark one, slow-tick lazy case) runs only
 * t_dead_push(): a bare flush every few milliseconds.
 */
bool t_dead_pushing(unsigned cpu);
void t_dead_push(struct tcpu *c);
void t_dead_check(unsigned ncpus, const char *when);
void t_dead_audit(void);
/* At the audit: a leaf maps @pfn at @va (a frame the dark CPU reaches elsewhere: handed on). */
void t_dead_leaf_seen(u64 pfn, vaddr_t va);
bool t_dead_err(int err);
bool t_dead_err_mm(const struct tcpu *c, int err, struct mm *mm);
/* References quarantined frame @pfn keeps that no leaf accounts for. */
u32 t_quarantined_refs(u64 pfn);
u64 t_quarantined_frames(void);

#endif
