/* Deliberate failures for testing the failure paths (crash= on the command line). */
#ifndef KERNEL_CRASH_H
#define KERNEL_CRASH_H

/* Crashes in the way @kind (enum opt_crash) names; returns only for OPT_CRASH_NONE. */
void crash_on_purpose(int kind);

#endif
