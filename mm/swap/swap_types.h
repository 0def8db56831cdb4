/*
 * Swap's types and bounds: cluster and device sizes, the swap map byte,
 * the swap entry and its encoding, and a device's counts. Only types,
 * constants and inlines, so the slot allocator's files share them without
 * including each other.
 */
#ifndef MM_SWAP_TYPES_H
#define MM_SWAP_TYPES_H

#include "compiler.h"
#include "mm/swap/swapdev.h"
#include "types.h"

#define SWAP_MAX_DEVS 4
#define SWAP_CLUSTER_SLOTS 512
/* Runs of 2^0 .. 2^9 slots: 2^9 slots is a 2 MiB folio, one whole cluster. */
#define SWAP_NR_ORDERS 10
/* A large folio as the benchmark and tests use it: 16 pages, 64 KiB. */
#define SWAP_FOLIO_SLOTS 16
/* Most slots a device may have (16 GiB): its swap map is one block of frames (4 MiB). */
#define SWAP_MAX_SLOTS (4ull << 20)
/* Slots per MiB, to size a device from the swap_mb option. */
#define SWAP_SLOTS_PER_MB ((1u << 20) / SWAP_SLOT_SIZE)

BUILD_ASSERT(SWAP_CLUSTER_SLOTS == 1u << (SWAP_NR_ORDERS - 1));
BUILD_ASSERT(SWAP_MAX_SLOTS < (1ull << 32)); /* per-CPU hints are u32 */

/* Swap map byte: a reference count (mappings of the slot) and a flag. */
#define SWAP_MAP_COUNT 0x3f /* mask of the count */
#define SWAP_MAP_MAX 0x3e   /* most references one slot holds */
#define SWAP_MAP_BAD 0x3f   /* a slot past the device's end in its last cluster */
#define SWAP_HAS_CACHE 0x40 /* a page in memory still holds the slot */

/*
 * A swap entry: a device (its "type", the index of its struct swap_info)
 * and a slot offset, encoded so that it can be stored as is in a non-present
 * page-table entry:
 *   bit 0        0: the present bit is clear
 *   bit 1        1: tells a swap entry from an empty entry, which is all zero
 *   bits 2..6    type
 *   bits 12..51  offset
 * Every other bit is zero here. The arch page-table code may use them for
 * its own software flags, or transform the word (x86 Linux inverts the
 * offset bits against L1TF) as long as it gives swap_entry_from_word() back
 * the same word.
 */
typedef struct {
	u64 val;
} swp_entry_t;

#define SWP_ENTRY_MARK (1ull << 1)
#define SWP_TYPE_SHIFT 2
#define SWP_TYPE_BITS 5
#define SWP_OFFSET_SHIFT 12
#define SWP_OFFSET_BITS 40
#define SWP_TYPE_MASK (((1ull << SWP_TYPE_BITS) - 1) << SWP_TYPE_SHIFT)
#define SWP_OFFSET_MASK (((1ull << SWP_OFFSET_BITS) - 1) << SWP_OFFSET_SHIFT)

BUILD_ASSERT(SWAP_MAX_DEVS <= 1u << SWP_TYPE_BITS);

/* The entry for slot @offset of device @type (both must fit their fields). */
static inline swp_entry_t swap_entry_make(unsigned type, u64 offset)
{
	swp_entry_t e = { SWP_ENTRY_MARK | ((u64)type << SWP_TYPE_SHIFT) |
			  ((offset << SWP_OFFSET_SHIFT) & SWP_OFFSET_MASK) };
	return e;
}

static inline unsigned swap_entry_type(swp_entry_t e)
{
	return (unsigned)((e.val & SWP_TYPE_MASK) >> SWP_TYPE_SHIFT);
}

static inline u64 swap_entry_offset(swp_entry_t e)
{
	return (e.val & SWP_OFFSET_MASK) >> SWP_OFFSET_SHIFT;
}

/* The entry @n slots further on the same device. */
static inline swp_entry_t swap_entry_next(swp_entry_t e, u64 n)
{
	return swap_entry_make(swap_entry_type(e), swap_entry_offset(e) + n);
}

/* The word to store in a non-present page-table entry. */
static inline u64 swap_entry_to_word(swp_entry_t e)
{
	return e.val;
}

/* True, with *@e set, when @w is a word swap_entry_to_word() made. */
static inline bool swap_entry_from_word(u64 w, swp_entry_t *e)
{
	if ((w & ~(SWP_ENTRY_MARK | SWP_TYPE_MASK | SWP_OFFSET_MASK)) || !(w & SWP_ENTRY_MARK))
		return false;
	e->val = w;
	return true;
}

struct swap_stats {
	u64 nslots; /* usable slots */
	u64 inuse;  /* slots holding a reference or the has-cache flag */
	u32 nclusters;
	u32 free_clusters, nonfull_clusters, frag_clusters, full_clusters;
};

#endif
