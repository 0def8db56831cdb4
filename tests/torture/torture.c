/*
 * The torture's core (tests/torture/torture.h): the shared address spaces
 * and their model, the per-CPU rings, the audit barrier and the cases.
 * A case per TLB design of tlb_designs[]: every unmap of the case goes
 * through it (lazy with every CPU an initiator), and the fault-lock design
 * of the mapping rotates with the case.
 */
#include <stdarg.h>

#include "errno.h"
#include "kernel/percpu.h"
#include "lib/format.h"
#include "mm/devmem.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/quarantine.h"
#include "mm/swap/swap.h"
#include "tests/mm_emul.h"
#include "tests/torture/torture_internal.h"

/*
 * R_PRIV and R_SHARE alone in one PD: when the private region is unmapped,
 * a shareable zap empties that PD while a private fault may be walking it
 * (the shareable zap that freed upper tables). R_SHARED, present throughout, is in a PD of its own
 * (under the same PDPT), else it would keep that PD from ever emptying.
 */
const vaddr_t t_base[T_REGIONS] = { 0x40000000ul, 0x40200000ul, 0x80000000ul };
const u64 t_len[T_REGIONS] = { T_PAGES * T_KB4, MAPPING_SHARE_ALIGN, T_PAGES * T_KB4 };
const unsigned t_flags[T_REGIONS] = { T_RW, T_RW | MM_PT_SHAREABLE, T_RW | MM_SHARED };

struct tslot t_slots[T_SLOTS];
struct mm_mapping t_mapping;
u32 t_map_lock;
const struct tlb_ops *t_unmap_ops;
unsigned t_swap_type;
u64 t_ops, t_checks;
struct tcpu t_cpus[TORTURE_MAX_CPUS];
extern struct devmem t_devmem;

static struct tmodel t_models[T_SLOTS * T_REGIONS * 2];
static bool t_stop, t_fail_set;
static u64 t_seed;

void torture_set_seed(u64 seed)
{
	t_seed = seed;
}
static char t_fail_msg[256];

u64 t_rand(struct tcpu *c)
{
	/* xorshift64*: enough for picking operations, and replayable from the seed. */
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 0x2545f4914f6cdd1dull;
}

/*
 * An interrupt window, and a switch away from an address space being
 * destroyed (mm_destroy() waits for every CPU to leave it).
 */
void t_service(void)
{
	struct mm *cur = mm_current();

	if (cur) {
		for (unsigned k = 0; k < T_SLOTS; k++)
			if (__atomic_load_n(&t_slots[k].mm, __ATOMIC_ACQUIRE) == cur &&
			    __atomic_load_n(&t_slots[k].state, __ATOMIC_ACQUIRE) == SLOT_BUSY)
				mm_switch(NULL);
	}
	t_paths_service();
	torture_env_service();
}

/* A spin lock that leaves interrupt windows while it waits (lazy drains at ticks). */
void t_lock(u32 *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		t_service();
}

void t_unlock(u32 *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

void t_lock_pages(struct tpage **p, unsigned n)
{
	for (unsigned i = 1; i < n; i++) /* insertion sort by address: the lock order */
		for (unsigned j = i; j > 0 && p[j] < p[j - 1]; j--) {
			struct tpage *x = p[j];

			p[j] = p[j - 1];
			p[j - 1] = x;
		}
	for (unsigned i = 0; i < n; i++)
		if (i == 0 || p[i] != p[i - 1])
			t_lock(&p[i]->lock);
}

void t_unlock_pages(struct tpage **p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (i == 0 || p[i] != p[i - 1])
			t_unlock(&p[i]->lock);
}

struct tslot *t_slot_get(struct tcpu *c)
{
	struct tslot *s = &t_slots[t_rand(c) % T_SLOTS];

	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != SLOT_LIVE)
		return NULL;
	__atomic_add_fetch(&s->users, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->state, __ATOMIC_SEQ_CST) == SLOT_LIVE)
		return s;
	t_slot_put(s);
	return NULL;
}

void t_slot_put(struct tslot *s)
{
	__atomic_sub_fetch(&s->users, 1, __ATOMIC_SEQ_CST);
}

