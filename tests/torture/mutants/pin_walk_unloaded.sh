# kind: the lockless pin walk taken on a CPU where the address space is not loaded
perl -0777 -pi -e 's/if \(cpumask_test_cpu\(arch_cpu_id\(\), mm_cpumask\(w->mm\)\)\) \{/if (true || cpumask_test_cpu(arch_cpu_id(), mm_cpumask(w->mm))) {/ or die "no match\n"' mm/pin/pin.c
