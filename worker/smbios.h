/*
 * smbios: a CPU's theoretical peak memory bandwidth from the SMBIOS Memory Device entries (type 17) the
 * kernel exposes raw under /sys/firmware/dmi/entries/17-N/raw (root-only: the worker unit copies them for its
 * user).
 */
#ifndef PP_SMBIOS_H
#define PP_SMBIOS_H

#include <stddef.h>

#include "lib/error.h"

#define SMBIOS_ROOT_DEFAULT "/sys/firmware/dmi/entries"
#define SMBIOS_MAX_DIMMS    256
#define SMBIOS_RAW_MAX      4096 /* bytes of one entry's raw file: a larger one is refused */

/* One populated memory device, as the peak needs it. */
struct smbios_dimm {
    unsigned speed_mts;  /* its configured speed, else its rated speed (MT/s) */
    unsigned width_bits; /* data width, without ECC bits */
    char channel[80];    /* "<array handle>:<locator up to its channel id>"; "" when no locator names one */
};

/* One raw type-17 structure of len bytes (formatted area, then its strings). 1: a populated device, *out
 * filled in; 0: an empty slot; -1: malformed or unusable (too short, speed or width unknown; err says why).
 */
int smbios_parse_dimm(const unsigned char *buf, size_t len, struct smbios_dimm *out,
                      struct pp_error *err) PP_WUR;

/* Peak = the sum over channels of the channel's slowest populated device (speed x data width / 8), bytes/s;
 * source says how it was counted. root: the entries' folder, NULL for $PPBENCH_SMBIOS_ROOT or the default.
 * An entry that is not a regular file of at most SMBIOS_RAW_MAX bytes is skipped (never waited on). Fails,
 * saying why, when no populated device could be read or the peak is beyond PP_PEAK_MAX_BYTES_PER_S. */
int smbios_peak(const char *root, double *bytes_per_s, char *source, size_t source_size,
                struct pp_error *err) PP_WUR;

#endif
