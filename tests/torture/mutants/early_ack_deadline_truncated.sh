# kind: a wait whose deadline is truncated (early_ack's flush wait ends after a count of turns)
perl -0777 -pi -e 's/smp_wait_turn\(&w\)\)(\s*\{\s*smp_cpu_write_off\(cpu, "tlb early_ack flush"\))/smp_wait_turn(&w) || w.turns > 4 * SMP_WAIT_CLOCK_TURNS)$1/ or die "no match\n"' mm/tlb/designs/early_ack.c
