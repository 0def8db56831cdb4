/* Build identity, compiled into kernel/version.c only (so a new commit relinks, not rebuilds). */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H

extern const char mmlab_version[];  /* git describe --always --dirty */
extern const char mmlab_compiler[]; /* compiler name and version */
extern const unsigned mmlab_max_cpus;

#endif
