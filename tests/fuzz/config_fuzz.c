/*
 * libFuzzer target: ppbenchd's configuration parser (server/config.c) on arbitrary bytes. Whatever the file
 * holds, the parser must not crash, and every numeric setting must stay inside its bounds, applied or not
 * (the exclusive_<kind> choices among host, device and none).
 *   clang -g -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE tests/fuzz/config_fuzz.c server/config.c \
 *         lib/log.c lib/error.c -o config_fuzz && ./config_fuzz -max_total_time=30
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "server/config.h"
#include "lib/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct config c;
    struct pp_error err;
    char path[64];
    int fd = memfd_create("config", 0);

    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    log_set_level(LOG_ERR);
    config_defaults(&c);
    (void)!config_load_file(&c, path, &err);
    if (c.threads < 1 || c.threads > 256 || c.lease_s < 2 || c.heartbeat_s < 1 || c.max_body_bytes < 1024 ||
        c.max_connections < 4 || c.max_wait_s < 0 || c.connection_timeout_s < 1)
        abort();
    for (int k = 0; k < KIND_COUNT; k++)
        if (c.exclusive[k] < EXCLUSIVE_HOST || c.exclusive[k] > EXCLUSIVE_NONE)
            abort();
    close(fd);
    return 0;
}
