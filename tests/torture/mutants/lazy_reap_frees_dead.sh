# kind: a reap that frees, rather than quarantines, a batch whose target died undrained (lazy)
perl -0777 -pi -e 's/(else if \(lazy_any_dead\(&b->targets\)\)\s*lazy_batch_release_locked\(b, )true\)/${1}false)/ or die "no match\n"' mm/tlb/designs/lazy.c
