/*
 * test_smbios: the CPU peak from SMBIOS Memory Device entries (worker/smbios.h), built byte by byte into
 * fake /sys/firmware/dmi/entries folders: one DIMM per channel, locators that name channels (two DIMMs on a
 * channel count once, at the slower one's rate; the same names in another memory array are other channels),
 * empty slots, configured speed over speed, extended speeds, truncated entries skipped with their reason,
 * random bytes (parsed from buffers of exactly their length, so a sanitizer build sees any overread), no
 * entries at all, and hostile ones (issue 26): a FIFO, a device and an oversized file where raw should be are
 * skipped without waiting on them, and 64 devices claiming the widest, fastest memory give no peak.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "mkdirs.h"
#include "worker/smbios.h"

static char root[256];
static int nentries;

/* One type-17 entry: its length byte, the fields it may cover, its strings. */
struct dimm {
    unsigned len;                 /* 0: 0x28 (SMBIOS 2.8) */
    unsigned array;               /* physical memory array handle */
    unsigned size;                /* MB; 0: an empty slot */
    unsigned width;               /* data width in bits; 0: 64 */
    unsigned speed, configured;   /* MT/s */
    unsigned ext_speed, ext_conf; /* SMBIOS 3.3 */
    const char *device, *bank;
    size_t cut; /* write only this many bytes of the file (0: all) */
};

static void put16(unsigned char *b, size_t at, unsigned v)
{
    b[at] = v & 0xFF;
    b[at + 1] = (v >> 8) & 0xFF;
}

static void put32(unsigned char *b, size_t at, unsigned v)
{
    put16(b, at, v & 0xFFFF);
    put16(b, at + 2, v >> 16);
}

/* The raw bytes of d into out; returns their count. */
static size_t build(const struct dimm *d, unsigned char *out)
{
    unsigned char full[0x60] = {0};
    unsigned len = d->len ? d->len : 0x28;
    size_t n = len;

    full[0] = 17;
    full[1] = (unsigned char)len;
    put16(full, 0x04, d->array);
    put16(full, 0x08, 72);
    put16(full, 0x0A, d->width ? d->width : 64);
    put16(full, 0x0C, d->size);
    full[0x10] = 1; /* device locator: string 1 */
    full[0x11] = 2; /* bank locator: string 2 */
    put16(full, 0x15, d->speed);
    put16(full, 0x20, d->configured);
    put32(full, 0x54, d->ext_speed);
    put32(full, 0x58, d->ext_conf);
    memcpy(out, full, len);
    n += (size_t)sprintf((char *)out + n, "%s", d->device ? d->device : "DIMM") + 1;
    n += (size_t)sprintf((char *)out + n, "%s", d->bank ? d->bank : "BANK") + 1;
    out[n++] = '\0';
    return d->cut ? d->cut : n;
}

static void write_raw(const unsigned char *bytes, size_t len)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/17-%d", root, nentries++);
    mkdirs(path);
    strcat(path, "/raw");
    if ((f = fopen(path, "wb"))) {
        fwrite(bytes, 1, len, f);
        fclose(f);
    }
}

static void add(struct dimm d)
{
    unsigned char buf[512];
    write_raw(buf, build(&d, buf));
}

