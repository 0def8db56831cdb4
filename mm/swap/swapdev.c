/*
 * The RAM swap device (see mm/swap/swapdev.h), zRAM-like without
 * compression: a directory of chunk pages describing RAM_CHUNK_SLOTS slots
 * each, one frame per stored slot, a same-filled page kept as its word.
 * Locking: none. Chunk pages are installed once by compare-and-swap; a
 * slot's record is written by its holder or by the freeing allocator, never
 * both at once. Counters are atomic.
 */
#include "mm/swap/swapdev.h"
#include "compiler.h"
#include "errno.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/pmm.h"

enum ram_kind { RAM_EMPTY, RAM_FRAME, RAM_SAME };

/* How one slot is stored. */
struct ram_slot {
	u64 word; /* RAM_FRAME: the frame's physical address; RAM_SAME: the repeated word */
	u64 kind; /* enum ram_kind */
};

#define RAM_CHUNK_SLOTS (PAGE_SIZE / sizeof(struct ram_slot))

struct swap_ram {
	struct swap_dev dev; /* first: the ops see this */
	struct page *self;   /* the block holding this header and chunks[] */
	unsigned self_order;
	u64 nchunks;
	u64 frames, same, meta_pages, reads, writes, discards; /* atomic */
	struct ram_slot *chunks[]; /* NULL until a slot in it is written */
};

BUILD_ASSERT(SWAP_SLOT_SIZE == PAGE_SIZE);

static struct swap_ram *ram_of(struct swap_dev *d)
{
	return container_of(d, struct swap_ram, dev);
}

/* The record of @slot, allocating its chunk page when @create; NULL if absent or no memory. */
static struct ram_slot *ram_slot_get(struct swap_ram *r, u64 slot, bool create)
{
	struct ram_slot **cp = &r->chunks[slot / RAM_CHUNK_SLOTS];
	struct ram_slot *chunk = atomic_load_acquire(cp);
	struct page *p;

	if (chunk || !create)
		return chunk ? &chunk[slot % RAM_CHUNK_SLOTS] : NULL;
	p = page_alloc(0, PMM_ZERO);
	if (!p)
		return NULL;
	chunk = atomic_cmpxchg(cp, NULL, (struct ram_slot *)page_address(p));
	if (chunk) {
		page_free(p, 0); /* another CPU installed this chunk first */
	} else {
		chunk = page_address(p);
		atomic_inc(&r->meta_pages);
	}
	return &chunk[slot % RAM_CHUNK_SLOTS];
}

/* True when @buf is one 8-byte word repeated; the word goes to *@word. */
static bool ram_page_same(const void *buf, u64 *word)
{
	const u64 *w = buf;
	size_t i;

	for (i = 1; i < PAGE_SIZE / sizeof(u64); i++)
		if (w[i] != w[0])
			return false;
	*word = w[0];
	return true;
}

/* Drops what @s holds, leaving it RAM_EMPTY. */
static void ram_slot_clear(struct swap_ram *r, struct ram_slot *s)
{
	u64 kind = READ_ONCE(s->kind);

	if (kind == RAM_FRAME) {
		page_free(phys_to_page(s->word), 0);
		atomic_sub_return(&r->frames, 1);
	} else if (kind == RAM_SAME) {
		atomic_sub_return(&r->same, 1);
	}
	WRITE_ONCE(s->kind, (u64)RAM_EMPTY);
}

/* Stores a page into @s, reusing its frame if it has one. */
static int ram_store_frame(struct swap_ram *r, struct ram_slot *s, const void *buf)
{
	struct page *p;

	if (READ_ONCE(s->kind) != RAM_FRAME) {
		p = page_alloc(0, 0);
		if (!p)
			return -ENOMEM;
		ram_slot_clear(r, s);
		WRITE_ONCE(s->word, page_to_phys(p));
		WRITE_ONCE(s->kind, (u64)RAM_FRAME);
		atomic_inc(&r->frames);
	}
	memcpy(phys_to_virt(s->word), buf, PAGE_SIZE);
	return 0;
}

