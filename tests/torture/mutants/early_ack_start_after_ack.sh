# kind: a target that counts its flush start after it acknowledges (early_ack)
perl -0777 -pi -e 's/\tatomic_store_release\(&me->started, me->started \+ 1\);\n(\tif \(smp_call_ack\(\)\) \{.*?\n\t\}\n)/$1\tatomic_store_release(&me->started, me->started + 1);\n/s or die "no match\n"' mm/tlb/designs/early_ack.c