static void fresh(const char *name)
{
    char cmd[600];

    snprintf(root, sizeof(root), "%s/smbios-%d-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), name);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        return;
    mkdirs(root);
    nentries = 0;
    /* what sysfs holds beside type 17: another type's entry, never read */
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/16-0' && printf '\\020\\027' >'%s/16-0/raw'", root, root);
    if (system(cmd) != 0)
        printf("cannot write %s/16-0\n", root);
}

static void cleanup(void)
{
    char cmd[600];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        printf("cleanup of %s failed\n", root);
}

/* smbios_peak on root: 0 with the peak and source, or -1 with source set to the error. */
static int peak(double *bw, char *source)
{
    struct pp_error err;

    *bw = 0;
    if (smbios_peak(root, bw, source, 160, &err) == 0)
        return 0;
    snprintf(source, 160, "%s", err.msg);
    return -1;
}

static void test_smbios_one_dimm_per_channel(void)
{
    char source[160], name[16];
    double bw;

    fresh("own");
    for (int i = 0; i < 16; i++) { /* 8 DIMMs and 8 empty slots, as real firmware lists them */
        snprintf(name, sizeof(name), "DIMM %d", i);
        add((struct dimm){.size = i % 2 ? 0 : 32768,
                          .speed = i % 2 ? 0 : 4800,
                          .configured = i % 2 ? 0 : 4800,
                          .device = name,
                          .bank = "P0 BANK"});
    }
    CHECK(peak(&bw, source) == 0, "%s", source);
    CHECK(bw == 8 * 4800e6 * 8, "8 x 4800 MT/s x 8 B: %g", bw);
    CHECK(strcmp(source, "smbios: 8 channels x 4800 MT/s x 8 B (each DIMM counted as its own channel)") == 0,
          "source: %s", source);
    cleanup();
}

static void test_smbios_named_channels(void)
{
    char source[160];
    double bw;

    fresh("named");
    /* socket 0: channels A and B, two DIMMs each (the case of a locator does not matter) */
    add((struct dimm){
        .array = 0x10, .size = 16384, .speed = 4800, .device = "DIMM 0", .bank = "P0 CHANNEL A"});
    add((struct dimm){
        .array = 0x10, .size = 16384, .speed = 4800, .device = "DIMM 1", .bank = "P0 CHANNEL A"});
    add((struct dimm){
        .array = 0x10, .size = 16384, .speed = 4800, .device = "DIMM 0", .bank = "P0 CHANNEL B"});
    add((struct dimm){
        .array = 0x10, .size = 16384, .speed = 4800, .device = "DIMM 1", .bank = "p0 channel b"});
    add((struct dimm){.array = 0x10, .size = 0, .device = "DIMM 0", .bank = "P0 CHANNEL C"}); /* empty */
    /* socket 1, AMD's names: channel 0 with two DIMMs, channel 1 with one */
    add((struct dimm){.array = 0x20, .size = 16384, .speed = 4800, .bank = "P1_Node0_Channel0_Dimm0"});
    add((struct dimm){.array = 0x20, .size = 16384, .speed = 4800, .bank = "P1_Node0_Channel0_Dimm1"});
    add((struct dimm){.array = 0x20, .size = 16384, .speed = 4800, .bank = "P1_Node0_Channel1_Dimm0"});
    /* a third array: the channel named by the device locator only */
    add((struct dimm){
        .array = 0x30, .size = 16384, .speed = 4800, .device = "ChannelA-DIMM0", .bank = "BANK 0"});
    add((struct dimm){
        .array = 0x30, .size = 16384, .speed = 4800, .device = "ChannelA-DIMM1", .bank = "BANK 1"});
    /* a fourth array with socket 0's names: other channels */
    add((struct dimm){
        .array = 0x40, .size = 16384, .speed = 4800, .device = "DIMM 0", .bank = "P0 CHANNEL A"});
    CHECK(peak(&bw, source) == 0, "%s", source);
    CHECK(bw == 6 * 4800e6 * 8, "10 DIMMs on 6 channels: %g GB/s", bw * 1e-9);
    CHECK(strcmp(source, "smbios: 6 channels (named by the locators) x 4800 MT/s x 8 B") == 0, "source: %s",
          source);
    /* one DIMM whose locators name no channel ("channel" inside a word is none): every DIMM counts as its own
     */
    add((struct dimm){
        .array = 0x40, .size = 16384, .speed = 4800, .device = "DIMM 1", .bank = "SUBCHANNEL 1"});
    CHECK(peak(&bw, source) == 0 && bw == 11 * 4800e6 * 8, "11 DIMMs as 11 channels: %g GB/s", bw * 1e-9);
    CHECK(strstr(source, "11 channels x 4800 MT/s x 8 B (each DIMM counted as its own channel)"),
          "source: %s", source);
    cleanup();
}

static void test_smbios_slowest_per_channel(void)
{
    char source[160];
    double bw;

    fresh("slowest");
    add((struct dimm){.size = 8192, .speed = 4800, .bank = "CHANNEL A"});
    add((struct dimm){.size = 8192, .speed = 4400, .bank = "CHANNEL A"});
    add((struct dimm){.size = 8192, .speed = 5600, .bank = "CHANNEL B"});
    CHECK(peak(&bw, source) == 0 && bw == (4400 + 5600) * 1e6 * 8, "A at 4400, B at 5600: %g GB/s",
          bw * 1e-9);
    CHECK(strcmp(source, "smbios: 2 channels (named by the locators) x 4400-5600 MT/s x 8 B") == 0,
          "source: %s", source);
    cleanup();
}

static void test_smbios_speeds(void)
{
    struct smbios_dimm d;
    struct pp_error err;
    unsigned char buf[512];
    size_t n;

    n = build(&(struct dimm){.size = 8192, .speed = 5600, .configured = 4800}, buf);
    CHECK(smbios_parse_dimm(buf, n, &d, &err) == 1 && d.speed_mts == 4800, "configured over rated: %u",
          d.speed_mts);
    n = build(&(struct dimm){.size = 8192, .speed = 5600, .configured = 0}, buf);
    CHECK(smbios_parse_dimm(buf, n, &d, &err) == 1 && d.speed_mts == 5600,
          "rated when configured is unknown: %u", d.speed_mts);
    /* SMBIOS 2.3 (length 0x1C): no configured speed, and the strings' bytes where it would be are not one */
    n = build(&(struct dimm){.len = 0x1C, .size = 8192, .speed = 3200, .device = "DIMM_A1"}, buf);
    CHECK(smbios_parse_dimm(buf, n, &d, &err) == 1 && d.speed_mts == 3200, "2.3 entry: %u", d.speed_mts);
    n = build(&(struct dimm){.len = 0x5C, .size = 8192, .speed = 0xFFFF, .ext_speed = 70000}, buf);
    CHECK(smbios_parse_dimm(buf, n, &d, &err) == 1 && d.speed_mts == 70000, "extended speed: %u",
          d.speed_mts);
    n = build(&(struct dimm){.len = 0x5C,
                             .size = 8192,
                             .speed = 0xFFFF,
                             .ext_speed = 70000,
                             .configured = 0xFFFF,
                             .ext_conf = 68000},
              buf);
    CHECK(smbios_parse_dimm(buf, n, &d, &err) == 1 && d.speed_mts == 68000, "extended configured speed: %u",
          d.speed_mts);
    n = build(&(struct dimm){.len = 0x28, .size = 8192, .speed = 0xFFFF, .ext_speed = 70000}, buf);
    CHECK(smbios_parse_dimm(buf, n, &d, &err) == -1 && strstr(err.msg, "speed unknown"),
          "0xFFFF without the extended field (length 0x28) is unknown, not read past the entry");
    n = build(&(struct dimm){.len = 0x15, .size = 0}, buf);
    CHECK(smbios_parse_dimm(buf, n, &d, &err) == 0, "an empty slot of SMBIOS 2.1 (no speed field) is empty");
}

static void test_smbios_truncated(void)
{
    char source[160];
    double bw;

    fresh("truncated");
    add((struct dimm){.size = 8192, .speed = 3200, .device = "DIMM 0"});
    add((struct dimm){.len = 0x10, .size = 8192, .speed = 3200}); /* 17-1: populated, too short for a speed */
    add((struct dimm){.size = 8192, .speed = 3200, .cut = 0x20}); /* 17-2: the file ends inside its entry */
    CHECK(peak(&bw, source) == 0 && bw == 3200e6 * 8, "the good entry counts: %g GB/s (%s)", bw * 1e-9,
          source);
    CHECK(strcmp(source,
                 "smbios: 1 channel x 3200 MT/s x 8 B (each DIMM counted as its own channel); 2 skipped: "
                 "17-1/raw: length 0x10 too short for the speed") == 0,
          "source: %s", source);
    cleanup();
}

static void test_smbios_random_bytes(void)
{
    struct smbios_dimm d;
    struct pp_error err;
    char source[160];
    double bw;
    int ok = 1;

    srand(17);
    for (int i = 0; i < 200000 && ok; i++) {
        size_t len = (size_t)(rand() % 160);
        unsigned char *b = malloc(len ? len : 1); /* exactly len bytes: a sanitizer sees any overread */
        int rc;

        for (size_t k = 0; k < len; k++)
            b[k] = (unsigned char)(rand() % 4 ? rand() : (rand() % 2 ? 0 : 0xFF));
        if (len > 0 && rand() % 4)
            b[0] = 17;
        if (len > 1 && rand() % 2)
            b[1] = (unsigned char)(rand() % (len + 1));
        rc = smbios_parse_dimm(b, len, &d, &err);
        ok = rc == 0 || (rc == -1 && err.msg[0]) ||
             (rc == 1 && d.speed_mts && d.width_bits && memchr(d.channel, '\0', sizeof(d.channel)));
        CHECK(ok, "input %d (%zu bytes): rc %d, speed %u, width %u", i, len, rc, d.speed_mts, d.width_bits);
        free(b);
    }
    fresh("random");
    for (int i = 0; i < 64; i++) {
        unsigned char b[300];
        size_t len = (size_t)(rand() % (int)sizeof(b));
        for (size_t k = 0; k < len; k++)
            b[k] = (unsigned char)rand();
        if (len > 1) {
            b[0] = 17;
            b[1] = (unsigned char)(rand() % (len + 1));
        }
        write_raw(b, len);
    }
    CHECK(peak(&bw, source) == 0 || strstr(source, "skipped") || strstr(source, "no populated") ||
              strstr(source, "not believed"),
          "random entries: %s", source);
    cleanup();
}

static void test_smbios_none(void)
{
    char source[160], want[400];
    double bw;

    fresh("none");
    snprintf(want, sizeof(want), "no type-17 entry in %s", root);
    CHECK(peak(&bw, source) == -1 && strcmp(source, want) == 0 && bw == 0, "no entries: %s", source);
    add((struct dimm){.size = 0});
    add((struct dimm){.size = 0});
    CHECK(peak(&bw, source) == -1 && strcmp(source, "no populated memory device in 2 entries") == 0, "%s",
          source);
    cleanup();
    CHECK(peak(&bw, source) == -1 && strstr(source, "No such file or directory"), "no folder: %s", source);
    /* the folder from the environment when none is given */
    fresh("env");
    add((struct dimm){.size = 8192, .speed = 2400});
    setenv("PPBENCH_SMBIOS_ROOT", root, 1);
    CHECK(smbios_peak(NULL, &bw, source, sizeof(source), NULL) == 0 && bw == 2400e6 * 8,
          "PPBENCH_SMBIOS_ROOT is read: %g", bw);
    unsetenv("PPBENCH_SMBIOS_ROOT");
    cleanup();
}

static void hung(int sig)
{
    (void)sig;
    printf("FAIL test_smbios_hostile: smbios_peak still waits on a FIFO after 5 s\n");
    fflush(stdout); /* a test's last word: no async-signal-safety needed */
    _exit(1);
}

static void test_smbios_hostile(void)
{
    char source[160], path[600], big[SMBIOS_RAW_MAX + 1] = {0};
    double bw;
    FILE *f;

    fresh("hostile");
    add((struct dimm){.size = 8192, .speed = 3200}); /* 17-0: the good one */
    snprintf(path, sizeof(path), "%s/17-1", root);
    mkdirs(path);
    strcat(path, "/raw");
    CHECK(mkfifo(path, 0600) == 0, "mkfifo %s", path);
    snprintf(path, sizeof(path), "%s/17-2", root);
    mkdirs(path);
    strcat(path, "/raw");
    CHECK(symlink("/dev/zero", path) == 0, "symlink %s", path);
    snprintf(path, sizeof(path), "%s/17-3", root);
    mkdirs(path);
    strcat(path, "/raw");
    if ((f = fopen(path, "wb"))) {
        big[0] = 17;
        big[1] = 0x28;
        fwrite(big, 1, sizeof(big), f);
        fclose(f);
    }
    signal(SIGALRM, hung);
    alarm(5);
    CHECK(peak(&bw, source) == 0 && bw == 3200e6 * 8, "the good entry counts: %g GB/s (%s)", bw * 1e-9,
          source);
    alarm(0);
    CHECK(strstr(source, "3 skipped: 17-1/raw: not a regular file"), "the FIFO is skipped, not read: %s",
          source);
    cleanup();

    /* 64 DIMMs at 2^31-1 MT/s and 65534 bits gave 1.1e21 B/s: beyond PP_PEAK_MAX_BYTES_PER_S, no peak */
    fresh("crafted");
    for (int i = 0; i < 64; i++)
        add((struct dimm){.len = 0x5C,
                          .size = 8192,
                          .width = 0xFFFE,
                          .speed = 0xFFFF,
                          .ext_speed = 0x7FFFFFFF,
                          .configured = 0xFFFF,
                          .ext_conf = 0x7FFFFFFF});
    CHECK(peak(&bw, source) == -1 && strstr(source, "not believed"), "64 crafted DIMMs: %g B/s (%s)", bw,
          source);
    cleanup();
}

int main(void)
{
    RUN(test_smbios_one_dimm_per_channel);
    RUN(test_smbios_named_channels);
    RUN(test_smbios_slowest_per_channel);
    RUN(test_smbios_speeds);
    RUN(test_smbios_truncated);
    RUN(test_smbios_random_bytes);
    RUN(test_smbios_none);
    RUN(test_smbios_hostile);
    return check_failures != 0;
}
