/*
 * statedir: the exclusive lock on ppbenchd's state directory. One ppbenchd serves a state directory (its
 * embedded PostgreSQL, its tokens); a second one started on the same directory must refuse before it touches
 * anything, above all the first one's PostgreSQL. Main thread, at startup.
 */
#ifndef PP_STATEDIR_H
#define PP_STATEDIR_H

#include "lib/error.h"

/* Create dir if needed and take <dir>/ppbenchd.lock (flock, exclusive, not waiting) for the life of the
 * process: *fd stays open (close-on-exec, so no child keeps the lock) and the file holds this process's pid.
 * -1 when another process holds it (err names its pid) or the file cannot be made. */
int statedir_lock(const char *dir, int *fd, struct pp_error *err) PP_WUR;

#endif
