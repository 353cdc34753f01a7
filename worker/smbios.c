/*
 * smbios: reads the SMBIOS Memory Device structures (type 17) and derives a theoretical peak memory bandwidth
 * from the populated ones. Pure reads of files, no state; runs on the worker's main thread (platform.c).
 *
 * Type 17, the fields used (offsets in the formatted area; each read only when the length byte covers it):
 *   0x00 type (17)   0x01 length   0x04 physical memory array handle   0x0A data width (bits)
 *   0x0C size (0: empty slot, 0x7FFF: see 0x1C)   0x10 device locator   0x11 bank locator (string numbers)
 *   0x15 speed (MT/s; 0xFFFF: see 0x54)   0x1C extended size   0x20 configured speed (0xFFFF: see 0x58)
 *   0x54 extended speed   0x58 extended configured speed (SMBIOS 3.3)
 * The strings follow the formatted area, numbered from 1, each ended by a NUL, the set by a second NUL.
 *
 * Channels: each populated device counts as a channel of its own (an upper bound: two devices sharing a
 * channel share its bandwidth), unless every device's bank or device locator names its channel ("P0 CHANNEL
 * A", "P0_Node0_Channel0_Dimm0", "ChannelA-DIMM0"); then a channel is the locator's text up to the channel's
 * id, within one memory array (one per socket on most boards), and it runs at its slowest device's rate.
 *
 * What is read is outside input (a copy of the entries may sit in any folder, PPBENCH_SMBIOS_ROOT): an entry
 * is read only when it is a regular file (opened without blocking: a FIFO or a device is refused, never
 * waited on) of at most SMBIOS_RAW_MAX bytes, and a peak beyond PP_PEAK_MAX_BYTES_PER_S (lib/peak.h) is
 * refused, whatever the entries claim.
 */
#include "smbios.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/peak.h"

static unsigned word(const unsigned char *b, size_t at)
{
    return (unsigned)b[at] | (unsigned)b[at + 1] << 8;
}

static unsigned dword(const unsigned char *b, size_t at)
{
    return word(b, at) | word(b, at + 2) << 16;
}

/* String n (from 1) of the set that starts at `at`; "" when n is 0, past the set or not NUL-terminated. */
static void string_at(const unsigned char *buf, size_t len, size_t at, unsigned n, char *out, size_t size)
{
    out[0] = '\0';
    while (n > 0 && at < len) {
        const unsigned char *end = memchr(buf + at, '\0', len - at);
        if (!end || end == buf + at)
            return; /* unterminated, or the set's end */
        if (--n == 0)
            snprintf(out, size, "%.*s", (int)(end - (buf + at)), (const char *)buf + at);
        at = (size_t)(end - buf) + 1;
    }
}

/* The length of s up to and including the id (letters and digits) after a "channel" token: "P0 CHANNEL A",
 * "P0_Node0_Channel0" (of "..._Dimm0"), "ChannelA" (of "ChannelA-DIMM0"); 0 when s names no channel. */
static size_t channel_key_len(const char *s)
{
    for (const char *c = s; (c = strcasestr(c, "channel")); c++) {
        const char *id = c + strlen("channel");
        size_t n = 0;

        if (c > s && isalpha((unsigned char)c[-1]))
            continue; /* part of another word */
        id += strspn(id, " _-:");
        while (isalnum((unsigned char)id[n]))
            n++;
        if (n)
            return (size_t)(id + n - s);
    }
    return 0;
}

int smbios_parse_dimm(const unsigned char *buf, size_t len, struct smbios_dimm *out, struct pp_error *err)
{
    size_t flen;
    unsigned size, speed, configured = 0;
    char loc[64];

    memset(out, 0, sizeof(*out));
    if (len < 2)
        return pp_error_set(err, "%zu bytes, no header", len);
    if (buf[0] != 17)
        return pp_error_set(err, "type %u, not 17", buf[0]);
    flen = buf[1];
    if (flen > len)
        return pp_error_set(err, "length 0x%02zx beyond the %zu bytes read", flen, len);
    if (flen < 0x0E)
        return pp_error_set(err, "length 0x%02zx too short for the size", flen);
    size = word(buf, 0x0C);
    if (size == 0x7FFF && flen >= 0x20)
        size = dword(buf, 0x1C) & 0x7FFFFFFF;
    if (size == 0)
        return 0;
    if (flen < 0x17)
        return pp_error_set(err, "length 0x%02zx too short for the speed", flen);
    out->width_bits = word(buf, 0x0A);
    if (out->width_bits == 0 || out->width_bits == 0xFFFF)
        return pp_error_set(err, "data width unknown");
    speed = word(buf, 0x15);
    if (speed == 0xFFFF)
        speed = flen >= 0x58 ? dword(buf, 0x54) & 0x7FFFFFFF : 0;
    if (flen >= 0x22) {
        configured = word(buf, 0x20);
        if (configured == 0xFFFF)
            configured = flen >= 0x5C ? dword(buf, 0x58) & 0x7FFFFFFF : 0;
    }
    out->speed_mts = configured ? configured : speed;
    if (out->speed_mts == 0)
        return pp_error_set(err, "speed unknown");
    for (int field = 0x11; field >= 0x10; field--) { /* the bank locator first, then the device's */
        size_t key;
        string_at(buf, len, flen, buf[field], loc, sizeof(loc));
        if ((key = channel_key_len(loc))) {
            snprintf(out->channel, sizeof(out->channel), "%04x:%.*s", word(buf, 0x04), (int)key, loc);
            break;
        }
    }
    return 1;
}

