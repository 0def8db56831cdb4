/*
 * The multiboot1 command line, whose first word depends on the loader:
 * QEMU's -kernel puts the image path there ("/srv/mmlab.elf mode=bench"),
 * iPXE the image name ("mmlab.elf mode=bench"), GRUB 2's multiboot command
 * only the arguments ("mode=bench"). The specification leaves it open.
 * Pure string work: builds for the host tests as well.
 */
#ifndef BOOT_MB1_CMDLINE_H
#define BOOT_MB1_CMDLINE_H

#include "types.h"

/*
 * Splits @raw into the image path a loader put first, if any, and the
 * kernel's own words. Every mmlab word is key=value with a key of
 * [A-Za-z0-9_], so a first word is the image path exactly when it is not
 * shaped like that and holds a '/' or a '.' (a path or a file name). A
 * first word that is neither (a typo such as "mode") stays, for the
 * command-line parser to name. Returns the start of the kernel's words
 * (leading spaces skipped); *@image and *@image_len give the dropped word
 * (NULL and 0 when none was).
 */
const char *mb1_cmdline_args(const char *raw, const char **image, size_t *image_len);

#endif
