/* Build identity; MMLAB_VERSION comes from the Makefile (git describe). */
#include "kernel/version.h"

#ifndef MMLAB_VERSION
#define MMLAB_VERSION "unknown"
#endif

const char mmlab_version[] = MMLAB_VERSION;
const char mmlab_compiler[] = __VERSION__;
const unsigned mmlab_max_cpus = MAX_CPUS;
