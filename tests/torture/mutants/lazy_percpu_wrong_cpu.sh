# kind: a per-CPU read of the wrong CPU's copy (lazy's batch judged on the reaping CPU's queue)
perl -0777 -pi -e 's/(static bool lazy_batch_done\(.*?)const struct lazy_cpu \*c = per_cpu_ptr\(lazy_cpu, cpu\);/${1}const struct lazy_cpu *c = this_cpu_ptr(lazy_cpu);/s or die "no match\n"' mm/tlb/designs/lazy.c
