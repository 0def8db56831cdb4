/*
 * Every mechanism's design table, filled from the design_set section
 * (DESIGN_REGISTER, kernel/design.h): a design is placed by its order,
 * then by link order, so the tables read the same on every boot and host
 * run. Boot CPU (or the host test's main thread), before any table is read.
 */
#include "kernel/design.h"

/* Bounds of the design_set section: linker.ld, or the host linker's own. */
extern const struct design_entry __start_design_set[], __stop_design_set[];

/* The entries of @e's table that come before @e. */
static unsigned design_place(const struct design_entry *e)
{
	unsigned n = 0;

	for (const struct design_entry *f = __start_design_set; f < __stop_design_set; f++)
		if (f->table == e->table &&
		    (f->order < e->order || (f->order == e->order && f < e)))
			n++;
	return n;
}

void design_tables_fill(void)
{
	for (const struct design_entry *e = __start_design_set; e < __stop_design_set; e++)
		e->table[design_place(e)] = e->d;
}
