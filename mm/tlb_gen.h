/* The gen TLB design (mm/tlb_gen.c), for its table line and its self-tests. */
#ifndef MM_TLB_GEN_H
#define MM_TLB_GEN_H

#include "mm/tlb.h"

extern const struct tlb_ops tlb_ops_gen;

#endif
