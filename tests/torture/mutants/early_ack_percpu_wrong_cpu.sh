# kind: a per-CPU read of the wrong CPU's copy (early_ack's wait reads the initiator's counts)
perl -0777 -pi -e 's/struct ea_cpu \*t = per_cpu_ptr\(ea_cpu, cpu\);/struct ea_cpu *t = this_cpu_ptr(ea_cpu);/ or die "no match\n"' mm/tlb/designs/early_ack.c
