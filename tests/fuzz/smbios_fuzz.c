/*
 * libFuzzer target: one SMBIOS Memory Device structure (type 17) as worker/smbios.c parses it from
 * /sys/firmware/dmi/entries/17-N/raw, on arbitrary bytes. Whatever they hold, the parser must not read past
 * them or crash; an empty slot is 0; a refusal says why; a device it accepts has a speed and a data width,
 * and a channel key that is empty or "<array handle, 4 hex digits>:<locator text>", NUL-terminated.
 *   clang -g -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE tests/fuzz/smbios_fuzz.c worker/smbios.c \
 *         lib/error.c -o smbios_fuzz
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "worker/smbios.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct smbios_dimm d;
    struct pp_error err = {{0}};
    int rc = smbios_parse_dimm(data, size, &d, &err);

    if (rc == -1 && !err.msg[0])
        abort(); /* a refusal says why */
    if (rc != -1 && rc != 0 && rc != 1)
        abort();
    if (rc == 1) {
        size_t len = strnlen(d.channel, sizeof(d.channel));
        if (!d.speed_mts || !d.width_bits || d.width_bits == 0xFFFF || len == sizeof(d.channel))
            abort();
        if (len && (len < 6 || d.channel[4] != ':' || strspn(d.channel, "0123456789abcdef") != 4))
            abort();
    }
    return 0;
}
