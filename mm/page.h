/*
 * struct page, the memmap and the direct map: every usable frame has a struct
 * page in mm_memmap and a kernel address phys_to_virt(pa). Pins follow
 * FOLL_PIN: PIN_BIAS on an order-0 refcount, an exact pincount on a large
 * block's head. Locking: a frame's struct page is its allocator's; flags and
 * counts change only through the atomic helpers below, the free-list fields
 * under mm/pmm.c's locks.
 */
#ifndef MM_PAGE_H
#define MM_PAGE_H

#include "compiler.h"
#include "lib/atomic.h"
#include "types.h"
#include <arch/mmu.h>

/* struct page flags (bits 0..15 belong to mm/, bits 16..31 to a frame's owner). */
#define PG_RESERVED (1u << 0) /* never handed out: hole, firmware, kernel, memmap */
#define PG_BUDDY (1u << 1)    /* first frame of a free block on a buddy list */
#define PG_PCP (1u << 2)      /* free, in a per-CPU cache */
#define PG_HEAD (1u << 3)     /* first frame of an allocated block; order is its order */
#define PG_TAIL (1u << 4)     /* another frame of an allocated block of order > 0 */
#define PG_FREED (1u << 5)    /* freed by page_free(), not allocated since */
#define PG_PGTABLE (1u << 6)  /* a page-table page; priv counts its present entries */
#define PG_DEVICE (1u << 7)   /* device memory (mm/pin/pagemap.c): pins need its pagemap */
#define PG_OWNER_SHIFT 16

/*
 * A pin on an order-0 frame adds PIN_BIAS to its refcount, so "pinned" is
 * refcount >= PIN_BIAS, falsely only for a frame with that many plain
 * references; page_pin() refuses beyond PAGE_REF_MAX instead of wrapping
 * the s32. A block of order > 0 counts pins exactly in its head's pincount.
 */
#define PIN_BIAS 1024
#define PAGE_REF_MAX (0x7fffffff - PIN_BIAS)

/* Links of a doubly linked list of pages, with a sentinel in struct page_list. */
struct page_link {
	struct page_link *next, *prev;
};

struct page {
	u32 flags;    /* PG_* */
	s32 refcount; /* 1 after page_alloc(); + PIN_BIAS per pin of an order-0 frame */
	s32 mapcount; /* page-table entries mapping the frame (kept by the mapper) */
	s32 pincount; /* exact pins of the head of a block of order > 0 */
	u8 order;     /* block order of a PG_BUDDY or PG_HEAD frame */
	u8 node;      /* NUMA node of the frame, set once by pmm_init(), never changed */
	u8 pad[6];
	struct page_link lru; /* allocator lists while free; the owner's list otherwise */
	u64 priv;	      /* owner's word (Linux: private): swap entry, table entry count */
};

/* A list of pages through their lru links. Not movable: the sentinel points to itself. */
struct page_list {
	struct page_link head;
	u64 count;
};

extern struct page *mm_memmap;
extern u64 mm_memmap_start_pfn, mm_memmap_end_pfn;
extern vaddr_t mm_direct_map_base;

static inline bool pfn_valid(u64 pfn)
{
	return pfn >= mm_memmap_start_pfn && pfn < mm_memmap_end_pfn;
}

/* pfn <-> page <-> physical address: callers pass frames inside the memmap. */
static inline struct page *pfn_to_page(u64 pfn)
{
	return &mm_memmap[pfn - mm_memmap_start_pfn];
}

static inline u64 page_to_pfn(const struct page *p)
{
	return mm_memmap_start_pfn + (u64)(p - mm_memmap);
}

static inline paddr_t page_to_phys(const struct page *p)
{
	return page_to_pfn(p) << PAGE_SHIFT;
}

static inline struct page *phys_to_page(paddr_t pa)
{
	return pfn_to_page(pa >> PAGE_SHIFT);
}

/* Kernel address of physical address @pa through the direct map. */
static inline void *phys_to_virt(paddr_t pa)
{
	return (void *)(uintptr_t)(pa + mm_direct_map_base);
}

/*
 * Physical address of a direct-map address, or of a kernel-image address
 * (at or above ARCH_IMAGE_BASE; no host pointer is that high).
 */
static inline paddr_t virt_to_phys(const void *va)
{
	uintptr_t v = (uintptr_t)va;

	if (v >= ARCH_IMAGE_BASE)
		return v - ARCH_IMAGE_BASE;
	return v - mm_direct_map_base;
}

static inline void *page_address(const struct page *p)
{
	return phys_to_virt(page_to_phys(p));
}

/* Flag, reference and map-count accessors: atomic, any context. */
static inline bool page_test_flags(const struct page *p, u32 f)
{
	return atomic_load_relaxed(&p->flags) & f;
}

