/* mkdirs: mkdir -p for the unit tests that build fake sysfs trees (test_cpucache, test_smbios). */
#ifndef PP_TEST_MKDIRS_H
#define PP_TEST_MKDIRS_H

#include <stdio.h>
#include <sys/stat.h>

static void mkdirs(const char *path)
{
    char tmp[512];

    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

#endif