struct tmodel *t_model_new(void)
{
	for (unsigned i = 0; i < ARRAY_SIZE(t_models); i++) {
		u32 free = 0;

		if (__atomic_compare_exchange_n(&t_models[i].refs, &free, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			for (unsigned k = 0; k < T_PAGES; k++)
				t_models[i].p[k] = (struct tpage){ 0, 0 };
			return &t_models[i];
		}
	}
	torture_fail("out of models");
	return &t_models[0];
}

void t_model_put(struct tmodel *m)
{
	__atomic_sub_fetch(&m->refs, 1, __ATOMIC_RELEASE);
}

/* The owner tag: address space, region and page, and a random version. */
u64 t_tag(const struct tslot *s, unsigned r, unsigned i, u64 version)
{
	return (s->id << 48) | ((u64)r << 44) | ((u64)i << 36) | (version & 0xfffffffffull) | 1;
}

void t_rec(struct tcpu *c, unsigned op, unsigned slot, u64 va, u32 arg, s64 ret)
{
	u32 mm = slot < T_SLOTS ? (u32)__atomic_load_n(&t_slots[slot].id, __ATOMIC_RELAXED) : 0;

	c->ring[c->head++ % TORTURE_RING] =
		(struct torture_rec){ (u16)op, (u16)slot, arg, mm, va, ret };
}

int t_slot_create(struct tslot *s)
{
	static u64 ids = 1;
	struct mm *mm = NULL;
	int err = mm_create(&mm);

	__atomic_store_n(&s->mm, mm, __ATOMIC_RELEASE);

	for (unsigned r = 0; !err && r < T_REGIONS; r++)
		err = mm_map_region(s->mm, t_base[r], t_len[r], t_flags[r]);
	/*
	 * The shared region is present from the start and never unmapped: a
	 * fork shares the frames present then, so its family shares one model.
	 */
	if (!err)
		err = mm_populate(s->mm, t_base[R_SHARED], t_len[R_SHARED]);
	if (err) {
		if (s->mm)
			mm_destroy(s->mm);
		__atomic_store_n(&s->state, SLOT_EMPTY, __ATOMIC_RELEASE);
		return err;
	}
	__atomic_store_n(&s->id, __atomic_add_fetch(&ids, 1, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	for (unsigned r = 0; r < T_REGIONS; r++)
		s->model[r] = t_model_new();
	t_lock(&t_map_lock);
	err = mapping_attach(&t_mapping, s->mm, t_base[R_SHARE]);
	s->attached = !err;
	__atomic_store_n(&s->state, SLOT_LIVE, __ATOMIC_RELEASE);
	t_unlock(&t_map_lock);
	return 0;
}

/* @s is BUSY: waits for its users and for every CPU to switch away, then frees it. */
int t_slot_destroy(struct tslot *s)
{
	u64 deadline = torture_env_now_ms() + 10 * 1000;
	int err;

	while (__atomic_load_n(&s->users, __ATOMIC_SEQ_CST))
		t_service();
	t_lock(&t_map_lock);
	if (s->attached && mapping_detach(&t_mapping, s->mm, t_base[R_SHARE]))
		torture_fail("mapping_detach before destroy failed");
	s->attached = false;
	t_unlock(&t_map_lock);
	if (mm_current() == s->mm)
		mm_switch(NULL);
	while ((err = mm_destroy(s->mm)) == -EBUSY && torture_env_now_ms() < deadline)
		t_service();
	if (err)
		torture_fail("mm_destroy of mm %lu: %d", (unsigned long)s->id, err);
	for (unsigned r = 0; r < T_REGIONS; r++)
		t_model_put(s->model[r]);
	__atomic_store_n(&s->mm, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&s->state, SLOT_EMPTY, __ATOMIC_RELEASE);
	return err;
}

void torture_fail(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&t_fail_set, true, __ATOMIC_SEQ_CST)) {
		char more[200];

		va_start(ap, fmt);
		fmt_snprintf(more, 3, "# ");
		fmt_vsnprintf(more + 2, sizeof(more) - 2, fmt, ap);
		va_end(ap);
		torture_env_line(more); /* a later failure, or detail of the first */
		return;
	}
	va_start(ap, fmt);
	fmt_vsnprintf(t_fail_msg, sizeof(t_fail_msg), fmt, ap);
	va_end(ap);
	__atomic_store_n(&t_stop, true, __ATOMIC_RELEASE);
}

bool torture_failed(void)
{
	return __atomic_load_n(&t_fail_set, __ATOMIC_ACQUIRE);
}

u64 torture_ops_done(void)
{
	return __atomic_load_n(&t_ops, __ATOMIC_RELAXED);
}

u64 torture_checks_done(void)
{
	return __atomic_load_n(&t_checks, __ATOMIC_RELAXED);
}

void torture_report_failure(void)
{
	char line[200];

	fmt_snprintf(line, sizeof(line), "# torture FAILED (seed=%lu): %s",
		     (unsigned long)t_seed, t_fail_msg);
	torture_env_line(line);
	for (unsigned cpu = 0; cpu < TORTURE_MAX_CPUS; cpu++) {
		struct tcpu *c = &t_cpus[cpu];
		unsigned from = c->head > TORTURE_RING ? c->head - TORTURE_RING : 0;

		for (unsigned k = from; k < c->head; k++) {
			const struct torture_rec *r = &c->ring[k % TORTURE_RING];

			fmt_snprintf(line, sizeof(line),
				     "# cpu %u op %u: %s slot %u mm %u va 0x%lx arg %u ret %ld",
				     cpu, k, t_op_names[r->op], r->slot, r->mm,
				     (unsigned long)r->va, r->arg, (long)r->ret);
			torture_env_line(line);
		}
	}
}