static int ram_write_slot(struct swap_dev *d, u64 slot, const void *buf)
{
	struct swap_ram *r = ram_of(d);
	struct ram_slot *s;
	u64 word;

	if (slot >= d->nslots)
		return -EINVAL;
	s = ram_slot_get(r, slot, true);
	if (!s)
		return -ENOMEM;
	atomic_inc(&r->writes);
	if (!ram_page_same(buf, &word))
		return ram_store_frame(r, s, buf);
	ram_slot_clear(r, s);
	WRITE_ONCE(s->word, word);
	WRITE_ONCE(s->kind, (u64)RAM_SAME);
	atomic_inc(&r->same);
	return 0;
}

static int ram_read_slot(struct swap_dev *d, u64 slot, void *buf)
{
	struct swap_ram *r = ram_of(d);
	struct ram_slot *s;
	u64 *w = buf;
	size_t i;

	if (slot >= d->nslots)
		return -EINVAL;
	s = ram_slot_get(r, slot, false);
	if (!s || READ_ONCE(s->kind) == RAM_EMPTY)
		return -ENOENT;
	atomic_inc(&r->reads);
	if (READ_ONCE(s->kind) == RAM_FRAME) {
		memcpy(buf, phys_to_virt(s->word), PAGE_SIZE);
		return 0;
	}
	for (i = 0; i < PAGE_SIZE / sizeof(u64); i++)
		w[i] = s->word;
	return 0;
}

static void ram_discard(struct swap_dev *d, u64 slot, u64 nr)
{
	struct swap_ram *r = ram_of(d);
	u64 end = MIN(slot + nr, d->nslots);

	for (; slot < end; slot++) {
		struct ram_slot *s = ram_slot_get(r, slot, false);

		if (s && READ_ONCE(s->kind) != RAM_EMPTY) {
			ram_slot_clear(r, s);
			atomic_inc(&r->discards);
		}
	}
}

static void ram_destroy(struct swap_dev *d)
{
	struct swap_ram *r = ram_of(d);
	u64 i;

	ram_discard(d, 0, d->nslots);
	for (i = 0; i < r->nchunks; i++)
		if (r->chunks[i])
			page_free(phys_to_page(virt_to_phys(r->chunks[i])), 0);
	page_free(r->self, r->self_order);
}

static const struct swap_dev_ops swap_ram_ops = {
	.name = "ram",
	.read_slot = ram_read_slot,
	.write_slot = ram_write_slot,
	.discard = ram_discard,
	.destroy = ram_destroy,
};

/* Smallest block order of at least @bytes. */
static unsigned ram_order_for(u64 bytes)
{
	unsigned order = 0;

	while (((u64)PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

int swap_ram_create(u64 nslots, struct swap_dev **out)
{
	u64 nchunks = (nslots + RAM_CHUNK_SLOTS - 1) / RAM_CHUNK_SLOTS;
	unsigned order = ram_order_for(sizeof(struct swap_ram) + nchunks * sizeof(void *));
	struct swap_ram *r;
	struct page *p;

	if (nslots == 0 || nslots > SWAP_RAM_MAX_SLOTS)
		return -EINVAL;
	p = page_alloc(order, PMM_ZERO);
	if (!p)
		return -ENOMEM;
	r = page_address(p);
	r->dev.ops = &swap_ram_ops;
	r->dev.nslots = nslots;
	r->self = p;
	r->self_order = order;
	r->nchunks = nchunks;
	r->meta_pages = 1ull << order;
	*out = &r->dev;
	return 0;
}

void swap_ram_stats_get(struct swap_dev *d, struct swap_ram_stats *s)
{
	struct swap_ram *r = ram_of(d);

	memset(s, 0, sizeof(*s));
	if (d->ops != &swap_ram_ops)
		return;
	s->frames = atomic_load_relaxed(&r->frames);
	s->same = atomic_load_relaxed(&r->same);
	s->meta_pages = atomic_load_relaxed(&r->meta_pages);
	s->reads = atomic_load_relaxed(&r->reads);
	s->writes = atomic_load_relaxed(&r->writes);
	s->discards = atomic_load_relaxed(&r->discards);
}
