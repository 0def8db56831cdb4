/*
 * Link-time limits of the linker sets (include/linker_sets.h), an implicit
 * script every kernel and host link is given: one benchmark or design too
 * many is a link error, never one left out at run time. A set a binary
 * does not have counts as empty (the host tests register no benchmark).
 */
#include "linker_sets.h"

ASSERT((DEFINED(__start_bench_set) ? __stop_bench_set - __start_bench_set : 0) <=
       BENCH_MAX_BENCHES * BENCH_ENTRY_BYTES,
       "more benchmarks registered than BENCH_MAX_BENCHES (include/linker_sets.h)");
ASSERT((DEFINED(__start_design_set) ? __stop_design_set - __start_design_set : 0) <=
       DESIGN_SET_MAX * DESIGN_ENTRY_BYTES,
       "more designs registered than DESIGN_SET_MAX (include/linker_sets.h)");
