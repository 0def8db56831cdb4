/*
 * Roots and table pages (mm/pt_root.c): a new or adopted root, and the
 * table pages every walk allocates and frees, counted.
 */
#ifndef MM_PT_ROOT_H
#define MM_PT_ROOT_H

#include "mm/pt_types.h"

/*
 * Allocates an empty root. With @kernel_root non-zero its kernel half (PML4
 * slots 256..511) is copied, so the tables below are shared. Returns 0 with
 * *@root set, or -ENOMEM.
 */
int pt_root_alloc(paddr_t *root, paddr_t kernel_root);

/* pt_root_alloc() from NUMA node @node (page_alloc_node()'s @node and PMM_FALLBACK). */
int pt_root_alloc_node(paddr_t *root, paddr_t kernel_root, unsigned node, unsigned flags);

/*
 * Takes over page tables pt did not build (the boot tables): records each
 * table's number of present entries, so later changes keep exact counts
 * and unlink only tables that are really empty. A table reached through
 * several entries (the boot tables share their PDs) is never unlinked, even
 * when emptied, since the other entries still point to it; changing a
 * mapping through it changes it for every alias. Tables inside reserved
 * memory (the kernel image) are never handed to the allocator. Every
 * table must lie inside the memmap. Call once, after pmm_init() and before
 * any other pt call on @root. Returns 0, or -EINVAL for a table outside the
 * memmap (the tables are then only partly adopted: do not use @root).
 */
int pt_root_adopt(paddr_t root);

/*
 * Frees a root whose user half is empty, once no CPU has it loaded (or its
 * PCID cached). Returns 0, or -EBUSY when the user half still maps something.
 */
int pt_root_free(paddr_t root);

/* Page-table pages allocated now, roots included. */
u64 pt_table_pages(void);

/*
 * A zeroed table page, counted, with no entries, from the node of table
 * @near (the one it will hang from), others serving when that node has
 * none; NULL when out of memory (mm/pt_root.c).
 */
struct page *pt_table_alloc(paddr_t near);

/* Frees (or forgets, for an adopted boot table) table page @p (mm/pt_root.c). */
void pt_table_free(struct page *p);

/* Counts a table page allocated or adopted (+1) or freed (-1) in pt_table_pages(). */
void pt_tables_account(s64 delta);

#endif
