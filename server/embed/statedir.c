/*
 * statedir: see statedir.h. flock(2) locks belong to the open file description, so the kernel releases this
 * one when the process dies however it dies (kill -9 included): a stale lock file never blocks a restart.
 */
#include "server/embed/statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int statedir_lock(const char *dir, int *fd, struct pp_error *err)
{
    char path[4096], holder[32] = "";
    ssize_t n;
    int f;

    *fd = -1;
    if (mkdir(dir, 0755) && errno != EEXIST)
        return pp_error_set(err, "state directory %s: %s", dir, strerror(errno));
    snprintf(path, sizeof(path), "%s/ppbenchd.lock", dir);
    if ((f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
        return pp_error_set(err, "%s: %s", path, strerror(errno));
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        int why = errno;
        if ((n = pread(f, holder, sizeof(holder) - 1, 0)) > 0)
            holder[strcspn(holder, "\n")] = '\0';
        close(f);
        if (why == EWOULDBLOCK)
            return pp_error_set(err, "state directory %s is in use by another ppbenchd (pid %s)", dir,
                                holder[0] ? holder : "unknown");
        return pp_error_set(err, "%s: %s", path, strerror(why));
    }
    if (ftruncate(f, 0) != 0 || dprintf(f, "%d\n", (int)getpid()) < 0) {
        close(f);
        return pp_error_set(err, "%s: %s", path, strerror(errno));
    }
    *fd = f;
    return 0;
}
