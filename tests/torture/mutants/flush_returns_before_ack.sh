# kind: a flush that returns before its targets acknowledge
perl -0777 -pi -e 's/werr = err == -EINVAL \? 0 : smp_call_wait\(\);/werr = 0;/ or die "no match\n"' mm/tlb/tlb.c
