/*
 * The limits of the linker sets whose overflow must stop the build, not
 * the run: #defines only, read by the C that sizes the arrays and by
 * kernel/sets.ld.S, whose link-time ASSERTs hold every kernel and host
 * binary to them. An entry's size is checked against its struct by a
 * BUILD_ASSERT beside the struct.
 */
#ifndef LINKER_SETS_H
#define LINKER_SETS_H

#define BENCH_MAX_BENCHES 16  /* bench_set: benchmarks BENCH_REGISTER registers */
#define BENCH_ENTRY_BYTES 16  /* sizeof(struct bench_entry) */
#define DESIGN_SET_MAX 48     /* design_set: designs of every mechanism together */
#define DESIGN_ENTRY_BYTES 24 /* sizeof(struct design_entry) */

#endif