static inline void page_set_flags(struct page *p, u32 f)
{
	atomic_fetch_or(&p->flags, f);
}

static inline void page_clear_flags(struct page *p, u32 f)
{
	atomic_fetch_and(&p->flags, ~f);
}

static inline s32 page_ref_count(const struct page *p)
{
	return atomic_load_relaxed(&p->refcount);
}

static inline void page_ref_inc(struct page *p)
{
	atomic_fetch_add(&p->refcount, 1);
}

/* Drops a reference; true when it was the last one (the caller frees). */
static inline bool page_ref_dec_and_test(struct page *p)
{
	return atomic_dec_and_test(&p->refcount);
}

static inline s32 page_mapcount(const struct page *p)
{
	return atomic_load_relaxed(&p->mapcount);
}

static inline void page_map_inc(struct page *p)
{
	atomic_fetch_add(&p->mapcount, 1);
}

/* Returns the map count left after dropping one mapping. */
static inline s32 page_map_dec(struct page *p)
{
	return atomic_sub_return(&p->mapcount, 1);
}

/*
 * List operations: the caller serialises access to the list. @count alone
 * may be read without that serialisation, as a hint (pmm_drain_all(), the
 * statistics), so it is stored atomically.
 */
static inline void page_list_init(struct page_list *l)
{
	l->head.next = &l->head;
	l->head.prev = &l->head;
	atomic_store_relaxed(&l->count, 0);
}

static inline bool page_list_empty(const struct page_list *l)
{
	return l->head.next == &l->head;
}

static inline void page_list_add(struct page_list *l, struct page *p)
{
	p->lru.next = l->head.next;
	p->lru.prev = &l->head;
	l->head.next->prev = &p->lru;
	l->head.next = &p->lru;
	atomic_store_relaxed(&l->count, l->count + 1);
}

static inline void page_list_del(struct page_list *l, struct page *p)
{
	p->lru.prev->next = p->lru.next;
	p->lru.next->prev = p->lru.prev;
	p->lru.next = p->lru.prev = NULL;
	atomic_store_relaxed(&l->count, l->count - 1);
}

/* Removes and returns the most recently added page, or NULL if @l is empty. */
static inline struct page *page_list_pop(struct page_list *l)
{
	struct page *p;

	if (page_list_empty(l))
		return NULL;
	p = container_of(l->head.next, struct page, lru);
	page_list_del(l, p);
	return p;
}

/*
 * Points the memmap at @storage (a kernel address, (end - start) entries)
 * for frames [start_pfn, end_pfn) and marks every entry PG_RESERVED.
 * Called once by pmm_init() before any other CPU runs.
 */
void page_memmap_init(void *storage, u64 start_pfn, u64 end_pfn);

/* Pin accounting (mm/pin/page_pin.c). */

/*
 * Takes one pin on the allocated block headed by @p (FOLL_PIN style, see
 * above). Any context. Returns 0, -EINVAL if @p is not an allocated block's
 * head, or -EOVERFLOW when the refcount would pass PAGE_REF_MAX.
 */
int page_pin(struct page *p);

/*
 * Drops one pin taken by page_pin(). When the pin held the block's last
 * reference (its mappings went while it was pinned), the block is freed.
 * Returns 0, or -EINVAL if @p had none.
 */
int page_unpin(struct page *p);

/*
 * @nr pins (or drops) in one atomic step: how a large page covering @nr
 * of the pages one call pins is pinned once per call. Same returns.
 */
int page_pin_nr(struct page *p, u32 nr);
int page_unpin_nr(struct page *p, u32 nr);

/* The head of the allocated block @p belongs to (@p itself for an order-0 frame). */
struct page *page_block_head(struct page *p);

/*
 * The two pin readers are inline here, not in mm/pin/page_pin.c, so that the
 * frame allocator can check a freed page without calling up into the pin
 * code, which calls down into it (tools/check-layering.py, mm-no-call-cycle).
 */
static inline bool page_is_large_head(const struct page *p)
{
	return page_test_flags(p, PG_HEAD) && p->order > 0;
}

/* True when the block headed by @p may be pinned (see PIN_BIAS above). */
static inline bool page_pinned(const struct page *p)
{
	if (page_is_large_head(p))
		return atomic_load_relaxed(&p->pincount) > 0;
	return page_ref_count(p) >= PIN_BIAS;
}

/* Pins on @p: exact for a block of order > 0, refcount / PIN_BIAS otherwise. */
static inline u32 page_pin_count(const struct page *p)
{
	if (page_is_large_head(p))
		return (u32)atomic_load_relaxed(&p->pincount);
	return page_ref_count(p) > 0 ? (u32)page_ref_count(p) / PIN_BIAS : 0;
}

#endif
