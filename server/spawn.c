/*
 * spawn: the clean slate a daemon's child needs. Runs in a forked child only.
 */
#include "server/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

void spawn_child_reset(int outfd)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigset_t none;
    int nul;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &dfl, NULL);
    if (outfd >= 0)
        outfd = fcntl(outfd, F_DUPFD, 3); /* out of the way of 0..2 */
    if ((nul = open("/dev/null", O_RDONLY)) >= 0 && nul != 0) {
        dup2(nul, 0);
        close(nul);
    }
    if (outfd >= 0) {
        dup2(outfd, 1);
        dup2(outfd, 2);
    }
    if (close_range(3, ~0U, 0) != 0)
        for (int fd = 3; fd < 65536; fd++)
            close(fd);
}

void spawn_oom_score(const char *adj)
{
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    size_t len = 0;

    if (fd < 0)
        return;
    while (adj[len])
        len++;
    if (write(fd, adj, len) < 0) {
        /* not permitted: keep the inherited score */
    }
    close(fd);
}