/* root/name/raw into buf (at most size bytes), when it is a regular file of at most size bytes. */
static int read_raw(const char *root, const char *name, unsigned char *buf, size_t size, size_t *len,
                    struct pp_error *err)
{
    char path[PATH_MAX];
    struct stat st;
    unsigned char more;
    ssize_t n = 0;
    int fd, rc = 0;

    *len = 0;
    snprintf(path, sizeof(path), "%s/%s/raw", root, name);
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
        return pp_error_set(err, "%s", strerror(errno));
    if (fstat(fd, &st) != 0)
        rc = pp_error_set(err, "%s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = pp_error_set(err, "not a regular file");
    else if (st.st_size > (off_t)size)
        rc = pp_error_set(err, "%lld bytes, more than %zu", (long long)st.st_size, size);
    while (rc == 0 && *len < size && (n = read(fd, buf + *len, size - *len)) != 0) {
        if (n < 0 && errno != EINTR)
            rc = pp_error_set(err, "read: %s", strerror(errno));
        else if (n > 0)
            *len += (size_t)n;
    }
    if (rc == 0 && *len == size && read(fd, &more, 1) > 0) /* sysfs gives no size: read to know */
        rc = pp_error_set(err, "more than %zu bytes", size);
    close(fd);
    return rc;
}

static int cmp_channel(const void *a, const void *b)
{
    return strcasecmp(((const struct smbios_dimm *)a)->channel, ((const struct smbios_dimm *)b)->channel);
}

static double rate(const struct smbios_dimm *d)
{
    return d->speed_mts * 1e6 * d->width_bits / 8.0;
}

/* "4800" or "4400-4800" */
static void range(char *out, size_t size, double lo, double hi)
{
    if (lo == hi)
        snprintf(out, size, "%g", lo);
    else
        snprintf(out, size, "%g-%g", lo, hi);
}

int smbios_peak(const char *root, double *bytes_per_s, char *source, size_t source_size, struct pp_error *err)
{
    struct smbios_dimm dimms[SMBIOS_MAX_DIMMS];
    size_t n = 0, nentries = 0, nskipped = 0, channels = 0;
    char first[32] = "", skipped[160] = "", speeds[32], widths[32];
    double total = 0, smin = 1e30, smax = 0, wmin = 1e30, wmax = 0;
    int named = 1;
    struct dirent *e;
    DIR *dir;

    if (!root && !((root = getenv("PPBENCH_SMBIOS_ROOT")) && *root))
        root = SMBIOS_ROOT_DEFAULT;
    if (!(dir = opendir(root)))
        return pp_error_set(err, "%s: %s", root, strerror(errno));
    while ((e = readdir(dir))) {
        unsigned char buf[SMBIOS_RAW_MAX];
        struct smbios_dimm d;
        struct pp_error why;
        size_t len = 0;
        int rc;

        if (strncmp(e->d_name, "17-", 3) != 0)
            continue;
        nentries++;
        rc = read_raw(root, e->d_name, buf, sizeof(buf), &len, &why);
        if (rc == 0)
            rc = smbios_parse_dimm(buf, len, &d, &why);
        if (rc == 1 && n == SMBIOS_MAX_DIMMS)
            rc = pp_error_set(&why, "more than %d memory devices", SMBIOS_MAX_DIMMS);
        if (rc == 1) {
            dimms[n++] = d;
        } else if (rc < 0 && (nskipped++ == 0 || strverscmp(e->d_name, first) < 0)) {
            snprintf(first, sizeof(first), "%s",
                     e->d_name); /* the lowest-numbered, whatever readdir's order */
            snprintf(skipped, sizeof(skipped), "%s/raw: %s", e->d_name, why.msg);
        }
    }
    closedir(dir);
    if (n == 0 && nskipped)
        return pp_error_set(err, "%s; %zu of %zu entries skipped", skipped, nskipped, nentries);
    if (n == 0 && nentries)
        return pp_error_set(err, "no populated memory device in %zu entries", nentries);
    if (n == 0)
        return pp_error_set(err, "no type-17 entry in %s", root);
    for (size_t i = 0; i < n; i++)
        named &= dimms[i].channel[0] != '\0';
    if (named)
        qsort(dimms, n, sizeof(dimms[0]), cmp_channel);
    for (size_t i = 0, j; i < n; i = j) {
        double slowest = rate(&dimms[i]);
        for (j = i + 1; named && j < n && strcasecmp(dimms[j].channel, dimms[i].channel) == 0; j++)
            if (rate(&dimms[j]) < slowest)
                slowest = rate(&dimms[j]);
        total += slowest;
        channels++;
    }
    for (size_t i = 0; i < n; i++) {
        smin = dimms[i].speed_mts < smin ? dimms[i].speed_mts : smin;
        smax = dimms[i].speed_mts > smax ? dimms[i].speed_mts : smax;
        wmin = dimms[i].width_bits / 8.0 < wmin ? dimms[i].width_bits / 8.0 : wmin;
        wmax = dimms[i].width_bits / 8.0 > wmax ? dimms[i].width_bits / 8.0 : wmax;
    }
    if (!pp_peak_ok(total))
        return pp_error_set(err, "%zu memory devices give %.3g B/s, beyond %g: not believed", n, total,
                            PP_PEAK_MAX_BYTES_PER_S);
    range(speeds, sizeof(speeds), smin, smax);
    range(widths, sizeof(widths), wmin, wmax);
    *bytes_per_s = total;
    snprintf(source, source_size, "smbios: %zu channel%s%s x %s MT/s x %s B%s", channels,
             channels == 1 ? "" : "s", named ? " (named by the locators)" : "", speeds, widths,
             named ? "" : " (each DIMM counted as its own channel)");
    if (nskipped) {
        size_t used = strlen(source);
        snprintf(source + used, source_size - used, "; %zu skipped: %s", nskipped, skipped);
    }
    return 0;
}
